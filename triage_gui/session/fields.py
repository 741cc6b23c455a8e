"""Every field after the first of a prompt with several (a queue and a priority): each labelled by its own
first pass, as ``classify --fast`` labels it.

The first field is the session's own (the teaching, the language model, the checks). Each further field is
the one-field prompt holding it alone (:meth:`PromptProfile.field_profile`) with its own taught tickets,
fitted on the learning modules' one path, :meth:`engine.learning.Teacher.fit_table` without a scorer,
the one ``classify --fast`` runs per field (``commands/classify.run_fields``), on a table of the same rows
sharing the ticket table's embeddings (:func:`engine.table.field_table`: the encoder embeds a ticket once
for every field). So a field's labels in the window are those ``classify --fast`` gives it, by construction
(``tests/test_session_fields.py`` compares them).

The language model reads every field: the session's run scores each ticket through the first field's cached
prefix and, in the same micro-batch, through each further field's own (``labelling.label_stream``'s ``more``;
one Stop, one count of what is left, the baseline for every field alike). A further field's scores are kept
here per row (:attr:`FieldLabels.read`, float32 features as the scorer gives them: 576 × 4 bytes a ticket
and field with SmolLM2, 23 MB for 10,000 tickets), put into that field's table when it is refitted (a
doubling of the rows read, or every row read), and fitted with the field's scorer, as ``classify`` fits it:
once every row is read, a field's labels are those ``classify`` gives the one-field prompt holding it alone
(``tests/test_session_field_reading.py``). The fit then runs on the engine thread (it reads the prompt's
examples through the model); a fit before any row is read is the first pass's, on the fields' thread.

Refitted, as the teaching is, when the embedded rows have doubled (16, 32, 64, …) or all are embedded, and
at once when the field's taught set changes; on its own thread, the latest refit cancelling the one before.
Each fit also picks the field's tickets to teach next (:func:`engine.learning.suggest` on that field's
probabilities, the rule the first field's *Teach next* follows), and each field keeps its own random checks
(:class:`checks.FieldChecks`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..defaults import LOW_CONFIDENCE
from ..engine.table import Source, decide, embedded_count, field_table
from .checks import FieldChecks
from .events import Event
from .field_fit import FieldRead, FieldSpec, fit_fields, refit_due, usable
from .field_versions import previous_tables
from .label_renames import chained
from .tasks import LatestTask
from .workers import WorkerThread

if TYPE_CHECKING:
    from ..engine.model import ScorerLike
    from ..engine.prompt import PromptProfile
    from ..engine.table import Decision, TicketScore, TicketTable

log = logging.getLogger(__name__)


class FieldLabels:
    """Narrow inputs, as the teaching has: the ticket table (read on the loop's thread only) and the encoder
    in use (None: none yet, so no first pass); it reports through its own events, which the session forwards."""

    def __init__(self, table: TicketTable, encoder: Callable[[], Any], engine: WorkerThread | None = None) -> None:
        self.table = table
        self.encoder = encoder
        self.engine = engine  # the model's one thread: a fit that reads the prompt's examples through it
        self.history_named: Callable[[str], None] = lambda name: None  # the undo steps' first-field name
        self.first = ""  # the first field's name (the session's own)
        self.specs: list[FieldSpec] = []
        self.taught: list[dict[str, str]] = []  # per further field: ticket text -> label
        self.renamed: dict[str, dict[str, str]] = {}  # a field's labels a Save renamed (its name -> old -> new)
        self.tables: list[TicketTable | None] = []  # per further field: its labelled table (None: not yet)
        self.suggestions: list[list[int]] = []  # per further field: the rows to teach next, best first
        # per further field: its labelled table before its prompt part or taught set last changed (None: none yet),
        # what its Flipped tab compares with (:mod:`field_versions`)
        self.previous: list[TicketTable | None] = []
        self.checks = FieldChecks(self.table_of, self.taught_of)
        self.rows_changed: Event[[int, int]] = Event()
        self.taught_changed: Event[[]] = Event()
        self.thread = WorkerThread("fields")
        self._fitting = LatestTask("field labels")
        self._fitted = 0  # embedded rows the tables in use were fitted on
        self.scorers: list[ScorerLike] = []  # per further field: its scorer for the prompt version in use ([]: none)
        self.read: list[dict[int, TicketScore]] = []  # per further field: row -> its score, in the order read
        self.full: list[dict[int, TicketScore]] = []  # per further field: row -> its full re-encode (the baseline)
        self._fitted_read = 0  # rows read by the language model the tables in use were fitted on
        self._ended = False  # the last labelling run ended (:meth:`run_ended`) and no batch was read since
        self._in_use: tuple | None = None  # the fields as they were before a Save switched them, till it is built

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

    def taught_of(self, index: int) -> dict[str, str]:
        """Field ``index``'s taught set now (ticket text -> label; 1: the second field)."""
        return self.taught[index - 1] if 0 < index <= len(self.taught) else {}

    def decision(self, index: int, row: int, low: float = LOW_CONFIDENCE) -> Decision | None:
        """Field ``index``'s label and marks for the row (1: the second field; None: not labelled yet), with its
        taught set as it is now: a teach shows its label and ✓ at once, a forgotten one loses its ✓ (its label
        marked out of date), before the field's refit lands; with the language model reading, that waits for
        the engine thread, 3-8 s on a busy CPU. The shown table is not written: it is the flips' base."""
        table = self.table_of(index)
        if table is None or row >= len(table):
            return None
        d = decide(table, row, low)
        taught = self.taught_of(index).get(table.texts[row].strip())
        if taught not in table.labels:  # a label a Save removed: set aside (kept in the file), as the first field's
            taught = None  # it showed "low" ✓ in a priority that no longer has "low"
        if taught is not None and not (d.taught and d.label == taught):
            return d._replace(label=taught, source=Source.TAUGHT, confidence=1.0, taught=True, stale=False,
                              low_confidence=False)  # fmt: skip
        if taught is None and d.taught:
            first = d.model_label is not None and d.model_label == d.first_pass
            return d._replace(label=d.model_label or d.label, source=Source.FIRST if first else Source.LEARNED,
                              confidence=None, taught=False, stale=True)  # fmt: skip
        return d

    def suggested(self, index: int) -> list[int]:
        """Field ``index``'s rows to teach next, best first, none taught for it now (the table's says as at its
        fit); a ticket taught a label the field no longer has is set aside, so offered again, as the first
        field's is (it was left out of *Teach next* and of the random checks for good)."""
        table = self.table_of(index)
        if table is None or index > len(self.suggestions):
            return []
        taught = self.taught_of(index)
        return [r for r in self.suggestions[index - 1] if taught.get(table.texts[r].strip()) not in table.labels]

    @property
    def settled(self) -> bool:
        """Every further field's labels are final: fitted on every scorable row, each read by the language
        model through this prompt's scorers (a version scored on first-pass labels kept that score), no fit
        pending."""
        scorable = self.table.count_scorable()
        done = not self._fitting.pending and all(t is not None and len(t) == len(self.table) for t in self.tables)
        read = len(self.scorers) == len(self.specs) and 0 < scorable <= self._fitted_read
        # Without an encoder nothing is embedded: the fit on the reading is final (a version never got its score)
        embedded = self.encoder() is None or 0 < scorable <= self._fitted
        return bool(self.specs) and done and embedded and read

    # ------------------------------------------------------------- changes

    def set_prompt(self, profile: PromptProfile) -> None:
        """The prompt in use: its fields after the first, each with the taught tickets it keeps. A prompt whose
        further fields and their taught sets are unchanged keeps its labels."""
        self.first = profile.field_name
        specs = [FieldSpec(f.name, profile.field_profile(i + 1)) for i, f in enumerate(profile.more_fields)]
        taught = [{e.text.strip(): e.label for e in f.taught if e.text.strip()} for f in profile.more_fields]
        self.history_named(self.first if specs else "")  # (a renamed first field too)
        self.previous = previous_tables(self.specs, self.taught, self.tables, self.previous, specs, taught)
        unchanged = self._key_of(specs, taught) == self._key_of(self.specs, self.taught)
        if not unchanged:
            if [self._prompt_of(s) for s in specs] != [self._prompt_of(s) for s in self.specs]:
                in_use = self._in_use or self._state()  # (a second Save before the first was built: as in use)
                self.new_version([])  # the scorers read other fields: the rebuild brings this prompt's
                self._in_use = in_use  # back if the rebuild fails (:meth:`back_to`)
            self.specs, self.taught = specs, taught
            self.tables, self.suggestions = [None] * len(specs), [[] for _ in specs]
        # After the taught sets: a field's rows still to check are weighed against its own (a field moved to
        # second place lost the rows taught for the field that stood there).
        self.checks.set_fields(profile.more_fields)
        if unchanged:
            return
        self._fitted = 0
        self.rows_changed.emit(0, max(0, len(self.table) - 1))
        self.refit()

    def _state(self) -> tuple:
        return (self.specs, self.taught, self.tables, self.suggestions, self.previous, self.scorers, self.read,
                self.full, self._fitted, self._fitted_read)  # fmt: skip

    def back_to(self, profile: PromptProfile, scorers: Sequence[ScorerLike]) -> None:
        """A Save whose build failed: each field back on the prompt in use (``profile``, read by ``scorers``) with
        its labels and reading, and the tickets taught since (a field of the same name), as the first field
        stays; the priority had switched to the failed prompt's labels and thrown its reading away (W13)."""
        in_use, self._in_use = self._in_use, None
        if in_use is None or list(in_use[5]) != list(scorers):  # (5: its scorers, as :meth:`_state` keeps them)
            return  # not switched (the Save changed the first field only), or kept for another model's scorers
        names, now = self.names, list(self.taught)
        self._fitting.cancel()
        (self.specs, taught, self.tables, self.suggestions, self.previous, self.scorers, self.read, self.full,
         self._fitted, self._fitted_read) = in_use  # fmt: skip
        # A field of the same name, else the one at its place that the Save renamed (a name the prompt in use does
        # not have): the priority renamed 'urgency' dropped what was taught in it while the failed build ran (W18).
        known = {profile.field_name, *self.names}
        self.taught = [
            now[names.index(spec.name)] if spec.name in names
            else now[i] if len(names) == len(self.specs) and names[i] not in known else kept
            for i, (spec, kept) in enumerate(zip(self.specs, taught, strict=True))
        ]  # fmt: skip
        self.checks.set_fields(profile.more_fields)
        self.rows_changed.emit(0, max(0, len(self.table) - 1))
        if self.taught != taught:
            self.refit()

    @staticmethod
    def _prompt_of(spec: FieldSpec) -> tuple[str, str]:
        return spec.name, spec.profile.content_hash()

    @staticmethod
    def _key_of(specs: list[FieldSpec], taught: list[dict[str, str]]) -> tuple:
        return tuple((s.name, s.profile.content_hash(), tuple(t.items())) for s, t in zip(specs, taught, strict=True))

    def items(self, index: int) -> list[tuple[str, str]]:
        """Field ``index``'s taught tickets (1: the second field)."""
        return list(self.taught[index - 1].items())

    def teach(self, index: int, texts: Sequence[str], label: str | None) -> dict[str, tuple[str | None, str | None]]:
        """Set (None: forget) field ``index``'s taught label of these ticket texts; returns text -> (before,
        after) for those that changed (an undo step's changes), and refits that field's labels."""
        return self.teach_each(index, {text: label for text in texts})

    def teach_each(self, index: int, labels: Mapping[str, str | None]) -> dict[str, tuple[str | None, str | None]]:
        """:meth:`teach` with a label per text (ticket text -> label; an accept of what each row shows, a gold
        column): one change set, one refit."""
        taught = self.taught[index - 1]
        changes: dict[str, tuple[str | None, str | None]] = {}
        for text, label in labels.items():
            text = text.strip()
            if text and taught.get(text) != label:
                changes[text] = (taught.get(text), label)
        if changes:
            self.apply(index, {text: after for text, (_, after) in changes.items()})
        return changes

    def relabel(self, index: int, mapping: dict[str, str]) -> int:
        """Field ``index``'s labels renamed in the prompt about to be saved: its tickets taught an old name take
        the new one (the Save's :meth:`set_prompt` refits); returns how many."""
        taught, name = self.taught[index - 1], self.specs[index - 1].name
        renamed = {text: mapping[label] for text, label in taught.items() if label in mapping}
        taught.update(renamed)
        self.renamed[name] = chained(self.renamed.get(name, {}), mapping)  # its flips
        if renamed:
            self.taught_changed.emit()
        return len(renamed)

    def apply(self, index: int, labels: dict[str, str | None]) -> None:
        """Undo or redo: these texts' taught labels in field ``index``, set as a teach sets them."""
        taught = self.taught[index - 1]
        if (shown := self.tables[index - 1]) is not None:  # the labels before this taught set: its flips' base
            self.previous[index - 1] = shown
        for text, label in labels.items():
            if label is None:
                taught.pop(text, None)
            else:
                taught[text] = label
        self.taught_changed.emit()
        if len(self.table):  # the taught rows' ✓ and "taught" source at once (From showed "first pass" till the refit)
            self.rows_changed.emit(0, len(self.table) - 1)
        self.refit()

    def rows_embedded(self) -> None:
        """Rows got their embeddings: refit once they have doubled since the last fit, or all are embedded."""
        if not self.specs or self._fitting.active:
            return
        if self._due():
            self.refit()

    def cleared(self) -> None:
        """The rows were dropped (or their text column changed): nothing fitted on them is kept."""
        self.previous = [None] * len(self.specs)  # other rows: nothing to compare with
        self._fitting.cancel()
        self.tables, self.suggestions = [None] * len(self.specs), [[] for _ in self.specs]
        self._fitted = 0
        self.read, self.full, self._fitted_read = [{} for _ in self.scorers], [{} for _ in self.scorers], 0

    def encoder_changed(self) -> None:
        """Another sentence encoder (or none): the rows' embeddings went, the language model's reading of every
        field stays, as the first field's scores stay in the ticket table, and each field is fitted again (the
        labels shown stay until it lands). Dropped with the embeddings, the priority fell back to its first pass
        for good, or with no encoder left its column stayed empty: no run was left to read it again."""
        self._fitting.cancel()
        self._fitted, self._fitted_read = 0, 0
        self.refit()

    def refit(self) -> None:
        if self.specs:
            self._fitting.start(self._refit())
        else:  # a Save left no further field: a fit on its way (one the Save restarted) fits nothing; it raised
            self._fitting.cancel()

    async def _refit(self) -> None:
        encoder, table = self.encoder(), self.table
        embedded = embedded_count(table)
        reads = self._reads()  # on the loop's thread, with the snapshots: what each field's fit puts in
        read = len(reads[0].rows) if reads else 0
        # An encoder: its first pass waits for the rows' embedding (rows_embedded refits). None (``--encoder
        # none``, or one that failed to load): the language model's reading alone, as the first field's labels
        # are; the priority column stayed empty for good while the queue's filled
        if not (embedded if encoder is not None else read):
            return
        tables = [field_table(table, spec.labels, self._bias(i)) for i, spec in enumerate(self.specs)]
        taught = [usable(t, spec.labels) for t, spec in zip(self.taught, self.specs, strict=True)]
        thread = self.engine if read and self.engine is not None else self.thread
        try:
            suggestions = await thread.run(fit_fields, tables, self.specs, taught, encoder, reads)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the further fields' labels failed")
            return
        self.tables, self.suggestions, self._fitted, self._fitted_read = list(tables), suggestions, embedded, read
        self.rows_changed.emit(0, max(0, len(tables[0]) - 1))
        self.checks.refresh()  # rows taught meanwhile leave the samples still to check
        if self._due():  # rows embedded or read meanwhile
            self.refit()

    def run_ended(self) -> None:
        """The labelling run ended with tickets still unread (a Stop): each field is fitted on every ticket read,
        as the first field shows a label on each. Its fit waited for 16 read (or all), so without an encoder a
        Stop left the priority column empty until Resume, and with more read it lagged the queue's."""
        self._ended = True
        if self.specs and not self._fitting.active and self._due():
            self.refit()

    def _due(self) -> bool:
        scorable = self.table.count_scorable()
        read = len(self.read[0]) if self.read else 0
        return (
            refit_due(embedded_count(self.table), scorable, self._fitted)
            or (bool(read) and refit_due(read, scorable, self._fitted_read))
            or (self._ended and read > self._fitted_read)
        )

    def _bias(self, index: int) -> list[float]:
        """Field ``index``'s calibration (0: the second field), as ``classify`` starts its table ([]: no scorer)."""
        bias = getattr(self.scorers[index], "bias", None) if index < len(self.scorers) else None
        return [] if bias is None else [float(b) for b in bias]

    def _reads(self) -> list[FieldRead]:
        out = []
        for i in range(len(self.specs)):
            scorer = self.scorers[i] if i < len(self.scorers) else None
            read, full = (self.read[i], self.full[i]) if i < len(self.read) else ({}, {})
            out.append(FieldRead(scorer, list(read), list(read.values()), list(full), list(full.values())))
        return out

    # ------------------------------------------------------ the language model

    def new_version(self, scorers: Sequence[ScorerLike]) -> None:
        """A prompt version came into use with these scorers of the further fields (built beside the first
        field's, on Save): every row is read again for every field, as for the first; the labels shown stay
        until the new reading refits them."""
        self.scorers, self._in_use = list(scorers), None  # built: no way back
        self.read, self.full = [{} for _ in self.scorers], [{} for _ in self.scorers]
        self._fitted_read = 0
        if self._fitting.active:  # a fit of the old reading: landing, it would count the old rows as read
            self.refit()  # (the latest refit cancels the one before)

    def rows_read(self, rows: Sequence[int], more: Sequence[tuple[Sequence, Sequence]]) -> None:
        """A micro-batch's scores for the further fields (``ScoredBatch.more``, for the version in use): kept,
        and the fields refitted once the rows read have doubled (16, 32, …) or every row is read."""
        if len(more) != len(self.read):
            return  # a batch of another prompt's fields (a Save while it was on the engine thread)
        self._ended = False  # a run reads on
        for kept, based, (scores, full) in zip(self.read, self.full, more, strict=True):
            for row, score, base in zip(rows, scores, full, strict=True):
                if score is not None:
                    kept[row] = score
                if base is not None:
                    based[row] = base
        if self.specs and not self._fitting.active and self._due():
            self.refit()

    def unread(self, start: int = 0) -> np.ndarray:
        """Rows from ``start`` on, in order, that the first field has this version's score of and a further field
        has not read: the first field's score was kept from the version before (a Save that changed only the
        priority), taken at once, and the run reads these rows for the other fields (W17)."""
        n = len(self.table)
        if not self.scorers or len(self.read) != len(self.scorers) or start >= n:
            return np.zeros(0, dtype=np.int64)
        missing = np.zeros(n, dtype=bool)
        for read in self.read:  # read on every batch's run status: numpy, 3 ms for 200,000 rows read
            have = np.zeros(n, dtype=bool)
            rows = np.fromiter(read, dtype=np.int64, count=len(read))
            have[rows[rows < n]] = True
            missing |= ~have
        missing = missing[start:] & self.table.scored_mask()[start:n]
        return np.flatnonzero(missing) + start

    def needs(self, row: int) -> bool:
        """Whether a further field has still to read ``row`` in this version."""
        return bool(self.scorers) and len(self.read) == len(self.scorers) and any(row not in r for r in self.read)

    def latencies(self, index: int) -> list[float]:
        """Field ``index``'s (1: the second field) language-model time of each ticket read, in ms, in read order."""
        return [s.latency_ms for s in self.read[index - 1].values()] if 0 < index <= len(self.read) else []

    def agreement(self, index: int) -> tuple[int, int]:
        """Field ``index``'s tickets whose cached label equals its full re-encode's, of those with both."""
        if not 0 < index <= len(self.full):
            return 0, 0
        read, full = self.read[index - 1], self.full[index - 1]
        both = [r for r in full if r in read]
        return sum(read[r].label == full[r].label for r in both), len(both)
