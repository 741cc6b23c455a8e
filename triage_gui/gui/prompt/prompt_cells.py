"""The prompt editor's cell editors: an example's label picked from the labels table, and descriptions
and example texts edited in a multi-line box."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QComboBox, QPlainTextEdit, QStyledItemDelegate, QWidget


class LabelChoice(QStyledItemDelegate):
    """Examples pick their label from the labels table."""

    def __init__(self, label_names: Callable[[], list[str]], parent: QWidget) -> None:
        super().__init__(parent)
        self.label_names = label_names

    def createEditor(self, parent, option, index):
        box = QComboBox(parent)
        box.addItems([n for n in self.label_names() if n.strip()])
        return box

    def setEditorData(self, editor: QWidget, index) -> None:
        if isinstance(editor, QComboBox):
            editor.setCurrentText(index.data() or "")

    def setModelData(self, editor: QWidget, model, index) -> None:
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText())


class TabOn(QStyledItemDelegate):
    """Tab and Shift+Tab in a cell's editor commit it and call ``on_tab(backward)`` (the labels table
    moves to the next cell like a spreadsheet; Qt's own Tab left the table: the next keys added a
    few-shot example and opened the Import dialog). Without ``on_tab``, Qt's Tab."""

    on_tab: Callable[[bool], None] | None = None

    def eventFilter(self, editor, event) -> bool:
        on_tab = self.on_tab
        tab = event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab)
        if on_tab is not None and tab:
            self.commitData.emit(editor)
            self.closeEditor.emit(editor, QStyledItemDelegate.EndEditHint.NoHint)
            backward = event.key() == Qt.Key.Key_Backtab or bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            QTimer.singleShot(0, lambda: on_tab(backward))
            return True
        return super().eventFilter(editor, event)


class MultiLine(TabOn):
    """Descriptions and example texts edit in a multi-line box: Enter commits as in any other cell (a
    lead pressed Enter and saw nothing happen: Qt hands Enter to a text editor as a new line), Shift+Enter
    starts a new line, Escape cancels, leaving the cell commits."""

    def eventFilter(self, editor, event) -> bool:
        if isinstance(editor, QPlainTextEdit) and event.type() == QEvent.Type.KeyPress:
            shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not shift:
                self.commitData.emit(editor)
                self.closeEditor.emit(editor, QStyledItemDelegate.EndEditHint.NoHint)
                return True
        return super().eventFilter(editor, event)

    def createEditor(self, parent, option, index):
        editor = QPlainTextEdit(parent)
        editor.setTabChangesFocus(True)
        editor.setMinimumHeight(60)
        return editor

    select_all = False  # the next editor opened holds its text selected (Tab into the cell: typing replaces it)

    def setEditorData(self, editor: QWidget, index) -> None:
        if isinstance(editor, QPlainTextEdit):
            editor.setPlainText(index.data() or "")
            if self.select_all:
                editor.selectAll()
            else:  # opened to edit (a double-click, F2): the cursor at the end, to add to it
                editor.moveCursor(QTextCursor.MoveOperation.End)
            self.select_all = False

    def setModelData(self, editor: QWidget, model, index) -> None:
        if isinstance(editor, QPlainTextEdit):
            model.setData(index, editor.toPlainText().strip())

    def updateEditorGeometry(self, editor, option, index) -> None:
        rect = option.rect
        rect.setHeight(max(rect.height(), 64))
        editor.setGeometry(rect)
