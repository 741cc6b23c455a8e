"""The evaluation as a Qt-free document: which column holds the correct labels, how its values map to
labels (remembered per file header), the accuracy of each prompt version, and the tickets whose label
flipped with the last version.

Tested without a window; the window only shows what it reports.

Numbers only when they mean what they say. A version is scored once every gold row has its final label
and the learning has settled (:meth:`record`, called by :class:`VersionScoring` when the run completes and
every task after it has ended; the window's 200 ms timer looked before, and a score taken mid-run stayed).
A label is final once the language model has read its row, or, untaught with the refinement not used for
labels, once the first pass has labelled it: the language model's heads weigh 0 then, so its reading cannot
change a label, and an untaught version saved over or stopped before the reading ended kept no score),
one score per file (a fingerprint of the gold rows) and
taught set (a fingerprint of it), the first kept: a load's score taken mid-refit, or a later load's,
wrote over the last before. The change since an earlier version is given once this version has labelled
every gold row, against that version's score on the same gold rows with the same taught set; before that,
"so far 193 of 360 gold rows": at 1 of 400 re-scored the tab said "+7.9 points since version 2".
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..engine.prompt import Measure, PromptProfile
from ..engine.table import TicketTable
from ..words import counted
from .events import Event
from .field_versions import Flip, first_field_flips
from .gold import GoldColumn, gold_report, match_share
from .tasks import LatestTask

if TYPE_CHECKING:
    from .session import Session


@dataclass(frozen=True)
class Score:
    """A version's accuracy against gold: the prompt file's :class:`engine.prompt.Measure` (accuracy, taught
    tickets, gold rows, the fingerprints that say what it was measured on, when), and the version it scores."""

    version: int
    measure: Measure

    @property
    def key(self) -> tuple[str, str]:
        """Which file and taught set it was measured on (like is compared with like)."""
        return self.measure.gold, self.measure.taught_set


class Evaluation:
    """See the module docstring. The table is the session's; only the loop's thread calls this."""

    def __init__(self, table: TicketTable, mappings: dict[str, dict[str, str]] | None = None) -> None:
        self.table = table
        self.gold: GoldColumn | None = None
        self.offered: bool | tuple[str, ...] = False  # True: the lead chose; labels: looked for with these
        self.mappings: dict[str, dict[str, str]] = dict(mappings or {})  # file header key -> value mapping
        # prompt version -> (gold rows, taught set, sentence encoder) fingerprints -> its first score under them
        self.scores: dict[int, dict[tuple[str, str, str], Score]] = {}
        self.previous: Score | None = None  # the newest score of the latest earlier version that has one
        self._announced: dict[int, tuple[str, str, str]] = {}  # version -> the conditions of its score last announced
        self.in_use = -1  # the version in use
        self.gold_changed: Event[[GoldColumn | None]] = Event()
        # A prompt with several fields: each further field's gold column by the field's name (:meth:`choose_for`).
        self.field_gold: dict[str, GoldColumn] = {}
        self.field_offered: set[str] = set()  # further fields a gold column was looked for (or chosen)
        self.field_gold_changed: Event[[str, GoldColumn | None]] = Event()
        self.field_order: list[str] = []  # the fields of the prompt in use, as :meth:`follow_fields` last saw them
        self.scored: Event[[Score]] = Event()  # a version got a score (for a file and taught set)
        # A further field's version got a score: the field (1: the second), the one-field prompt holding it (its
        # version), the score (:class:`field_scoring.FieldVersions` takes it once that field's labels are final).
        self.field_scored: Event[[int, PromptProfile, Measure]] = Event()
        self._gold_print: tuple[object, tuple[str, ...], int, int] = (None, (), 0, 0)  # gold, labels, rows, sum
        # What the lead calls a session version (the prompt file's history number; v + 1 without one).
        self.numbering: Callable[[int], int] = lambda version: version + 1
        # The rows whose label is final for the version in use (VersionScoring: the first pass's too, untaught).
        self.final_rows: Callable[[], np.ndarray] = lambda: self.table.scored_mask()

    # ------------------------------------------------------------ gold

    def set_gold(self, gold: GoldColumn | None) -> None:
        self.gold = gold
        self.gold_changed.emit(gold)

    def _gold_key(self, field: str = "") -> str:
        return "|".join(self.table.columns) + "::(gold)" + (f"::{field}" if field else "")

    def _remember(self, column: str | None, field: str = "") -> None:
        """The gold column found or chosen for this file's header (None: the lead's none), kept with the mappings,
        so that a column a renamed or removed label left under 90 % label names is gold again when the file is
        opened after a restart (W14: Gold (queue) said (none) without a word)."""
        if column is None:
            self.mappings.pop(self._gold_key(field), None)
        else:
            self.mappings[self._gold_key(field)] = {"column": column}

    def _remembered(self, field: str = "", labels: list[str] | None = None) -> str | None:
        """The column remembered for this header, where it still holds a label name (or has a value mapping)."""
        was = self.mappings.get(self._gold_key(field), {}).get("column", "")
        if was not in self.table.columns:
            return None
        return was if match_share(self.table, was, labels)[0] or self.header_key(was, field) in self.mappings else None

    def header_key(self, column: str, field: str = "") -> str:
        """Where a column's value mapping is remembered: per file header, and per field after the first (the
        same column mapped to the queue's labels and to the priority's are two mappings)."""
        return "|".join(self.table.columns) + "::" + column + (f"::{field}" if field else "")

    def needs_mapping(self, column: str, field: str = "", labels: list[str] | None = None) -> tuple[int, int] | None:
        """(matched, total) where some values of ``column`` are no label names and no mapping is
        remembered for this file's header; None when the column can be used as it is. ``field`` and
        ``labels``: a further field's name and labels (its mapping is its own)."""
        matched, total = match_share(self.table, column, labels)
        if total and matched < total and self.header_key(column, field) not in self.mappings:
            return matched, total
        return None

    def choose(self, column: str | None, mapping: dict[str, str] | None = None) -> None:
        """Use ``column`` as gold (a new mapping is remembered for files with the same header)."""
        self.offered = True
        self._remember(column)
        if column is None:
            self.set_gold(None)
            return
        self.set_gold(self._column(column, mapping))

    def _column(self, column: str, mapping: dict[str, str] | None, field: str = "") -> GoldColumn:
        """``column`` as a gold column with its value mapping: ``mapping`` (remembered for files with the same
        header, per field), else the one remembered."""
        key = self.header_key(column, field)
        if mapping is not None:
            self.mappings[key] = mapping
        return GoldColumn(column, dict(self.mappings.get(key) or {}))

    def follow_renames(self, renamed: Mapping[int, Mapping[str, str]], names: Sequence[str]) -> None:
        """Labels a Save renamed (field index -> old name -> new; ``names``: the fields'): each field's gold column
        maps the old name to the new one, kept with the file's header (W15: 12 of 42 gold rows went uncounted)."""
        for index, mapping in renamed.items():
            field = names[index] if 0 < index < len(names) else ""
            gold = self.field_gold.get(field) if index else self.gold  # (a field index past the names: none)
            if gold is None:
                continue
            column = self._column(gold.column, gold.renamed(mapping), field)
            if field:
                self.field_gold[field] = column
                self.field_gold_changed.emit(field, column)
            else:
                self.set_gold(column)

    def detect(self, text_column: str, fields: list[str] | None = None) -> bool:
        """Offer a column whose values are (nearly all) label names as gold, once a file; True if one was
        chosen. Called when a file is read and again when a prompt is in use: a sample opened a second
        after launch, before the prompt had labels to match, was left with no gold column; and with each new
        set of labels unless the lead chose (W9: the sample read under another prompt kept Gold (none) under
        File › Open prompt… of the one whose labels its team column holds). ``fields``: the prompt's field names,
        whose gold columns follow a field moved first before this looks (:meth:`follow_fields`)."""
        if fields is not None:
            self.follow_fields(fields)
        table = self.table
        labels = tuple(table.labels)
        if self.offered in (True, labels) or not len(table) or not labels:
            return False
        if self.gold is not None:  # found, not chosen, under other labels: kept while it holds any of these
            if self.gold.mapping or match_share(table, self.gold.column)[0]:  # (a label renamed keeps it)
                self.offered = labels
                return False
            # W11: the sample's team column, found under the default prompt, stayed gold for a two-field prompt
            # whose queue labels it holds none of ("no ticket with a gold label is labelled yet")
            self.set_gold(None)
        self.offered = labels
        for column in table.columns:
            if column == text_column:
                continue
            matched, total = match_share(table, column)
            if total and matched / total >= 0.9:
                self._remember(column)
                self.set_gold(GoldColumn(column))
                return True
        if (was := self._remembered()) is not None and was != text_column:
            self.set_gold(self._column(was, None))
            return True
        return False

    def cleared(self) -> None:
        """The tickets were dropped: their gold columns and the comparison base go with them."""
        self.gold, self.previous, self.offered = None, None, False
        self.field_gold, self.field_offered = {}, set()

    # ------------------------------------------------- further fields' gold

    def gold_for(self, field: str) -> GoldColumn | None:
        """A further field's gold column (by the field's name), None: none."""
        return self.field_gold.get(field)

    def choose_for(self, field: str, column: str | None, mapping: dict[str, str] | None = None) -> None:
        """Use ``column`` as the further field ``field``'s gold (None: none); a new mapping is remembered for
        files with the same header, for that field."""
        self.field_offered.add(field)
        self._remember(column, field)
        if column is None:
            self.field_gold.pop(field, None)
            self.field_gold_changed.emit(field, None)
            return
        gold = self.field_gold[field] = self._column(column, mapping, field)
        self.field_gold_changed.emit(field, gold)

    def follow_fields(self, names: list[str]) -> None:
        """The prompt in use has fields ``names``, in order. A Save that moved another field first (the priority
        moved left of the queue) swaps the gold columns with the fields: the new first field's column becomes
        :attr:`gold`, the old first field keeps its column as a further field. Before, the priority was judged
        against the queue's column (no value a label: "no ticket with a gold label") and the queue had none
        (walkthrough W). A renamed or new first field changes nothing."""
        before, self.field_order = self.field_order, list(names)
        if not before or not names or before[0] == names[0] or before[0] not in names or names[0] not in before:
            return
        old_first, new_first = before[0], names[0]
        old_gold, new_gold = self.gold, self.field_gold.pop(new_first, None)
        self.field_offered.discard(new_first)
        if old_gold is not None:
            self.field_gold[old_first] = old_gold
            self.field_offered.add(old_first)
        self.set_gold(new_gold)
        self.field_gold_changed.emit(new_first, None)
        self.field_gold_changed.emit(old_first, old_gold)

    def detect_fields(self, text_column: str, fields: list[tuple[str, list[str]]]) -> list[str]:
        """For each further field (name, labels) not looked for yet in this file, the column whose values match
        its labels best, where (nearly) all are label names, as :meth:`detect` finds the first field's: a file
        with a queue and a priority column gives each field its own. The columns already gold for another field
        are not offered again. Returns the fields that got one."""
        table, found = self.table, list[str]()
        if not len(table):
            return found
        for name, labels in fields:
            if name in self.field_offered or name in self.field_gold or not labels:
                continue
            self.field_offered.add(name)
            taken = {g.column for g in self.field_gold.values()} | ({self.gold.column} if self.gold else set())
            shares = []
            for column in table.columns:
                matched, total = match_share(table, column, labels)
                if column != text_column and column not in taken and total and matched / total >= 0.9:
                    shares.append((matched / total, column))
            was = self._remembered(name, labels)
            was = was if was is not None and was != text_column and was not in taken else ""
            if shares or was:
                best = max(shares, key=lambda share: share[0])[1] if shares else was  # the first of the best
                self._remember(best, name)
                self.field_gold[name] = GoldColumn(best) if shares else self._column(best, None, name)
                self.field_gold_changed.emit(name, self.field_gold[name])
                found.append(name)
        return found

    def gold_rows(self) -> int:
        return self.coverage()[1]

    def coverage(self) -> tuple[int, int]:
        """(gold rows whose label is final for the version in use, gold rows): tickets with a problem (blank
        text) have no label to measure and are not gold rows. Final: :attr:`final_rows`."""
        if self.gold is None:
            return 0, 0
        table = self.table
        gold = self.gold.ids(table) >= 0
        if table.problems:
            gold[[r for r in table.problems if r < len(gold)]] = False
        final = self.final_rows()[: len(gold)]
        return int((gold[: len(final)] & final).sum()), int(gold.sum())

    def gold_print(self) -> str:
        """Which gold rows: a fingerprint of their texts and gold labels, the same in any row order; kept
        up to date incrementally as rows stream in (a sum of per-row hashes)."""
        gold, table = self.gold, self.table
        if gold is None:
            return ""
        ids, labels = gold.ids(table), tuple(table.labels)
        was, known, done, total = self._gold_print
        if was is not gold or known != labels or done > len(ids):
            done, total = 0, 0
        total = (total + _sum(f"{table.texts[r]}\x1f{labels[ids[r]]}" for r in range(done, len(ids))
                              if ids[r] >= 0 and r not in table.problems)) % 2**64  # fmt: skip
        self._gold_print = (gold, labels, len(ids), total)
        return f"{total:016x}"

    # -------------------------------------------------------- versions

    def version_applied(self, version: int) -> None:
        """A new version is in use: the base of "since the previous version" is the last scored before."""
        self.in_use = version
        earlier = [v for v in self.scores if v < version and self.scores[v]]
        self.previous = list(self.scores[max(earlier)].values())[-1] if earlier else None

    def record(self, version: int, taught: Mapping[str, str]) -> Score | None:
        """The version's accuracy against gold, once its run has labelled every gold row; call it when
        the labels have settled (the run done, no refit pending). The first score for a file and taught
        set is kept (and returned again); a new one is announced on :attr:`scored`, and so is a kept one when the
        labels are back under its conditions after another's score was announced (an encoder switched back: the
        Versions tab went on listing the other encoder's score beside the Accuracy tab's; walkthrough W7)."""
        covered, rows = self.coverage()
        if self.gold is None or not rows or covered < rows:
            return None
        key = self._key(taught)
        kept = self.scores.setdefault(version, {})
        if key in kept:  # back under conditions scored before (an encoder switched back, a ticket untaught):
            if self._announced.get(version) != key:  # that score is the one to list again, not the last one
                self._announced[version] = key
                self.scored.emit(kept[key])
            return kept[key]
        report = gold_report(self.table, self.gold)
        gold, taught_set, encoder = key
        at = time.strftime("%Y-%m-%d %H:%M")
        score = Score(version, Measure(report.accuracy, len(taught), rows, gold, taught_set, at, encoder))
        kept[key] = score
        self._announced[version] = key
        self.scored.emit(score)
        return score

    def comparison(self, accuracy: float, taught: Mapping[str, str]) -> str:
        """The change since an earlier version's accuracy, only where like is compared with like: every gold row
        labelled by this version, and an earlier version's score on the same gold rows with the same taught set (a
        version before teaching scored against one after fourteen taught tickets credited the prompt with the
        teaching's gain); else why not, naming what differs (W15: after a rename it guessed three things)."""
        before = self.previous
        if before is None:
            return ""
        covered, rows = self.coverage()
        number = self.named(before.version)
        if covered < rows:
            so_far = f"so far {covered} of {rows} gold rows labelled by this version "
            return so_far + f"(compared with {number} once all are)"
        key = self._key(taught)
        earlier = sorted((v for v in self.scores if v < self.in_use and key in self.scores[v]), reverse=True)
        if earlier:
            same = self.scores[earlier[0]][key]
            return (
                f"{100 * (accuracy - same.measure.accuracy):+.1f} points since {self.named(same.version)} "
                "(same gold rows and taught set)"
            )
        then = before.measure
        if (then.taught, then.gold_rows) != (len(taught), rows):
            return (
                f"not comparable with {number} ({counted(then.taught, 'taught ticket')} and "
                f"{then.gold_rows} gold rows then, {len(taught)} and {rows} now)"
            )
        differ = " and ".join(then.differs_from(*key)) or "their labels"
        renamed = "; a label renamed since changes both" if differ == "the gold rows and the taught tickets" else ""
        return f"not comparable with {number} (as many gold rows and taught tickets, but {differ} differ{renamed})"

    def _key(self, taught: Mapping[str, str]) -> tuple[str, str, str]:
        """What a score is measured under: the gold rows, the taught set, the sentence encoder."""
        return self.gold_print(), taught_print(taught), encoder_print(self.table)

    def named(self, version: int) -> str:
        """An earlier session version as the lead knows it: "version 2", or, where it is the version in use run
        before (a Save that changed only another field's part of the prompt, the calibration switched), "version 1's
        earlier run" (the queue's tab said "+0.0 points since version 1" on version 1)."""
        number = self.numbering(version)
        return f"version {number}" + ("'s earlier run" if number == self.numbering(self.in_use) else "")

    def flips(self, limit: int = 2000) -> tuple[list[Flip], int]:
        """Tickets whose label changed with the last prompt version (the first ``limit``), and how many."""
        return first_field_flips(self.table, limit)


