"""The ticket table: a QAbstractTableModel over the session's TicketTable, and its filter proxy.

The model holds no ticket data of its own: every cell reads the columnar table, so it can never show
a label the session no longer has. The label cell is editable (a combo of the prompt's labels):
setting it teaches the ticket; the model only forwards that intent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from ...defaults import LOW_CONFIDENCE
from ...engine.table import NONE, Decision, TicketTable, decide, language_name
from ...session.gold import FAR_MARK, Far, far_words
from .label_colors import is_dark, label_color, label_slot

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
NOT_TAUGHT = "(not taught)"
Index = QModelIndex | QPersistentModelIndex


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


@dataclass(frozen=True)
class FieldCol:
    """A column of a field after the first (a prompt with several fields): its label or where it came from."""

    index: int  # 1: the second field
    name: str
    source: bool = False  # the "From" column, else the label
    gold: bool = False  # the field's gold column (its values), else the label
    label = property(lambda self: not (self.source or self.gold))  # the field's label column (teaching edits it)


Column = Col | FieldCol
FieldTables = Callable[[int], "TicketTable | None"]  # field index -> its table (0: the first field's)
FieldDecisions = Callable[[int, int, float], "Decision | None"]  # (field, row, low confidence) -> its decision

TITLES = {
    Col.TICKET: "Ticket", Col.LABEL: "Label", Col.FROM: "From", Col.CONFIDENCE: "Confidence",
    Col.LATENCY: "Latency ms", Col.BASELINE_LABEL: "Baseline label", Col.BASELINE_MS: "Baseline ms",
    Col.AGREE: "Agree", Col.LANGUAGE: "Language",
}  # fmt: skip
TEXT_HELP = {
    Col.LABEL: "The label: taught (✓) by you, learned from what you taught, or from the prompt. "
    "Double-click or press 1-9 (0: the tenth label) to teach; Enter accepts the shown label.",
    Col.FROM: "Where the label came from: first pass (the taught classifier, before the language model has read "
    "the ticket or while its reading is not used for labels), learned (the classifier with the language model's "
    "view), prompt, or taught (you).",
    Col.CONFIDENCE: "Probability of the label, from where it came from (taught: 1).",
    Col.LATENCY: "Time to label this ticket: for a batch, the batch's wall time divided by its size.",
    Col.BASELINE_LABEL: "The label from re-encoding the whole prompt for this ticket (the slow, plain path).",
    Col.AGREE: "Whether the fast path and the baseline give the same label.",
    Col.LANGUAGE: "The ticket's language, detected on this computer (empty: too short to tell, or unsure).",
}


class TicketTableModel(QAbstractTableModel):
    BASE_COLUMNS = [Col.TICKET, Col.LABEL, Col.FROM, Col.CONFIDENCE, Col.LATENCY, Col.LANGUAGE]
    BASELINE_COLUMNS = [Col.BASELINE_LABEL, Col.BASELINE_MS, Col.AGREE]

    def __init__(self, table: TicketTable, teach: Callable[[list[int], str | None], None], parent=None) -> None:
        super().__init__(parent)
        self.table = table
        self.teach = teach
        self.field_names: list[str] = []  # a prompt with several fields: each field's name, else []
        self.field_table: FieldTables = lambda index: None
        self.field_decisions: FieldDecisions = lambda index, row, low: None
        self.teach_field: Callable[[int, list[int], str | None], None] = lambda index, rows, label: None
        self.show_baseline = False
        self.gold_column: str | None = None
        self.field_gold: dict[int, str] = {}  # a further field -> its gold column
        # (field, row) -> the row's label two or more steps from its taught or gold one, in an ordered field
        self.far: Callable[[int, int], Far | None] = lambda field, row: None
        self.low_confidence = LOW_CONFIDENCE
        self._columns = self._make_columns()

    # --------------------------------------------------------------- structure

    def _make_columns(self) -> list[Column]:
        cols: list[Column] = list(self.BASE_COLUMNS)
        at = cols.index(Col.FROM) + 1  # each further field's label and source after the first field's
        for i, name in enumerate(self.field_names[1:], 1):
            cols[at:at] = [FieldCol(i, name), FieldCol(i, name, True)]
            at += 2
        if self.show_baseline:
            cols += self.BASELINE_COLUMNS
        if self.gold_column:
            cols.append(Col.GOLD)
        cols += [FieldCol(i, name, gold=True) for i, name in enumerate(self.field_names[1:], 1) if i in self.field_gold]
        return cols

    def column_ids(self) -> list[Column]:
        return list(self._columns)

    def column_index(self, column: Column) -> int:
        """Where the column of this role is now (-1: not shown)."""
        return self._columns.index(column) if column in self._columns else -1

    def title(self, column: Column) -> str:
        """With several fields, each source column and the one Confidence column name their field: two columns
        titled "From", and a confidence beside the priority that was the queue's, read as the priority's (seen
        in a real-window walkthrough)."""
        if isinstance(column, FieldCol):
            if column.gold:
                return f"Gold ({self.field_gold.get(column.index, '')})"
            return f"{TITLES[Col.FROM]} ({column.name})" if column.source else column.name
        if self.field_names and column in (Col.LABEL, Col.FROM, Col.CONFIDENCE):
            first = self.field_names[0]
            return first if column == Col.LABEL else f"{TITLES[column]} ({first})"
        return f"Gold ({self.gold_column})" if column == Col.GOLD else TITLES[column]

    def label_columns(self) -> list[int]:
        """Where the label columns are (the first field's, then each further field's): the picker edits them."""
        return [i for i, c in enumerate(self._columns) if c == Col.LABEL or (isinstance(c, FieldCol) and c.label)]

    def field_of(self, column: int) -> int:
        """The field whose label or source the column at this position shows (0: the first's, or none)."""
        found = self._columns[column] if 0 <= column < len(self._columns) else None
        return found.index if isinstance(found, FieldCol) else 0

    def set_fields(self, names: list[str], tables: FieldTables, decisions: FieldDecisions) -> None:
        """A prompt with several fields: one label and one source column per field (the first field's are
        Label and From, titled by its name); [] for a one-field prompt, which looks as it always has."""
        self.field_table, self.field_decisions = tables, decisions
        if names != self.field_names:
            self.field_names = list(names)
            self.reset()

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
                if isinstance(name, FieldCol) and name.gold:
                    return f"The {name.name}'s correct labels, to measure its accuracy against"
                if isinstance(name, FieldCol):
                    return TEXT_HELP[Col.FROM if name.source else Col.LABEL].replace("The label", f"The {name.name}")
                return TEXT_HELP.get(name)
        elif orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return str(section + 1)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        column = self._columns[index.column()] if index.isValid() else None
        labels = column == Col.LABEL or (isinstance(column, FieldCol) and column.label)
        if labels and index.row() not in self.table.problems:
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    # -------------------------------------------------------------------- data

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self.table):
            return None
        row, name = index.row(), self._columns[index.column()]
        if isinstance(name, FieldCol):
            return self._field_data(row, name, role)
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
        column = self._columns[index.column()]
        field = column.index if isinstance(column, FieldCol) and column.label else 0
        if role != Qt.ItemDataRole.EditRole or (column != Col.LABEL and not field):
            return False
        label = None if value in ("", NOT_TAUGHT, None) else str(value)
        if label is not None and label not in self.labels_of(field):
            return False
        if field:
            self.teach_field(field, [index.row()], label)
        else:
            self.teach([index.row()], label)
        return True

    def labels_of(self, field: int) -> list[str]:
        """The labels of field ``field`` (0: the first field's, the table's)."""
        table = self.field_table(field) if field else self.table
        return list(table.labels) if table is not None else []

    def field_decision(self, field: int, row: int) -> Decision | None:
        """Field ``field``'s label and marks for the row (None: not labelled yet), its teaching shown at once."""
        return self.field_decisions(field, row, self.low_confidence)

    def _field_data(self, row: int, column: FieldCol, role: int):
        """A further field's cells: as the first field's Label and From, read from that field's table; its gold
        column's from the file."""
        if column.gold:
            value = self.table.value(row, self.field_gold.get(column.index, ""))
            return value if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, SORT_ROLE) else None
        d = self.field_decision(column.index, row)
        if d is None or d.label is None:
            return "" if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, SORT_ROLE) else None
        if role == Qt.ItemDataRole.DisplayRole:
            if column.source:
                return d.source.shown
            far = FAR_MARK if self.far(column.index, row) else ""
            return f"{far}✓ {d.label}" if d.taught else f"{far}{'⚠ ' if d.low_confidence else ''}{d.label}"
        if role in (Qt.ItemDataRole.EditRole, SORT_ROLE):
            return d.source.shown if column.source else d.label
        table = self.field_table(column.index)
        if role == Qt.ItemDataRole.BackgroundRole and not column.source and table is not None:
            return label_color(label_slot(d.label, table.labels), is_dark())
        if role == Qt.ItemDataRole.FontRole and not column.source:
            font = QFont()
            font.setBold(d.taught)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and table is not None:
            probs = table.label_probs(row)
            lines = [] if probs is None else [f"{label}: {p:.3f}" for label, p in zip(table.labels, probs)]
            mark = far_words(self.far(column.index, row))
            return "\n".join([*mark, f"{column.name} from: {d.source.shown}", *lines])
        return None

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
            far = FAR_MARK if self.far(0, row) else ""
            if d.taught:
                return f"{far}✓ {d.label}"
            mark = "⚠ " if d.low_confidence else ""
            return f"{far}{mark}{d.label}{' …' if d.stale else ''}"
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
            far = far_words(self.far(0, row)) if name == Col.LABEL else []
            if probs is not None:
                lines = [f"{label}: {p:.3f}" for label, p in zip(table.labels, probs)]
                return "\n".join([*far, f"From: {d.source.shown}", *lines])
            if far:
                return far[0]
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

    def set_field_gold(self, columns: dict[int, str]) -> None:
        """The further fields' gold columns shown: field index (1: the second) -> column; {}: none."""
        if columns != self.field_gold:
            self.field_gold = dict(columns)
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
