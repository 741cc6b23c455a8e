"""The evaluation as a Qt-free document: which column holds the correct labels, how its values map to
labels (remembered per file header), the accuracy of each prompt version, and the tickets whose label
flipped with the last version.

It lived in the window before (``gold``, ``gold_mappings``, ``version_accuracy``,
``previous_accuracy``); here it is tested without one, and the window only shows what it reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..engine.table import TicketTable
from .events import Event
from .gold import GoldColumn, gold_report, match_share


@dataclass(frozen=True)
class Score:
    """A version's accuracy against gold, and what it was measured on (to compare like with like)."""

    accuracy: float
    taught: int
    rows: int
    version: int


class Evaluation:
    """See the module docstring. The table is the session's; only the loop's thread calls this."""

    def __init__(self, table: TicketTable, mappings: dict[str, dict[str, str]] | None = None) -> None:
        self.table = table
        self.gold: GoldColumn | None = None
        self.offered = False  # a gold column was looked for with labels to match (or the lead chose)
        self.mappings: dict[str, dict[str, str]] = dict(mappings or {})  # file header key -> value mapping
        self.scores: dict[int, Score] = {}  # prompt version -> its accuracy
        self.previous: Score | None = None  # the version before the one in use that has a score
        self.gold_changed: Event[[GoldColumn | None]] = Event()
        self.scored: Event[[int]] = Event()  # a version got (or changed) its score
        # What the lead calls a session version (the prompt file's history number; v + 1 without one).
        self.numbering: Callable[[int], int] = lambda version: version + 1

    # ------------------------------------------------------------ gold

    def set_gold(self, gold: GoldColumn | None) -> None:
        self.gold = gold
        self.gold_changed.emit(gold)

    def header_key(self, column: str) -> str:
        return "|".join(self.table.columns) + "::" + column

    def needs_mapping(self, column: str) -> tuple[int, int] | None:
        """(matched, total) where some values of ``column`` are no label names and no mapping is
        remembered for this file's header; None when the column can be used as it is."""
        matched, total = match_share(self.table, column)
        if total and matched < total and self.header_key(column) not in self.mappings:
            return matched, total
        return None

    def choose(self, column: str | None, mapping: dict[str, str] | None = None) -> None:
        """Use ``column`` as gold (a new mapping is remembered for files with the same header)."""
        self.offered = True
        if column is None:
            self.set_gold(None)
            return
        key = self.header_key(column)
        if mapping is not None:
            self.mappings[key] = mapping
        self.set_gold(GoldColumn(column, dict(self.mappings.get(key) or {})))

    def detect(self, text_column: str) -> bool:
        """Offer a column whose values are (nearly all) label names as gold, once a file; True if one was
        chosen. Called when a file is read and again when a prompt is in use: a sample opened a second
        after launch, before the prompt had labels to match, was left with no gold column."""
        table = self.table
        if self.offered or self.gold is not None or not len(table) or not table.labels:
            return False
        self.offered = True
        for column in table.columns:
            if column == text_column:
                continue
            matched, total = match_share(table, column)
            if total and matched / total >= 0.9:
                self.set_gold(GoldColumn(column))
                return True
        return False

    def cleared(self) -> None:
        """The tickets were dropped: their gold column and the comparison base go with them."""
        self.gold, self.previous, self.offered = None, None, False

    def gold_rows(self) -> int:
        return 0 if self.gold is None else int((self.gold.ids(self.table) >= 0).sum())

    # -------------------------------------------------------- versions

    def version_applied(self, version: int) -> None:
        """A new version is in use: the base of "since the previous version" is the last scored before."""
        earlier = [v for v in self.scores if v < version]
        self.previous = self.scores[max(earlier)] if earlier else None

    def record(self, version: int, taught: int) -> Score | None:
        """A finished run's accuracy against gold, kept for the version list and the change since."""
        if self.gold is None:
            return None
        report = gold_report(self.table, self.gold)
        if not report.total:
            return None
        score = Score(report.accuracy, taught, self.gold_rows(), version)
        self.scores[version] = score
        self.scored.emit(version)
        return score

    def comparison(self, accuracy: float, taught: int) -> str:
        """The change since the previous version's accuracy, only where like is compared with like: the
        same gold rows and the same taught set (a version before teaching scored against one after
        fourteen taught tickets credited the prompt with the teaching's gain)."""
        before = self.previous
        if before is None:
            return ""
        rows = self.gold_rows()
        if (before.taught, before.rows) != (taught, rows):
            return (
                f"not comparable with version {self.numbering(before.version)} ({before.taught} taught tickets and "
                f"{before.rows} gold rows then, {taught} and {rows} now)"
            )
        return (
            f"{100 * (accuracy - before.accuracy):+.1f} points since version {self.numbering(before.version)} "
            "(same gold rows and taught set)"
        )

    def flips(self, limit: int = 2000) -> tuple[list[tuple[int, str, str, str]], int]:
        """Tickets whose label changed with the last prompt version (the first ``limit``), and how many."""
        table = self.table
        previous, current = table.previous_ids(), table.label_ids()
        changed = np.flatnonzero(table.scored_mask() & (previous >= 0) & (current >= 0) & (previous != current))
        out = []
        for row in changed[:limit]:
            old, new = table.label_vocab[previous[row]], table.label_vocab[current[row]]
            out.append((int(row), table.texts[row], old, new))
        return out, len(changed)
