"""The ticket table: a QAbstractTableModel over the session's TicketTable, and its filter proxy.

The model holds no ticket data of its own: every cell reads the columnar table, so it can never show
a label the session no longer has. The label cell is editable (a combo of the prompt's labels):
setting it teaches the ticket; the model only forwards that intent.
"""

from __future__ import annotations

import functools
import unicodedata
import zlib
from collections.abc import Callable, Sequence
from enum import StrEnum

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from ...defaults import LOW_CONFIDENCE
from ...engine.table import NONE, Decision, TicketTable, decide, language_name

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
NOT_TAUGHT = "(not taught)"
Index = QModelIndex | QPersistentModelIndex

# Distinct hues; used as a translucent tint, so they read on light and dark backgrounds alike.
LABEL_HUES = [210, 20, 130, 280, 45, 170, 330, 90, 250, 0]


class Col(StrEnum):
    """The table's columns by role: code finds a column by this, never by the title it shows."""

    TICKET = "ticket"
    LABEL = "label"
    FROM = "from"
    CONFIDENCE = "confidence"
    LATENCY = "latency"
    BASELINE_LABEL = "baseline label"
    BASELINE_MS = "baseline ms"
    AGREE = "agree"
    GOLD = "gold"
    LANGUAGE = "language"


TITLES = {
    Col.TICKET: "Ticket", Col.LABEL: "Label", Col.FROM: "From", Col.CONFIDENCE: "Confidence",
    Col.LATENCY: "Latency ms", Col.BASELINE_LABEL: "Baseline label", Col.BASELINE_MS: "Baseline ms",
    Col.AGREE: "Agree", Col.LANGUAGE: "Language",
}  # fmt: skip
TEXT_HELP = {
    Col.LABEL: "The label: taught (✓) by you, learned from what you taught, or from the prompt. "
    "Double-click or press 1-9 to teach; Enter accepts the shown label.",
    Col.FROM: "Where the label came from: first pass (the taught classifier, before the language model has read "
    "the ticket or while its reading is not used for labels), learned (the classifier with the language model's "
    "view), prompt, or taught (you).",
    Col.CONFIDENCE: "Probability of the label, from where it came from (taught: 1).",
    Col.LATENCY: "Time to label this ticket: for a batch, the batch's wall time divided by its size.",
    Col.BASELINE_LABEL: "The label from re-encoding the whole prompt for this ticket (the slow, plain path).",
    Col.AGREE: "Whether the fast path and the baseline give the same label.",
    Col.LANGUAGE: "The ticket's language, detected on this computer (empty: too short to tell, or unsure).",
}


def hue_slot(name: str) -> int:
    """A label's own place in LABEL_HUES, from its name alone: CRC-32 of the NFC form (Python's hash() is
    salted per process), so a label keeps its colour across sessions, reorderings and added labels."""
    return zlib.crc32(unicodedata.normalize("NFC", name).encode("utf-8")) % len(LABEL_HUES)


@functools.lru_cache(maxsize=32)
def color_slots(labels: tuple[str, ...]) -> dict[str, int]:
    """Each current label's colour: its own slot, or, where two names hash alike, the next free slot.
    Names are placed in the order of their hash (not their order in the prompt), so the outcome does not
    depend on how the labels are ordered; no two share a colour while the palette has room."""
    taken: set[int] = set()
    slots: dict[str, int] = {}
    for name in sorted(set(labels), key=lambda n: (zlib.crc32(unicodedata.normalize("NFC", n).encode()), n)):
        slot = hue_slot(name)
        while len(taken) < len(LABEL_HUES) and slot in taken:
            slot = (slot + 1) % len(LABEL_HUES)
        taken.add(slot)
        slots[name] = slot
    return slots


def label_slot(name: str, labels: Sequence[str]) -> int:
    """The colour index of ``name`` among the current ``labels`` (a label no longer current: its own)."""
    return color_slots(tuple(labels)).get(name, hue_slot(name))


def label_color(index: int, dark: bool = False) -> QColor:
    color = QColor.fromHsv(LABEL_HUES[index % len(LABEL_HUES)], 170, 200 if dark else 230)
    color.setAlpha(110 if dark else 90)
    return color


def is_dark() -> bool:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return False
    return app.palette().color(QPalette.ColorRole.Base).lightness() < 128