class VersionScoring:
    """Scores the version in use once its labels are final: on the run's completion (and on a new gold
    column or a refit after it), it waits for every task of the session to end (the refit after the last
    batch, the weights chosen out of fold), then records the accuracy the lead sees. Any change of the run
    meanwhile starts the wait again, so a score is never taken while a label can still change. Untaught with
    the refinement not used (:func:`first_pass_final`) the first pass's labels are final: the score is taken
    once the first pass has labelled every gold row and the learning has settled, while the language model
    still reads (the Versions table kept no score for a version saved over or stopped before its reading
    ended); the accuracy after "All labelled" is the same (``tests/test_session_refinement.py``)."""

    def __init__(self, session: Session, evaluation: Evaluation) -> None:
        self.session, self.evaluation = session, evaluation
        self._waiting = LatestTask("score version")
        self._for = -1  # the version the wait in flight is for
        evaluation.final_rows = self.final_rows
        session.run_changed.connect(lambda status: self.look())
        session.head_changed.connect(lambda status: self.look())
        evaluation.gold_changed.connect(lambda gold: self.look())

    def final_rows(self) -> np.ndarray:
        """The rows whose label is final for the version in use: read by the language model, or every row with
        a label of this version where the first pass's labels are final."""
        table = self.session.table
        return table.current_mask() if first_pass_final(self.session) else table.scored_mask()

    def look(self) -> None:
        session, version = self.session, self.session.prompt_status.version
        if self.evaluation.gold is None:
            return
        if session.run_status.state == "done":
            self._for = version
            self._waiting.start(self._settle(version))
        elif first_pass_final(session):
            if not (self._waiting.active and self._for == version):  # a batch read changes no label: let it wait
                self._for = version
                self._waiting.start(self._settle(version))
        elif session.run_status.state == "running":
            self._waiting.cancel()

    async def _settle(self, version: int) -> None:
        session = self.session
        if session.run_status.state == "done":
            await session.settled()
        else:  # the first pass's labels: the learning settled (its refits), the language model reading on
            while tasks := [t for t in session.teaching.tasks() if not t.done()]:
                await asyncio.wait(tasks)
        final = session.run_status.state == "done" or first_pass_final(session)
        if final and session.prompt_status.version == version:
            self.evaluation.record(version, session.taught)


