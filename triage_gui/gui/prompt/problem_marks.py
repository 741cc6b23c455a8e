"""The prompt editor's marks on what a Save refused: the instruction's border and the offending label or example
cell tinted, each named by the problem's field ("labels[2].description"); nothing the lead typed is changed."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QPlainTextEdit, QTableWidget

from ...engine.prompt import Problem

ERROR_BRUSH = QBrush(QColor(230, 60, 60, 90))


def clear_marks(instruction: QPlainTextEdit, labels: QTableWidget, examples: QTableWidget) -> None:
    instruction.setStyleSheet("")
    # A mark cleared is no edit: unblocked, each cell's itemChanged re-read the whole prompt and hashed it
    # twice (Use as labels with 24 suggested groups, 138 cells: 240-450 ms on the GUI thread).
    with QSignalBlocker(labels), QSignalBlocker(examples):
        for table in (labels, examples):
            for r in range(table.rowCount()):
                for c in range(table.columnCount()):
                    item = table.item(r, c)
                    if item is not None:
                        item.setData(Qt.ItemDataRole.BackgroundRole, None)


def mark_problems(
    problems: Sequence[Problem], instruction: QPlainTextEdit, labels: QTableWidget, examples: QTableWidget
) -> None:
    with QSignalBlocker(labels), QSignalBlocker(examples):
        for problem in problems:
            _mark(problem.field, instruction, labels, examples)


def _mark(field: str, instruction: QPlainTextEdit, labels: QTableWidget, examples: QTableWidget) -> None:
    if field == "instruction":
        instruction.setStyleSheet("QPlainTextEdit { border: 2px solid #d23c3c; }")
        return
    for prefix, table in (("labels", labels), ("examples", examples)):
        if not field.startswith(prefix + "["):
            continue
        row = int(field[len(prefix) + 1 : field.index("]")])
        column = 1 if field.endswith((".label", ".description")) else 0
        item = table.item(row, column)
        if item is not None:
            item.setBackground(ERROR_BRUSH)