class TicketTableModel(QAbstractTableModel):
    BASE_COLUMNS = [Col.TICKET, Col.LABEL, Col.FROM, Col.CONFIDENCE, Col.LATENCY, Col.LANGUAGE]
    BASELINE_COLUMNS = [Col.BASELINE_LABEL, Col.BASELINE_MS, Col.AGREE]

    def __init__(self, table: TicketTable, teach: Callable[[list[int], str | None], None], parent=None) -> None:
        super().__init__(parent)
        self.table = table
        self.teach = teach
        self.show_baseline = False
        self.gold_column: str | None = None
        self.low_confidence = LOW_CONFIDENCE
        self._columns = self._make_columns()

    # --------------------------------------------------------------- structure

    def _make_columns(self) -> list[Col]:
        cols = list(self.BASE_COLUMNS)
        if self.show_baseline:
            cols += self.BASELINE_COLUMNS
        if self.gold_column:
            cols.append(Col.GOLD)
        return cols

    def column_ids(self) -> list[Col]:
        return list(self._columns)

    def column_index(self, column: Col) -> int:
        """Where the column of this role is now (-1: not shown)."""
        return self._columns.index(column) if column in self._columns else -1

    def title(self, column: Col) -> str:
        return f"Gold ({self.gold_column})" if column == Col.GOLD else TITLES[column]

    def columns(self) -> list[str]:
        """The titles shown, in order (what a user reads; code uses :meth:`column_index`)."""
        return [self.title(c) for c in self._columns]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.table)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._columns):
            name = self._columns[section]
            if role == Qt.ItemDataRole.DisplayRole:
                return self.title(name)
            if role == Qt.ItemDataRole.ToolTipRole:
                return TEXT_HELP.get(name)
        elif orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return str(section + 1)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        if index.isValid() and self._columns[index.column()] == Col.LABEL and index.row() not in self.table.problems:
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    # -------------------------------------------------------------------- data

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self.table):
            return None
        row, name = index.row(), self._columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, name)
        if role == Qt.ItemDataRole.EditRole:
            return self.decision(row).label or ""
        if role == SORT_ROLE:
            return self._sort_key(row, name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, name)
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._background(row, name)
        if role == Qt.ItemDataRole.ForegroundRole and (self.decision(row).stale or row in self.table.problems):
            return QApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.FontRole and name == Col.LABEL:
            decision = self.decision(row)
            font = QFont()
            font.setItalic(decision.stale)
            font.setBold(decision.taught)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and name in (Col.CONFIDENCE, Col.LATENCY, Col.BASELINE_MS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index: Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or self._columns[index.column()] != Col.LABEL:
            return False
        label = None if value in ("", NOT_TAUGHT, None) else str(value)
        if label is not None and label not in self.table.labels:
            return False
        self.teach([index.row()], label)
        return True

    def decision(self, row: int) -> Decision:
        """The row's label and marks, under the lead's low-confidence threshold (every cell reads this)."""
        return decide(self.table, row, self.low_confidence)

    def _display(self, row: int, name: Col):
        table = self.table
        if name == Col.TICKET:
            problem = table.problems.get(row)
            if problem:
                return f"({problem})"
            return ("✂ " if table.truncated(row) and table.scored(row) else "") + table.texts[row].replace("\n", " ⏎ ")
        if name == Col.LABEL:
            d = self.decision(row)
            if d.label is None:
                return ""
            if d.taught:
                return f"✓ {d.label}"
            mark = "⚠ " if d.low_confidence else ""
            return f"{mark}{d.label}{' …' if d.stale else ''}"
        if name == Col.FROM:
            d = self.decision(row)
            return "" if d.label is None else ("out of date" if d.stale else d.source.shown)
        if name == Col.CONFIDENCE:
            d = self.decision(row)
            return "" if d.confidence is None or d.stale else f"{d.confidence:.2f}"
        if name == Col.LATENCY:
            latency = table.latency(row)
            return "" if latency is None else f"{latency:.0f}"
        if name == Col.BASELINE_LABEL:
            return table.baseline_label(row) or ""
        if name == Col.BASELINE_MS:
            score = table.baseline.get(row)
            return "" if score is None else f"{score.latency_ms:.0f}"
        if name == Col.AGREE:
            return {None: "", True: "yes", False: "NO"}[table.agree(row)]
        if name == Col.GOLD:
            return table.value(row, self.gold_column or "")
        if name == Col.LANGUAGE:
            return table.language(row)
        return None

    def _sort_key(self, row: int, name: Col):
        table = self.table
        if name == Col.CONFIDENCE:
            confidence = self.decision(row).confidence
            return -1.0 if confidence is None else confidence
        if name == Col.LATENCY:
            latency = table.latency(row)
            return -1.0 if latency is None else latency
        if name == Col.BASELINE_MS:
            score = table.baseline.get(row)
            return -1.0 if score is None else score.latency_ms
        if name == Col.AGREE:
            return {None: -1, False: 0, True: 1}[table.agree(row)]
        if name == Col.LABEL:
            return self.decision(row).label or ""
        return self._display(row, name) or ""

    def _tooltip(self, row: int, name: Col):
        table = self.table
        if name == Col.TICKET:
            notes = []
            if row in table.problems:
                notes.append(f"Not labelled: {table.problems[row]}.")
            if table.truncated(row):
                notes.append("Truncated to fit the model's context.")
            if table.split_fallback(row):
                notes.append("Scored with the shorter clean prefix (token boundary check).")
            return "\n".join([table.texts[row][:500], *notes])
        if name in (Col.LABEL, Col.CONFIDENCE):
            d = self.decision(row)
            if d.stale:
                return "From the previous prompt version; the new label is on its way."
            probs = table.label_probs(row)
            if probs is not None:
                lines = [f"{label}: {p:.3f}" for label, p in zip(table.labels, probs)]
                return "\n".join([f"From: {d.source.shown}", *lines])
        if name == Col.LANGUAGE and table.language(row):
            return language_name(table.language(row))
        return TEXT_HELP.get(name)

    def _background(self, row: int, name: Col):
        table = self.table
        dark = is_dark()
        if name == Col.LABEL:
            d = self.decision(row)
            if d.label is not None and not d.stale:
                return label_color(label_slot(d.label, table.labels), dark)
        if name == Col.BASELINE_LABEL:
            label = table.baseline_label(row)
            if label is not None:
                return label_color(label_slot(label, table.labels), dark)
        if name == Col.AGREE and table.agree(row) is False:
            return QColor(220, 60, 60, 110)
        if name == Col.CONFIDENCE and (d := self.decision(row)).low_confidence and not d.stale:
            return QColor(240, 170, 40, 110)
        return None

    # ----------------------------------------------------------------- updates

    def reset(self) -> None:
        self.beginResetModel()
        self._columns = self._make_columns()
        self.endResetModel()

    def set_show_baseline(self, show: bool) -> None:
        if show != self.show_baseline:
            self.show_baseline = show
            self.reset()

    def set_gold_column(self, column: str | None) -> None:
        if column != self.gold_column:
            self.gold_column = column
            self.reset()

    def set_low_confidence(self, threshold: float) -> None:
        self.low_confidence = threshold
        self.rows_changed(0, len(self.table) - 1)

    def rows_added(self, rows: range) -> None:
        """The table grew already; tell the views."""
        if len(rows):
            self.beginInsertRows(QModelIndex(), rows.start, rows.stop - 1)
            self.endInsertRows()

    def rows_changed(self, first: int, last: int) -> None:
        if len(self.table) and last >= first:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(self._columns) - 1))


