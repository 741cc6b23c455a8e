"""The ticket text's column picker: one column, or several read together ("subject + body").

A lead's web-shop file had the subject and the body in two columns, and one column was all the picker
offered: the body without its subject ("Re: order 1182" said which order; "it never came" did not).
The last item, *Several columns…*, asks which columns (in their order in the file); the table joins
them with a newline (:data:`engine.table.SEVERAL` names the choice, "subject + body").
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QListWidget, QListWidgetItem, QVBoxLayout

from ...engine.table import SEVERAL, text_parts

CHOOSE_SEVERAL = "Several columns…"


def fill(combo: QComboBox, columns: list[str], text_column: str) -> None:
    """The columns, a choice of several when it is the one in use, and *Several columns…* (two or more)."""
    combo.clear()
    combo.addItems(columns)
    if text_column and text_column not in columns:
        combo.addItem(text_column)
    if len(columns) > 1:
        combo.addItem(CHOOSE_SEVERAL)
    combo.setCurrentText(text_column)
    combo.setToolTip(f"The ticket text: {text_column}" if text_column else "Which column holds the ticket text")


def ask(parent, columns: list[str], current: str) -> str | None:
    """The lead ticks the columns to read together; None: cancelled or fewer than one ticked."""
    dialog = QDialog(parent)
    dialog.setWindowTitle("Ticket text from several columns")
    box = QVBoxLayout(dialog)
    box.addWidget(QLabel("Read these columns together as the ticket text (in this order, one line each):"))
    listed = QListWidget()
    listed.setAccessibleName("Text columns")
    chosen = set(text_parts(current, columns))
    for name in columns:
        item = QListWidgetItem(name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if name in chosen else Qt.CheckState.Unchecked)
        listed.addItem(item)
    box.addWidget(listed)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    box.addWidget(buttons)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    picked = [
        listed.item(i).text() for i in range(listed.count()) if listed.item(i).checkState() == Qt.CheckState.Checked
    ]
    return SEVERAL.join(picked) if picked else None
