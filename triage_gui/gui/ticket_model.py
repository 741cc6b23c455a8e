"""The ticket table: a QAbstractTableModel over loaded tickets and their scores, plus its filter proxy."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor

from ..engine.results import TicketScore

SORT_ROLE = Qt.ItemDataRole.UserRole + 1

# Distinct hues that read on light and dark backgrounds when used as a translucent tint.
LABEL_HUES = [210, 20, 130, 280, 45, 170, 330, 90, 250, 0]


def label_color(index: int) -> QColor:
    color = QColor.fromHsv(LABEL_HUES[index % len(LABEL_HUES)], 170, 220)
    color.setAlpha(90)
    return color


@dataclass
class TicketRow:
    values: dict[str, str]  # every input column of the ticket's file
    text: str
    source: str = ""  # file name, or "pasted"
    cached: TicketScore | None = None
    baseline: TicketScore | None = None
    previous_label: str | None = None  # label under the previous prompt version

    @property
    def agree(self) -> bool | None:
        if self.cached is None or self.baseline is None:
            return None
        return self.cached.label == self.baseline.label


class TicketTableModel(QAbstractTableModel):
    BASE_COLUMNS = ["Ticket", "Label", "Confidence", "Latency ms"]
    BASELINE_COLUMNS = ["Baseline label", "Baseline ms", "Agree"]

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[TicketRow] = []
        self.labels: list[str] = []
        self.show_baseline = False
        self.gold_column: str | None = None
        self.low_confidence = 0.5

    # --------------------------------------------------------------- structure

    def columns(self) -> list[str]:
        cols = list(self.BASE_COLUMNS)
        if self.show_baseline:
            cols += self.BASELINE_COLUMNS
        if self.gold_column:
            cols.append(f"Gold ({self.gold_column})")
        return cols

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns())

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal:
                cols = self.columns()
                return cols[section] if section < len(cols) else None
            return str(section + 1)
        return None

    def column_name(self, column: int) -> str:
        return self.columns()[column]

    # -------------------------------------------------------------------- data

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        name = self.column_name(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, name)
        if role == SORT_ROLE:
            return self._sort_key(row, name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, name)
        if role == Qt.ItemDataRole.BackgroundRole:
            if name == "Label" and row.cached is not None:
                return label_color(self._label_index(row.cached.label))
            if name == "Baseline label" and row.baseline is not None:
                return label_color(self._label_index(row.baseline.label))
            if name == "Agree" and row.agree is False:
                return QColor(220, 60, 60, 110)
            if name == "Confidence" and self.is_low_confidence(row):
                return QColor(240, 170, 40, 110)
        if role == Qt.ItemDataRole.TextAlignmentRole and name in ("Confidence", "Latency ms", "Baseline ms"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _label_index(self, label: str) -> int:
        return self.labels.index(label) if label in self.labels else len(self.labels)

    def is_low_confidence(self, row: TicketRow) -> bool:
        return row.cached is not None and row.cached.confidence < self.low_confidence

    def _display(self, row: TicketRow, name: str):
        cached, base = row.cached, row.baseline
        if name == "Ticket":
            text = row.text.replace("\n", " ⏎ ")
            return ("✂ " if cached is not None and cached.truncated else "") + text
        if name == "Label":
            return "" if cached is None else ("⚠ " if self.is_low_confidence(row) else "") + cached.label
        if name == "Confidence":
            return "" if cached is None else f"{cached.confidence:.2f}"
        if name == "Latency ms":
            return "" if cached is None else f"{cached.latency_ms:.0f}"
        if name == "Baseline label":
            return "" if base is None else base.label
        if name == "Baseline ms":
            return "" if base is None else f"{base.latency_ms:.0f}"
        if name == "Agree":
            return {None: "", True: "yes", False: "NO"}[row.agree]
        if name.startswith("Gold"):
            return row.values.get(self.gold_column or "", "")
        return None

    def _sort_key(self, row: TicketRow, name: str):
        cached, base = row.cached, row.baseline
        if name == "Confidence":
            return -1.0 if cached is None else cached.confidence
        if name == "Latency ms":
            return -1.0 if cached is None else cached.latency_ms
        if name == "Baseline ms":
            return -1.0 if base is None else base.latency_ms
        if name == "Agree":
            return {None: -1, False: 0, True: 1}[row.agree]
        return self._display(row, name) or ""

    def _tooltip(self, row: TicketRow, name: str):
        if name == "Ticket":
            notes = []
            if row.cached is not None and row.cached.truncated:
                notes.append("Truncated to fit the model's context.")
            if row.cached is not None and row.cached.split_fallback:
                notes.append("Scored with the shorter clean prefix (token boundary check).")
            return "\n".join([row.text[:2000], *notes])
        if name in ("Label", "Confidence") and row.cached is not None:
            return "\n".join(f"{label}: {p:.3f}" for label, p in zip(self.labels, row.cached.probs))
        return None

    # ----------------------------------------------------------------- updates

    def set_labels(self, labels: list[str]) -> None:
        self.labels = list(labels)

    def set_show_baseline(self, show: bool) -> None:
        if show != self.show_baseline:
            self.beginResetModel()
            self.show_baseline = show
            self.endResetModel()

    def set_gold_column(self, column: str | None) -> None:
        self.beginResetModel()
        self.gold_column = column
        self.endResetModel()

    def set_low_confidence(self, threshold: float) -> None:
        self.low_confidence = threshold
        self._changed_all()

    def append_rows(self, rows: list[TicketRow]) -> None:
        if not rows:
            return
        first = len(self.rows)
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        self.rows.extend(rows)
        self.endInsertRows()

    def clear(self) -> None:
        self.beginResetModel()
        self.rows = []
        self.endResetModel()

    def set_scores(self, updates: list[tuple[int, TicketScore, TicketScore | None]]) -> None:
        """Apply a micro-batch of results; one dataChanged over the touched span."""
        if not updates:
            return
        for index, cached, baseline in updates:
            row = self.rows[index]
            row.cached = cached
            row.baseline = baseline
        lo = min(u[0] for u in updates)
        hi = max(u[0] for u in updates)
        self.dataChanged.emit(self.index(lo, 0), self.index(hi, self.columnCount() - 1))

    def start_new_prompt_version(self) -> None:
        """Remember current labels so flips under the new prompt can be listed, then clear scores."""
        for row in self.rows:
            if row.cached is not None:
                row.previous_label = row.cached.label
            row.cached = None
            row.baseline = None
        self._changed_all()

    def set_texts_from_column(self, column: str) -> None:
        for row in self.rows:
            if column in row.values:
                row.text = row.values[column].strip()
            row.cached = row.baseline = None
            row.previous_label = None
        self._changed_all()

    def _changed_all(self) -> None:
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, self.columnCount() - 1))


class TicketFilterProxy(QSortFilterProxyModel):
    """Filter by label, a confidence range and agreement; sort on typed keys, not display strings."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.label: str | None = None
        self.max_confidence: float | None = None  # e.g. show only rows below this
        self.only_disagreements = False
        self.text_filter = ""
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(False)

    def set_filters(
        self, label: str | None, max_confidence: float | None, only_disagreements: bool, text: str = ""
    ) -> None:
        self.beginFilterChange()
        self.label, self.max_confidence, self.only_disagreements = label, max_confidence, only_disagreements
        self.text_filter = text.casefold()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent) -> bool:
        row = self.sourceModel().rows[source_row]
        if self.label is not None and (row.cached is None or row.cached.label != self.label):
            return False
        if self.max_confidence is not None and (row.cached is None or row.cached.confidence >= self.max_confidence):
            return False
        if self.only_disagreements and row.agree is not False:
            return False
        return not self.text_filter or self.text_filter in row.text.casefold()
