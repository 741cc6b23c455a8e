"""The ticket table's column widths: each narrow column at least as wide as its title, a label column as wide as
its field's longest label name (up to LABEL_MAX), the Ticket column over the spare width but never narrower than
TICKET_MIN (with the baseline and gold columns on a 1024 px screen the table scrolls sideways rather than
squeezing the ticket text to a few letters)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QAbstractItemDelegate, QHeaderView, QStyle, QTableView

from .ticket_model import Col, TicketTableModel

TICKET_MIN = 180  # px: some 25 characters of the ticket
TITLE_MAX = 200  # px: a long gold column name is elided past this
# Least widths: a label name with its mark (⚠, ✓); a gold value; "learned". The gold column is a little
# narrower, so that at 1024 px the table, gold column included, fits without scrolling sideways.
FLOORS = {Col.LABEL: 130, Col.BASELINE_LABEL: 130, Col.GOLD: 110, Col.FROM: 72}
# A label column's most: a name up to some 26 letters shown whole ("payments and transfers" with its ✓ was cut
# to "✓ payments and t…" at 130 px, W17); a longer one is elided, whole in its tooltip and the detail pane.
LABEL_MAX = 220
CELL_MARGIN = 12  # px: the cell's padding either side of its text


def title_margin(header: QHeaderView) -> int:
    """Room a section needs beside its title: the style's margins and a sort arrow (any column may be the
    sorted one)."""
    style = header.style()
    margin = 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin) + 4
    return margin + style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize)


def size_columns(table: QTableView, model: TicketTableModel, picker: QAbstractItemDelegate | None = None) -> None:
    """Every column's width; with a ``picker``, it edits every label column (each field's) and no other."""
    if picker is not None:
        for i in range(model.columnCount()):
            table.setItemDelegateForColumn(i, picker if i in model.label_columns() else None)  # type: ignore[arg-type]
    header = table.horizontalHeader()
    metrics, margin = header.fontMetrics(), title_margin(header)
    labels = set(model.label_columns())
    for i, column in enumerate(model.column_ids()):  # by role, never by the title shown
        if column == Col.TICKET:
            continue
        header.setSectionResizeMode(i, QHeaderView.ResizeMode.Interactive)
        role = column if isinstance(column, Col) else Col.GOLD if column.gold else Col.FROM if column.source else None
        floor = FLOORS.get(role or Col.LABEL, 78)
        if i in labels:
            floor = max(floor, longest_label(table, model.labels_of(model.field_of(i))))
        header.resizeSection(i, max(floor, min(TITLE_MAX, metrics.horizontalAdvance(model.title(column)) + margin)))
    fit_ticket_column(table, model)


def longest_label(table: QTableView, names: list[str]) -> int:
    """The width a label column needs for its longest name, marked as taught ("✓ ", in bold), up to LABEL_MAX."""
    font = QFont(table.font())
    font.setBold(True)
    metrics = QFontMetrics(font)
    widest = max((metrics.horizontalAdvance(f"✓ {name}") for name in names), default=0)
    return min(LABEL_MAX, widest + CELL_MARGIN)


def fit_ticket_column(table: QTableView, model: TicketTableModel) -> None:
    """Stretch the Ticket column where the others leave it TICKET_MIN, else hold it at TICKET_MIN; called
    again whenever the table's width changes."""
    column = model.column_index(Col.TICKET)
    header = table.horizontalHeader()
    if column < 0 or column >= header.count():
        return
    others = sum(header.sectionSize(i) for i in range(header.count()) if i != column)
    if table.viewport().width() - others >= TICKET_MIN:
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
    else:
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(column, TICKET_MIN)
