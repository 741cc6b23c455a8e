"""Random checks: an accuracy a lead can believe, from a random sample the lead confirmed or corrected.

The tickets a lead corrects are the wrong ones, so an accuracy measured on them says nothing of the file.
"Check a random sample" draws untaught labelled tickets uniformly at random; the lead says for each
whether its label is right (or which is). The estimate is the share of checked tickets whose label was
right when checked: exactly what the lead answered, so the number never disagrees with the checks (an
estimate from the classifier's later out-of-fold labels said 100 % after six checks, one of them wrong,
and moved when an unrelated ticket was taught). It describes the labels as they were when checked;
teaching since then usually improves them, so it errs on the low side. With a 95 % Wilson interval and
the number of checks it rests on. No checks: no number ("not estimated yet"). A check also teaches.

Checks belong to the loaded file (by ticket text, as the taught set): a new file starts without any.
Undoing the teach a verdict made takes the verdict back too (the ticket is to be checked again, first);
redoing it gives the verdict again: an undone answer kept counting in the estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..engine.metrics import wilson_interval
from ..engine.table import TicketTable
from .events import Event
from .undo import Step

SAMPLE = 20  # tickets drawn per "Check a random sample"


@dataclass(frozen=True)
class CheckStatus:
    """Where the random check stands: the sample still to check and the estimate so far."""

    to_check: tuple[int, ...] = ()  # rows drawn and not checked yet, in the order to check them
    checked: int = 0
    correct: int = 0
    low: float = 0.0
    high: float = 1.0

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.checked if self.checked else None

    def describe(self) -> str:
        if not self.checked:
            return "Accuracy not estimated yet: check a random sample (Teach menu)."
        checks = "random check" if self.checked == 1 else "random checks"
        return (
            f"Accuracy {100 * self.correct / self.checked:.0f}% (95% interval {100 * self.low:.0f}–"
            f"{100 * self.high:.0f}%), from {self.checked} {checks}: {self.correct} labels right"
        )


class RandomChecks:
    """The drawn sample and the lead's verdicts (text -> the label the lead says is right)."""

    def __init__(self, table: TicketTable, seed: int | None = None) -> None:
        self.table = table
        self.changed: Event[[CheckStatus]] = Event()
        self.verified: dict[str, str] = {}  # checked ticket text -> right label
        self.shown: dict[str, str] = {}  # checked ticket text -> the label it showed when checked
        self.queue: list[int] = []
        self._taken: dict[str, tuple[str, str]] = {}  # verdicts an undo took back: text -> (shown, verified)
        self._rng = np.random.default_rng(seed)
        self.status = CheckStatus()

    def draw(self, count: int = SAMPLE) -> list[int]:
        """Add ``count`` untaught labelled rows, uniformly at random, to the rows to check."""
        table = self.table
        n = len(table)
        eligible = ~table.taught_mask() & (table.label_ids() >= 0)
        eligible[[r for r in self.queue if r < n]] = False
        for row in np.flatnonzero(eligible):
            if table.texts[int(row)] in self.verified:
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
        counted = []
        for row in rows:
            if row not in self.queue:
                continue
            shown = table.label(row)
            if shown is None:
                continue
            text = table.texts[row]
            self.shown[text] = shown
            self.verified[text] = right or shown
            self.queue.remove(row)
            counted.append(row)
        if counted:
            self.refresh()
        return counted

    def stepped(self, step: Step, undone: bool) -> None:
        """Follow an undo or redo of teaching (see the module docstring)."""
        changes = step.changes  # by stripped text, as the taught set
        if undone:
            back = [t for t, v in self.verified.items() if changes.get(t.strip(), (v, None)) == (None, v)]
            for text in back:
                self._taken[text] = (self.shown.pop(text), self.verified.pop(text))
            rows = [r for r, text in enumerate(self.table.texts) if text in back] if back else []
            self.queue = rows + [r for r in self.queue if r not in rows]
        else:
            again = [t for t, (_, v) in self._taken.items() if t.strip() in changes and changes[t.strip()][1] == v]
            for text in again:
                self.shown[text], self.verified[text] = self._taken.pop(text)
        self.refresh()

    def in_sample(self, row: int) -> bool:
        return row in self.queue

    def next_row(self) -> int | None:
        """The next ticket to check, in the order drawn (None: the sample is done)."""
        return self.queue[0] if self.queue else None

    def clear(self) -> None:
        self.verified, self.shown, self.queue, self._taken = {}, {}, [], {}
        self.refresh()

    def refresh(self) -> None:
        """Recount, and drop from the rows to check those taught meanwhile (taught elsewhere: no verdict)."""
        table = self.table
        checked = len(self.verified)
        correct = sum(self.shown[text] == right for text, right in self.verified.items())
        low, high = wilson_interval(correct, checked)
        self.queue = [r for r in self.queue if r < len(table) and table.taught_label(r) is None]
        self.status = CheckStatus(tuple(self.queue), checked, correct, low, high)
        self.changed.emit(self.status)