class TicketFilterProxy(QSortFilterProxyModel):
    """Shows the rows of a boolean mask computed (vectorised) by the ticket area; sorts on typed keys.

    Per-row Python filters over 200,000 rows took ~0.4 s per refilter; indexing a mask takes ~0.1 s."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.mask: np.ndarray | None = None  # None: every row
        self.rank: dict[int, int] | None = None  # a list's own order (best first, as drawn), while unsorted
        self.user_column = -1  # the column the lead sorted by (the header), -1: none
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(False)

    def set_mask(self, mask: np.ndarray | None, order: Sequence[int] | None = None) -> None:
        """Show the mask's rows; ``order``: those of a list (*Teach next*, *To check*) in its own order
        until the lead sorts by a column, so the next one to answer is the next row, not somewhere in the
        file order (the selection jumped after each check)."""
        self.beginFilterChange()
        self.mask = mask
        self.rank = {row: i for i, row in enumerate(order)} if order is not None else None
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        if self.user_column < 0 and (self.rank is not None or self.sortColumn() >= 0):
            super().sort(0 if self.rank is not None else -1)  # the list's order, else back to the file's

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.user_column = column  # the header's (the lead's) choice
        super().sort(column if column >= 0 or self.rank is None else 0, order)

    def lessThan(self, left: Index, right: Index) -> bool:
        rank = self.rank
        if rank is not None and self.user_column < 0:
            return rank.get(left.row(), len(rank)) < rank.get(right.row(), len(rank))
        return super().lessThan(left, right)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        mask = self.mask
        return mask is None or (source_row < len(mask) and bool(mask[source_row]))


def label_counts(table: TicketTable) -> dict[str, int]:
    """Rows per shown label (stale ones included), for the label filter."""
    ids = table.label_ids()
    ids = ids[ids != NONE]
    counts = np.bincount(ids, minlength=len(table.label_vocab)) if len(ids) else np.zeros(0, dtype=np.int64)
    return {name: int(counts[i]) for i, name in enumerate(table.label_vocab) if i < len(counts) and counts[i]}