def first_pass_final(session: Session) -> bool:
    """Whether the first pass's labels are the final ones: nothing taught, the refinement not used for labels (its
    heads weigh 0, so the language model's reading cannot change a label), and no file still being read."""
    if session.taught or session.reading or not session.table.head_active:
        return False
    return not session.refinement().used


def taught_print(taught: Mapping[str, str]) -> str:
    """Which taught set: a fingerprint of its (text, label) pairs, the same in any order."""
    total = _sum(text + "\x1f" + label for text, label in taught.items()) % 2**64
    return f"{total:016x}"


def encoder_print(table: TicketTable) -> str:
    """Which sentence encoder the table's labels came from (its embeddings' key; "none" without any): a
    version scored again after a switch of encoder is another score, not the first one kept."""
    return fingerprint([table.embeddings.key]) if table.embedded_mask().any() else "none"


def fingerprint(items: Iterable[str]) -> str:
    """A fingerprint of the multiset of ``items`` (gold rows as text and gold label, say), the same in any order."""
    return f"{_sum(items) % 2**64:016x}"


def _sum(items: Iterable[str]) -> int:
    """The sum of 64-bit hashes of the items: a fingerprint of the multiset that can grow row by row."""
    digests = (hashlib.blake2b(i.encode("utf-8", "surrogatepass"), digest_size=8).digest() for i in items)
    return sum(int.from_bytes(d, "big") for d in digests)
