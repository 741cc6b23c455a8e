"""The ticket table's view: the keys that teach (1-9 and 0, Enter, Delete, N) and Ctrl+C as TSV."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QApplication, QTableView

from .ticket_model import TicketFilterProxy, TicketTableModel


class TicketView(QTableView):
    """Keys 1-9 teach the n-th label to the selected rows (0 the tenth), Enter accepts the shown label, Delete undoes a
    teaching, Ctrl+C copies the selected rows as TSV with a header."""

    teach_keys = Signal(list, object)  # source rows, label or None
    accept_keys = Signal(list)
    next_key = Signal()  # N: the next ticket to teach
    last_column = -1  # the current cell's column, kept while there is none (a sample's last answer, W15)

    def currentChanged(
        self, current: QModelIndex | QPersistentModelIndex, previous: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().currentChanged(current, previous)
        if current.isValid():
            self.last_column = current.column()

    def keep_cell_through_resets(self, model: TicketTableModel) -> None:
        """The current cell's ticket and column (by its role) stay current through a reset of ``model`` (a Save's
        new version): the field in use, and the *To check* list that follows it (the priority's sample became the
        queue's, none, and the table went empty after a Save)."""
        kept: list = []

        def keep() -> None:
            proxy, current = self.model(), self.currentIndex()
            assert isinstance(proxy, TicketFilterProxy)
            source = proxy.mapToSource(current)
            kept[:] = [(source.row(), model.column_ids()[source.column()])] if source.isValid() else []

        def restore() -> None:
            proxy = self.model()
            assert isinstance(proxy, TicketFilterProxy)
            if kept and (column := model.column_index(kept[0][1])) >= 0:
                index = proxy.mapFromSource(model.index(kept[0][0], column))
                if index.isValid():
                    flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
                    self.selectionModel().setCurrentIndex(index, flags)

        model.modelAboutToBeReset.connect(keep)
        model.modelReset.connect(restore)

    def selected_rows(self) -> list[int]:
        proxy = self.model()
        assert isinstance(proxy, TicketFilterProxy)
        rows = {proxy.mapToSource(i).row() for i in self.selectionModel().selectedRows()}
        return sorted(rows)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        rows = self.selected_rows()
        key = event.key()
        if rows and event.modifiers() in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier):
            if Qt.Key.Key_0 <= key <= Qt.Key.Key_9:  # 1-9, and 0 the tenth label
                self.teach_keys.emit(rows, label_slot_of_key(int(key - Qt.Key.Key_0)))
                return
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._accepts_enter(event):
                self.accept_keys.emit(rows)
                return
            if key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
                self.teach_keys.emit(rows, None)
                return
        if key == Qt.Key.Key_N and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            self.next_key.emit()
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_rows()
            return
        super().keyPressEvent(event)

    def _accepts_enter(self, event: QKeyEvent) -> bool:
        """Enter teaches only when pressed in the table itself: focused, in the active window with no
        dialog over it, and not the auto-repeat of an Enter that closed a dialog (the F1 guide's Enter
        taught the selected ticket), nor while a label is being picked."""
        editing = self.state() == QAbstractItemView.State.EditingState
        alone = QApplication.activeModalWidget() is None and self.isActiveWindow()
        return self.hasFocus() and alone and not editing and not event.isAutoRepeat()

    def copy_rows(self) -> str:
        model = self.model()
        columns = range(model.columnCount())
        lines = ["\t".join(str(model.headerData(c, Qt.Orientation.Horizontal)) for c in columns)]
        indexes = sorted(self.selectionModel().selectedRows(), key=QModelIndex.row)
        for index in indexes:
            cells = [str(model.index(index.row(), c).data() or "") for c in columns]
            lines.append("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in cells))
        text = "\n".join(lines) + "\n"
        QGuiApplication.clipboard().setText(text)
        return text


def label_slot_of_key(digit: int) -> int:
    """The label a digit key teaches: 1-9 the first nine, 0 the tenth (a prompt of 10 or more labels had
    keys for nine; the picker selects any label by typing its name)."""
    return 9 if digit == 0 else digit - 1


def key_of_label_slot(slot: int) -> str:
    """The digit that teaches the label at ``slot`` ("" past the tenth)."""
    return str(slot + 1) if slot < 9 else "0" if slot == 9 else ""
