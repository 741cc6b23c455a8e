"""The label picker: double-click (or F2 on) a ticket's label and pick the right one from a list.

Only a pick teaches. Before, the picker was a plain combo committed by the delegate whenever it closed:
Escape (or a click outside the list) left the shown label in the combo and leaving the cell taught it,
so cancelling confirmed the label. Now the editor closes without writing unless an item was activated.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemDelegate, QComboBox, QListView, QStyledItemDelegate, QWidget

from ...engine.table import TicketTable, decide
from .ticket_model import NOT_TAUGHT
from .ticket_view import key_of_label_slot


class TypeToSelect(QListView):
    """The picker's list: a digit selects the label with that key (0 the tenth), letters select the first
    label whose name starts with what was typed (typed within a second: "re" → refund), Enter picks it.
    Qt's own type-ahead matched the shown text, which starts with the key: labels past the ninth had
    no key at all."""

    def __init__(self) -> None:
        super().__init__()
        self._typed, self._at = "", 0.0

    def keyboardSearch(self, search: str) -> None:
        model = self.model()
        if search.isdigit() and len(search) == 1:
            slot = int(search) - 1 if search != "0" else 9
            if 0 <= slot < model.rowCount() - 1:  # the last item is "not taught"
                self.setCurrentIndex(model.index(slot, 0))
            return
        now = time.monotonic()
        self._typed = (self._typed if now - self._at < 1.0 else "") + search.lower()
        self._at = now
        for row in range(model.rowCount()):
            name = str(model.index(row, 0).data(Qt.ItemDataRole.UserRole) or "")
            if name.lower().startswith(self._typed):
                self.setCurrentIndex(model.index(row, 0))
                return


class LabelPicker(QComboBox):
    """A combo that says when its list closes (``dismissed``) and remembers whether an item was picked."""

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chosen = False  # an item was activated: only then is the label written
        self.primed = False  # filled and opened once: a refit repainting the row must not reopen it
        self.setView(TypeToSelect())

    def hidePopup(self) -> None:
        super().hidePopup()
        self.dismissed.emit()

    def keyPressEvent(self, event) -> None:
        """Escape on the closed combo (where a window manager hands it once the list is gone) leaves too:
        in a walkthrough one Escape closed the list and a second was needed to leave the cell."""
        if event.key() == Qt.Key.Key_Escape:
            self.dismissed.emit()
            return
        super().keyPressEvent(event)


class LabelDelegate(QStyledItemDelegate):
    """The label cell edits as a picker of the prompt's labels (and "not taught" to undo a teaching)."""

    def __init__(self, table: TicketTable, parent=None) -> None:
        super().__init__(parent)
        self.table = table

    def _field(self, index) -> tuple[list[str], str | None]:
        """The labels of the field whose column ``index`` is in, and the label it shows on that row (a prompt
        with several fields: each label column picks from its own field's labels)."""
        from PySide6.QtCore import QSortFilterProxyModel

        from .ticket_model import TicketTableModel

        model, source = index.model(), index
        if isinstance(model, QSortFilterProxyModel):
            source = model.mapToSource(index)
            model = model.sourceModel()
        field = model.field_of(source.column()) if isinstance(model, TicketTableModel) else 0
        if field and isinstance(model, TicketTableModel):
            d = model.field_decision(field, source.row())
            return model.labels_of(field), None if d is None else d.label
        return list(self.table.labels), decide(self.table, source.row()).label

    def createEditor(self, parent, option, index):
        box = LabelPicker(parent)
        labels, _ = self._field(index)
        for i, name in enumerate(labels):  # the key that teaches it in the table: 1-9, 0 (and typed here)
            box.addItem(f"{key_of_label_slot(i) or ' '}  {name}", name)
        box.addItem(NOT_TAUGHT, NOT_TAUGHT)
        box.setAccessibleName("Teach label")
        box.activated.connect(lambda _i, b=box: self._picked(b))
        # The list closes before ``activated`` fires: decide once that has had its turn.
        box.dismissed.connect(lambda b=box: QTimer.singleShot(0, b, lambda: self._dismissed(b)))
        return box

    def setEditorData(self, editor: QWidget, index) -> None:
        if isinstance(editor, LabelPicker) and not editor.primed:
            editor.primed = True
            # The list opens with its first item over the cell, wherever the current label is (a fixed
            # click missed when the list opened around the current label); the current one is selected.
            editor.setCurrentIndex(0)
            editor.showPopup()
            current = editor.findData(self._field(index)[1] or "")
            editor.view().setCurrentIndex(editor.model().index(max(current, 0), 0))

    def setModelData(self, editor: QWidget, model, index) -> None:
        if isinstance(editor, LabelPicker) and editor.chosen:
            model.setData(index, editor.currentData())

    def _picked(self, box: LabelPicker) -> None:
        box.chosen = True
        self.commitData.emit(box)
        self.closeEditor.emit(box, QAbstractItemDelegate.EndEditHint.NoHint)

    def _dismissed(self, box: LabelPicker) -> None:
        if not box.chosen:  # Escape, or a click outside the list: cancel, teach nothing
            self.closeEditor.emit(box, QAbstractItemDelegate.EndEditHint.RevertModelCache)
