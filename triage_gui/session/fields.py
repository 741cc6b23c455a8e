"""Every field after the first of a prompt with several (a queue and a priority): each labelled by its own
first pass, as ``classify --fast`` labels it.

The first field is the session's own (the teaching, the language model, the checks). Each further field is
the one-field prompt holding it alone (:meth:`PromptProfile.field_profile`) with its own taught tickets,
fitted on the learning modules' one path, :meth:`engine.learning.Teacher.fit_table` without a scorer,
the one ``classify --fast`` runs per field (``commands/classify.run_fields``), on a table of the same rows
sharing the ticket table's embeddings (:func:`engine.table.field_table`: the encoder embeds a ticket once
for every field). So a field's labels in the window are those ``classify --fast`` gives it, by construction
(``tests/test_session_fields.py`` compares them). The language model refines the first field only, for now.

Refitted, as the teaching is, when the embedded rows have doubled (16, 32, 64, …) or all are embedded, and
at once when the field's taught set changes; on its own thread, the latest refit cancelling the one before.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engine.table import embedded_count, field_table
from .events import Event
from .tasks import LatestTask
from .workers import WorkerThread

if TYPE_CHECKING:
    from ..engine.prompt import PromptProfile
    from ..engine.table import TicketTable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FieldSpec:
    """A further field as it is run: its name and the one-field prompt holding it alone."""

    name: str
    profile: PromptProfile

    @property
    def labels(self) -> list[str]:
        return self.profile.label_names


def _fit(tables: list[TicketTable], specs: list[FieldSpec], taught: list[list[tuple[str, str]]], encoder) -> None:
    """On the fields' thread: each field's first pass over its own table (the tables are this job's alone)."""
    from ..engine.learning import Teacher

    for table, spec, items in zip(tables, specs, taught, strict=True):
        Teacher(None, spec.profile, encoder).fit_table(table, items)


def usable(taught: dict[str, str], labels: list[str]) -> list[tuple[str, str]]:
    """The taught tickets a field learns from, as ``classify`` reads them from the prompt (a label the field
    no longer has is set aside, kept in the file)."""
    from ..engine.prompt import Example
    from ..engine.tickets import usable_taught

    return usable_taught([Example(text, label) for text, label in taught.items()], labels)[0]


def refit_due(embedded: int, scorable: int, fitted: int) -> bool:
    """Whether the tables fitted on ``fitted`` embedded rows are due a refit: the embedded rows have doubled
    (16, 32, 64, …), or every scorable row is embedded now."""
    return embedded >= max(16, 2 * fitted) or embedded == scorable > fitted


class FieldLabels:
    """Narrow inputs, as the teaching has: the ticket table (read on the loop's thread only) and the encoder
    in use (None: none yet, so no first pass); it reports through its own events, which the session forwards."""

    def __init__(self, table: TicketTable, encoder: Callable[[], Any]) -> None:
        self.table = table
        self.encoder = encoder
        self.history_named: Callable[[str], None] = lambda name: None  # the undo steps' first-field name
        self.first = ""  # the first field's name (the session's own)
        self.specs: list[FieldSpec] = []
        self.taught: list[dict[str, str]] = []  # per further field: ticket text -> label
        self.tables: list[TicketTable | None] = []  # per further field: its labelled table (None: not yet)
        self.rows_changed: Event[[int, int]] = Event()
        self.taught_changed: Event[[]] = Event()
        self.thread = WorkerThread("fields")
        self._fitting = LatestTask("field labels")
        self._fitted = 0  # embedded rows the tables in use were fitted on

    # ------------------------------------------------------------- reading

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.specs]

    def tasks(self) -> list[asyncio.Task]:
        return [self._fitting.task] if self._fitting.task is not None else []

    def threads(self) -> list[WorkerThread]:
        return [self.thread]

    def table_of(self, index: int) -> TicketTable | None:
        """Field ``index``'s labelled table (1: the second field), covering its first ``len()`` rows."""
        return self.tables[index - 1] if 0 < index <= len(self.tables) else None

    # ------------------------------------------------------------- changes

    def set_prompt(self, profile: PromptProfile) -> None:
        """The prompt in use: its fields after the first, each with the taught tickets it keeps. A prompt whose
        further fields and their taught sets are unchanged keeps its labels."""
        self.first = profile.field_name
        specs = [FieldSpec(f.name, profile.field_profile(i + 1)) for i, f in enumerate(profile.more_fields)]
        taught = [{e.text.strip(): e.label for e in f.taught if e.text.strip()} for f in profile.more_fields]
        if self._key_of(specs, taught) == self._key_of(self.specs, self.taught):
            return
        self.specs, self.taught = specs, taught
        self.history_named(self.first if specs else "")
        self.tables = [None] * len(specs)
        self._fitted = 0
        self.rows_changed.emit(0, max(0, len(self.table) - 1))
        self.refit()

    @staticmethod
    def _key_of(specs: list[FieldSpec], taught: list[dict[str, str]]) -> tuple:
        return tuple((s.name, s.profile.content_hash(), tuple(t.items())) for s, t in zip(specs, taught, strict=True))

    def items(self, index: int) -> list[tuple[str, str]]:
        """Field ``index``'s taught tickets (1: the second field)."""
        return list(self.taught[index - 1].items())

    def teach(self, index: int, texts: Sequence[str], label: str | None) -> dict[str, tuple[str | None, str | None]]:
        """Set (None: forget) field ``index``'s taught label of these ticket texts; returns text -> (before,
        after) for those that changed (an undo step's changes), and refits that field's labels."""
        taught = self.taught[index - 1]
        changes: dict[str, tuple[str | None, str | None]] = {}
        for text in texts:
            text = text.strip()
            if text and taught.get(text) != label:
                changes[text] = (taught.get(text), label)
        if changes:
            self.apply(index, {text: after for text, (_, after) in changes.items()})
        return changes

    def apply(self, index: int, labels: dict[str, str | None]) -> None:
        """Undo or redo: these texts' taught labels in field ``index``, set as a teach sets them."""
        taught = self.taught[index - 1]
        for text, label in labels.items():
            if label is None:
                taught.pop(text, None)
            else:
                taught[text] = label
        self.taught_changed.emit()
        self.refit()

    def rows_embedded(self) -> None:
        """Rows got their embeddings: refit once they have doubled since the last fit, or all are embedded."""
        if not self.specs or self._fitting.active:
            return
        if refit_due(embedded_count(self.table), self.table.count_scorable(), self._fitted):
            self.refit()

    def cleared(self) -> None:
        """The rows were dropped (or their text column changed): nothing fitted on them is kept."""
        self._fitting.cancel()
        self.tables = [None] * len(self.specs)
        self._fitted = 0

    def refit(self) -> None:
        if self.specs:
            self._fitting.start(self._refit())

    async def _refit(self) -> None:
        encoder, table = self.encoder(), self.table
        embedded = embedded_count(table)
        if encoder is None or not embedded:
            return  # the rows' embedding refits (rows_embedded)
        tables = [field_table(table, spec.labels) for spec in self.specs]  # on the loop's thread: a snapshot
        taught = [usable(t, spec.labels) for t, spec in zip(self.taught, self.specs, strict=True)]
        try:
            await self.thread.run(_fit, tables, self.specs, taught, encoder)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the further fields' first pass failed")
            return
        self.tables, self._fitted = list(tables), embedded
        self.rows_changed.emit(0, max(0, len(tables[0]) - 1))
        if refit_due(embedded_count(table), table.count_scorable(), embedded):  # rows embedded meanwhile
            self.refit()
