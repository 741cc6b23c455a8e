"""Random checks: an accuracy a lead can believe, from a random sample the lead confirmed or corrected.

The tickets a lead corrects are the wrong ones, so an accuracy measured on them says nothing of the file.
"Check a random sample" draws untaught labelled tickets uniformly at random; the lead says for each
whether its label is right (or which is). The estimate is the share of checked tickets whose label was
right when checked: exactly what the lead answered, so the number never disagrees with the checks (an
estimate from the classifier's later out-of-fold labels said 100 % after six checks, one of them wrong,
and moved when an unrelated ticket was taught). It describes the labels as they were when checked;
teaching since then usually improves them, so it errs on the low side. With a 95 % Wilson interval and
the number of checks it rests on. No checks: no number ("not estimated yet"). A check also teaches.

Checks are kept with the prompt (by ticket text, as the taught set: :mod:`engine.prompt`), each with
the version and taught-set size it was made under and when, so the estimate comes back after File ›
Open of the same tickets, reopening the prompt and a restart, and says what it describes ("~40% (22–61%),
20 checks on v3 with 40 taught, 2 h ago") and whether a newer prompt version or teaching since may have
changed it. Dropping the tickets drops the rows still to check, not the verdicts; over another file (none of
the checked tickets loaded) the estimate says it is "of other tickets": shown bare, it read as that file's.
Undoing the teach a verdict made takes the verdict back too (the ticket is to be checked again, first);
redoing it gives the verdict again: an undone answer kept counting in the estimate.

A prompt with several fields (a queue and a priority) has random checks per field: a check is a verdict on one
field's label, kept in the prompt file with its field (``"field"``), and a field's estimate reads only its own
checks (:class:`FieldChecks` holds those of every field after the first; the first field's are the session's
own :class:`RandomChecks`). Each estimate then names its field ("priority ~80% (…)"); a one-field prompt's
reads as it always has. A field's check records that field's own version (its number in the field's history, as
its Versions tab and the status bar's "Prompt ready (queue v1, priority v2)" say it), so a Save that changed only
the priority says the priority's checks may have changed and leaves the queue's as they were. (Checks of a further
field kept before this numbering carry the first field's number.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from ..engine.prompt import CheckRecord, Field, VersionRecord
from ..engine.scoring import wilson_interval
from ..engine.table import Source, TicketTable, decide
from .events import Event
from .undo import Step

SAMPLE = 20  # tickets drawn per "Check a random sample"
NOT_ESTIMATED = "Accuracy: not estimated"  # the status bar before any random check, with no gold column
# ... and with a gold column: its accuracy is measured (the Accuracy tab), so the line says only what the
# random checks have (nothing yet); "Accuracy: not estimated" beside "Accuracy against gold 48.2%" read as
# a contradiction.
NO_CHECKS = "Random checks: none yet"
# A sample's estimate describes the file it was drawn from: said of another file (File › Open with Replace) it
# read as that file's accuracy (W9: "~100% (51–100%), 4 checks" over 150 tickets none of which was checked).
ELSEWHERE = " of tickets not loaded now (another file: check a sample of these to estimate theirs)"


@dataclass(frozen=True)
class CheckStatus:
    """Where the random check stands: the sample still to check and the estimate so far."""

    to_check: tuple[int, ...] = ()  # rows drawn and not checked yet, in the order to check them
    checked: int = 0
    correct: int = 0
    low: float = 0.0
    high: float = 1.0
    versions: tuple[int, int] = (0, 0)  # the oldest and newest prompt version checked
    taught: tuple[int, int] = (0, 0)  # the taught-set size at the first and the last check
    newest: float = 0.0  # when the last check was made (seconds since the epoch)
    since: str = ""  # what changed since the last check that may have changed the accuracy ("" nothing)
    first_pass: int = 0  # checks whose label was the classifier's first pass (the language model had not read it)
    field: str = ""  # a prompt with several fields: the field whose labels were checked ("": one field)
    elsewhere: bool = False  # tickets are loaded and none of the checked ones is among them (another file)
    # Checks kept that were made on other labels (Suggest labels, then Save): the estimate went from "~85%, 20
    # checks" to "not estimated" and nothing said why.
    other_labels: int = 0

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.checked if self.checked else None

    def what(self, now: float | None = None) -> str:
        """What the estimate describes: "20 checks on v3 with 40 taught, 2 h ago"."""
        low, high = self.versions
        versions = f"v{high}" if low == high else f"v{low}–v{high}"
        first, last = self.taught
        # A check teaches its ticket: twenty checks from 40 taught end at 59, and that is "with 40 taught".
        taught = f"{first}" if last - first <= self.checked - 1 else f"{first}–{last}"
        checks = "check" if self.checked == 1 else "checks"
        stage = f" ({self.first_pass} on first-pass labels)" if self.first_pass else ""
        return f"{self.checked} {checks}{stage} on {versions} with {taught} taught, {ago(self.newest, now)}"

    def short(self, now: float | None = None, gold: bool = False) -> str:
        """The status bar's line (``gold``: a gold column measures the labels already); a field's (a prompt with
        several) starts with its name: "priority ~80% (…)", "Accuracy of priority: not estimated"."""
        if not self.checked and self.field:
            return f"Random checks of {self.field}: none yet" if gold else f"Accuracy of {self.field}: not estimated"
        if not self.checked:
            return NO_CHECKS if gold else NOT_ESTIMATED
        other = " of other tickets" if self.elsewhere else ""
        line = f"~{100 * self.correct / self.checked:.0f}% ({100 * self.low:.0f}–{100 * self.high:.0f}%){other}, "
        named = f"{self.field} " if self.field else ""
        return named + line + self.what(now) + (" (may have changed)" if self.since else "")

    def describe(self, now: float | None = None, gold: bool = False) -> str:
        of = f" of {self.field}" if self.field else ""
        if not self.checked:
            kept = self.other_labels
            why = (
                f" ({kept} {'check was' if kept == 1 else 'checks were'} made on other labels: kept with the prompt, "
                f"{'it does' if kept == 1 else 'they do'} not count for these)"
                if kept
                else ""
            )
            if gold:
                return (
                    f"No random-check estimate{of} yet{why}: check a random sample (Teach menu) for tickets without "
                    "gold."
                )
            column = " in its column" if self.field else ""
            return f"Accuracy{of} not estimated yet{why}: check a random sample (Teach menu){column}."
        checks = "random check" if self.checked == 1 else "random checks"
        text = (
            f"Accuracy{of} {100 * self.correct / self.checked:.0f}% (95% interval {100 * self.low:.0f}–"
            f"{100 * self.high:.0f}%), from {self.checked} {checks}{ELSEWHERE if self.elsewhere else ''}: "
            f"{self.correct} "
            f"{self.field + ' ' if self.field else ''}label{'s' if self.correct != 1 else ''} right ({self.what(now)})"
        )
        if self.since:
            text += f". Since then {self.since}, which may have changed it: check a new sample to see"
        return text


def ago(when: float, now: float | None = None) -> str:
    """ "just now", "12 min ago", "2 h ago", "3 days ago"."""
    seconds = max(0.0, (time.time() if now is None else now) - when)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min ago"
    if seconds < 48 * 3600:
        return f"{seconds // 3600:.0f} h ago"
    return f"{seconds // 86400:.0f} days ago"


class RandomChecks:
    """The drawn sample and the lead's verdicts (ticket text -> :class:`CheckRecord`) on one field's labels:
    ``table`` is where they are read (for a field after the first, :class:`FieldChecks` sets ``source``, its
    table as now labelled, None before its first pass, and ``field``, its index; 0: the first field, whose
    undo steps it follows)."""

    def __init__(self, table: TicketTable | None, seed: int | None = None) -> None:
        self.source: Callable[[], TicketTable | None] = lambda: table
        self.field = 0
        self.name = ""  # the field's name, said by its status (a prompt with several fields; "" for one)
        self.changed: Event[[CheckStatus]] = Event()
        self.checks: dict[str, CheckRecord] = {}  # checked ticket text -> the verdict, oldest first
        self.queue: list[int] = []
        self._taken: dict[str, CheckRecord] = {}  # verdicts an undo took back
        self._rng = np.random.default_rng(seed)
        # What a check is made under now: (the prompt version's number, tickets taught); the window
        # gives the prompt file's numbering and the teaching's count.
        self.context: Callable[[], tuple[int, int]] = lambda: (
            (t.version + 1, len(t.taught_rows())) if (t := self.table) is not None else (1, 0)
        )
        # Whether two numbered versions hold the same prompt: Revert to v1 saves v3, the prompt that was checked,
        # which the estimate had called "prompt version 3 is in use ... (may have changed)".
        self.same: Callable[[int, int], bool] = lambda a, b: False
        # The label names of the prompt version a check was made on, by its number (None: not known).
        self.labels_of: Callable[[int], Sequence[str] | None] = lambda version: None
        # The labels in use (a field after the first: its own, known before its first pass has a table).
        self.labels: Callable[[], Sequence[str]] = lambda: t.labels if (t := self.table) is not None else ()
        # A further field's: whether a row is taught now, by its taught set (which runs ahead of its table's fit).
        self.taught: Callable[[TicketTable, int], bool] | None = None
        # The sentence encoder in use, by name ("" none loaded): another one since the last check may have changed
        # the accuracy (the first pass's labels and the encoder head's are its own; W11 saw 78.3 % -> 75.7 %).
        self.encoder: Callable[[], str] = lambda: ""
        self.status = CheckStatus()

    @property
    def table(self) -> TicketTable | None:
        return self.source()

    def draw(self, count: int = SAMPLE) -> list[int]:
        """Add ``count`` untaught labelled rows, uniformly at random, to the rows to check."""
        table = self.table
        if table is None:
            return []
        n = len(table)
        eligible = ~table.taught_mask() & (table.label_ids() >= 0)
        eligible[[r for r in self.queue if r < n]] = False
        for row in np.flatnonzero(eligible):
            if table.texts[int(row)] in self.checks or (self.taught is not None and self.taught(table, int(row))):
                eligible[row] = False
        rows = np.flatnonzero(eligible)
        picked = self._rng.choice(rows, size=min(count, len(rows)), replace=False) if len(rows) else rows
        self.queue += [int(r) for r in picked]
        self.refresh()
        return [int(r) for r in picked]

    def record(self, rows: Sequence[int], right: str | None) -> list[int]:
        """The lead's verdict on checked rows: ``right`` is the correct label (None: the shown one is
        right). Only rows of the drawn sample count; returns them (the caller teaches them)."""
        table = self.table
        counted: list[int] = []
        if table is None:
            return counted
        version, taught = self.context()
        for row in rows:
            if row not in self.queue or row >= len(table):
                continue
            decision = decide(table, row)
            shown = decision.label
            if shown is None:
                continue
            text = table.texts[row]
            self.checks.pop(text, None)
            stage = decision.source.shown
            made = (version, taught, time.time(), stage, self.encoder())
            self.checks[text] = CheckRecord(text, right or shown, shown, *made)
            self.queue.remove(row)
            counted.append(row)
        if counted:
            self.refresh()
        return counted

    def stepped(self, step: Step, undone: bool) -> None:
        """Follow an undo or redo of teaching this field (see the module docstring)."""
        if step.field != self.field:
            return  # another field's taught set: its own checks follow it
        changes = step.changes  # by stripped text, as the taught set
        if undone:
            back = [t for t, c in self.checks.items() if changes.get(t.strip(), (c.right, None)) == (None, c.right)]
            for text in back:
                self._taken[text] = self.checks.pop(text)
            table = self.table
            rows = [r for r, text in enumerate(table.texts) if text in back] if back and table is not None else []
            self.queue = rows + [r for r in self.queue if r not in rows]
        else:
            again = [t for t, c in self._taken.items() if t.strip() in changes and changes[t.strip()][1] == c.right]
            for text in again:
                self.checks[text] = self._taken.pop(text)
        self.refresh()

    def _taught_now(self, table: TicketTable, row: int) -> bool:
        return self.taught(table, row) if self.taught is not None else table.taught_label(row) is not None

    def in_sample(self, row: int) -> bool:
        return row in self.queue

    def next_row(self) -> int | None:
        """The next ticket to check, in the order drawn (None: the sample is done)."""
        return self.queue[0] if self.queue else None

    def records(self) -> list[CheckRecord]:
        """The verdicts, oldest first, as the prompt file keeps them."""
        return list(self.checks.values())

    def restore(self, records: Sequence[CheckRecord]) -> None:
        """The verdicts kept with the prompt now in use (a start, or another prompt file opened)."""
        self.checks = {r.text: r for r in records}
        self._taken = {}
        self.refresh()

    def clear(self) -> None:
        """The tickets were dropped: the rows still to check go; the verdicts stay (kept by text)."""
        self.queue = []
        self.refresh()

    def refresh(self) -> None:
        """Recount, and drop from the rows to check those taught meanwhile (taught elsewhere: no verdict)."""
        table = self.table
        checks = [c for c in self.checks.values() if self._on_these_labels(c)]
        correct = sum(c.shown == c.right for c in checks)
        low, high = wilson_interval(correct, len(checks))
        if table is not None:  # (a field's table between two fits: the rows to check wait for the next)
            self.queue = [r for r in self.queue if r < len(table) and not self._taught_now(table, r)]
        if not checks:
            self.status = CheckStatus(tuple(self.queue), field=self.name, other_labels=len(self.checks))
        else:
            last = checks[-1]  # the newest verdict (kept in the order given)
            versions = (min(c.version for c in checks), max(c.version for c in checks))
            taught = (min(c.taught for c in checks), max(c.taught for c in checks))
            status = CheckStatus(tuple(self.queue), len(checks), correct, low, high, versions, taught, last.at)
            together = next((i for i, c in enumerate(reversed(checks)) if c.taught != last.taught), len(checks))
            # Not said for a further field: its line starts with the field's name, and with the stage too it was
            # cut in the status bar at 1366 px (tests/test_window_fields_left.py)
            first = sum(c.stage == Source.FIRST.shown for c in checks) if not self.field else 0
            since = self._since(versions[1], last.taught, together, last.encoder)
            elsewhere = table is not None and len(table) > 0 and not _any_loaded(checks, table)
            self.status = replace(status, since=since, first_pass=first, field=self.name, elsewhere=elsewhere)
        self.changed.emit(self.status)

    def _on_these_labels(self, check: CheckRecord) -> bool:
        """Only checks made on the labels in use count: after Save as… with other labels, the copied
        checks had said "~100 % (91–100 %)" of a prompt they never saw. A version not in the file's
        history counts when both its labels are among those in use."""
        labels = set(self.labels() or ())
        made = self.labels_of(check.version)
        if not labels:
            return True
        if made is not None and check.renamed:  # the version's labels under the names a Save gave them since
            renames = dict(check.renamed)  # once a check, not once a label: refresh reads up to 5,000 checks
            made = [renames.get(name, name) for name in made]
        return set(made) == labels if made is not None else {check.right, check.shown} <= labels

    def renamed(self, mapping: Mapping[str, str]) -> None:
        """Labels a Save renamed (old name -> new, :mod:`label_renames`): each verdict takes the new names and
        still counts; a rename made every check "made on other labels" (W14)."""
        self.checks = {text: c.with_renames(mapping) for text, c in self.checks.items()}
        self._taken = {text: c.with_renames(mapping) for text, c in self._taken.items()}
        self.refresh()

    def _since(self, checked_version: int, before: int, together: int, encoder: str = "") -> str:
        """What changed since the last check that may have changed the accuracy, in words. ``before``:
        the tickets taught when the last verdict was given; that verdict teaches its own ``together``
        tickets (one, or those answered at once), just after it is recorded; ``encoder``: the sentence encoder
        in use then ("" not known: nothing said)."""
        version, taught = self.context()
        changes = []
        if encoder and (now := self.encoder()) and now != encoder:
            changes.append(f"the sentence encoder is {now} (the last check was made with {encoder})")
        if version > checked_version and not self.same(version, checked_version):  # a further field's: named
            changes.append(f"{self.name or 'prompt'} version {version} is in use")
        more = taught - before - together
        if more > 0:
            changes.append(f"{more} more ticket{'s were' if more != 1 else ' was'} taught")
        elif taught < before:
            changes.append("taught tickets were taken back")
        return " and ".join(changes)


def same_content(history: Sequence[VersionRecord], a: int, b: int) -> bool:
    """Whether versions ``a`` and ``b`` of ``history`` hold the same prompt (False: either is not in it)."""
    content = {r.number: r.content for r in history if r.number in (a, b)}
    return len(content) == 2 and content[a] == content[b]


def _any_loaded(checks: Sequence[CheckRecord], table: TicketTable) -> bool:
    """Whether any checked ticket is among the loaded ones (by text, as checks are kept): the few checked texts
    as the set, the loaded ones scanned until the first is found (no set of 100,000 texts at each recount)."""
    checked = {c.text for c in checks}
    return any(text in checked for text in table.texts)


class FieldChecks:
    """The random checks of every field after the first (a prompt with several fields), one
    :class:`RandomChecks` per field on that field's own table (``table_of(i)``, 1: the second field), each
    made under that field's version (``number(i)``: its number in the field's own history, which moves with the
    field, so a Save that moves fields renumbers no check) and that field's taught set (``taught_of(i)``).
    A field keeps its checks, and its rows still to check, through a new version of the prompt (by name);
    what the prompt file keeps for it comes in with :meth:`set_fields`."""

    def __init__(
        self, table_of: Callable[[int], TicketTable | None], taught_of: Callable[[int], Mapping[str, str]]
    ) -> None:
        self.table_of, self.taught_of = table_of, taught_of
        # field i's version in use (1: the second field), numbered in that field's own history in the prompt file
        self.number: Callable[[int], int] = lambda index: 1
        self.history: Callable[[int], Sequence[VersionRecord]] = lambda index: ()  # field i's versions
        self.encoder: Callable[[], str] = lambda: ""  # the sentence encoder in use, by name (RandomChecks.encoder)
        self.fields: list[RandomChecks] = []
        self._carried: dict[str, list[int]] = {}  # a field's rows still to check, by name, through a move
        self.changed: Event[[int, CheckStatus]] = Event()  # field index (1: the second field), its status

    def of(self, field: int) -> RandomChecks | None:
        return self.fields[field - 1] if 0 < field <= len(self.fields) else None

    def set_fields(self, fields: Sequence[Field]) -> None:
        """The fields after the first now in use, each with the checks the prompt file keeps for it (which
        replace those held when they differ: another prompt file opened)."""
        held = {c.name: c for c in self.fields}
        out = []
        for index, f in enumerate(fields, 1):
            checks = held.pop(f.name, None) or self._made(f.name)
            checks.field, checks.source = index, partial(self.table_of, index)
            checks.context = partial(self._context, index)
            checks.same = partial(self._same, index)
            checks.labels = partial(list, f.label_names)
            checks.taught = partial(self._taught, index)
            checks.encoder = lambda: self.encoder()
            out.append(checks)
        self.fields = out
        for checks, f in zip(out, fields, strict=True):
            if checks.records() != list(f.checks):
                checks.restore(f.checks)
            if (rows := self._carried.pop(f.name, None)) is not None:
                checks.queue = rows
                checks.refresh()
        self._carried = {}

    def waiting(self) -> dict[str, list[int]]:
        """Each field's rows still to check, by its name."""
        return {c.name: list(c.queue) for c in self.fields}

    def carry(self, rows: Mapping[str, Sequence[int]]) -> None:
        """Each field's rows still to check (by name) for the fields :meth:`set_fields` brings next: a Save that
        moved fields keeps every field's sample with the field, wherever it now stands."""
        self._carried = {name: list(r) for name, r in rows.items()}

    def _made(self, name: str) -> RandomChecks:
        checks = RandomChecks(None)
        checks.name = name
        checks.changed.connect(lambda status: self.changed.emit(checks.field, status))
        return checks

    def _context(self, index: int) -> tuple[int, int]:
        return self.number(index), len(self.taught_of(index))

    def _same(self, index: int, a: int, b: int) -> bool:
        return same_content(self.history(index), a, b)

    def _taught(self, index: int, table: TicketTable, row: int) -> bool:
        return self.taught_of(index).get(table.texts[row].strip()) in table.labels  # a label gone: set aside

    def records(self) -> list[list[CheckRecord]]:
        """Every further field's verdicts, in field order, as the prompt file keeps them."""
        return [c.records() for c in self.fields]

    def stepped(self, step: Step, undone: bool) -> None:
        if (checks := self.of(step.field)) is not None:
            checks.stepped(step, undone)

    def refresh(self) -> None:
        for checks in self.fields:
            checks.refresh()

    def clear(self) -> None:
        for checks in self.fields:
            checks.clear()
