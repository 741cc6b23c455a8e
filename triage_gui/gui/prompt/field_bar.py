"""The prompt editor's field selector (a prompt with several fields: a queue and a priority): which field's
instruction, labels and examples the editor shows, and Add, Rename, Remove and Move (left or right) a field. Hidden
for a one-field prompt, which looks as it always has (Edit > Add a field… adds its second)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QWidget,
)

from ...session.field_order import FIRST_FIELD
from ..widgets.flow_layout import FlowLayout

ASK_NAME = "Field name (a queue, a priority…):"


class FieldBar(QWidget):
    """See the module docstring; the editor owns the fields and answers the signals (each edit undoable)."""

    chosen = Signal(int)  # the field to show
    added = Signal(str)  # the new field's name
    renamed = Signal(str)  # the shown field's new name
    removed = Signal()  # the shown field
    moved = Signal(int)  # the shown field, one place left (-1) or right (1)
    ordered_set = Signal(bool)  # the shown field's labels in order (low < medium < high), or not

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("<b>Field</b>")
        self.combo = QComboBox()
        self.combo.setAccessibleName("Field")
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.combo.setToolTip("Which field's instruction, labels and examples you edit (a queue, a priority…)")
        self.combo.currentIndexChanged.connect(self.chosen)
        self.add_button = QPushButton("Add field…")
        self.add_button.setToolTip("Another decision per ticket, with its own instruction and labels")
        self.add_button.clicked.connect(self.ask_add)
        self.rename_button = QPushButton("Rename…")
        self.rename_button.clicked.connect(lambda: self._ask(self.renamed, "Rename field", self.combo.currentText()))
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove this field from the prompt (Ctrl+Z brings it back)")
        self.remove_button.clicked.connect(self.removed)
        # One "Move" button with a menu, after the field's other actions: ◀ ▶ beside the selector read as
        # "previous / next field" (a walkthrough), and two worded buttons do not fit the bar at 1024 px.
        self.move_button = QToolButton()
        self.move_button.setText("Move")
        self.move_button.setAccessibleName("Move field")
        self.move_button.setToolTip("Move this field left or right: the first field is the main one, its column first")
        self.move_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.move_button)
        self.left_action = menu.addAction("Move left (first field: the main one, its column first)")
        self.left_action.triggered.connect(lambda: self.moved.emit(-1))
        self.right_action = menu.addAction("Move right")
        self.right_action.triggered.connect(lambda: self.moved.emit(1))
        self.move_button.setMenu(menu)
        # Shown in the Labels header (the editor puts it there): the bar has no room left at 1024 px (W14: a
        # priority built in the window never counted its labels two steps off; only the file's "ordered" did).
        self.ordered_box = QCheckBox("in order")
        self.ordered_box.setToolTip(
            "This field's labels are in an order, first to last (low < medium < high): the Accuracy tab counts "
            "the labels two or more steps from their gold one, and the table marks them ‼"
        )
        self.ordered_box.clicked.connect(self.ordered_set)
        pick = QWidget()  # "Field" and its selector, on one line
        pair = QHBoxLayout(pick)
        pair.setContentsMargins(0, 0, 0, 0)
        pair.addWidget(self.title)
        pair.addWidget(self.combo)
        # Wrapped where the editor is narrow: in one row the bar was 426 px at its narrowest, and at 1024x640 the
        # editor took 444 px for it (303 with one field), the tickets a fifth less, the ticket text scrolled away
        # in the priority's column (W15).
        row = FlowLayout(self)
        for widget in (pick, self.add_button, self.rename_button, self.remove_button, self.move_button):
            row.addWidget(widget)
        self.show_fields([], 0)

    def show_fields(self, names: list[str], current: int, ordered: Sequence[bool] = ()) -> None:
        """The fields by name and the one shown ([]: a one-field prompt: the bar hides), and which are in order."""
        with QSignalBlocker(self.ordered_box):
            self.ordered_box.setChecked(current < len(ordered) and ordered[current])
        self.ordered_box.setVisible(len(names) > 1)
        with QSignalBlocker(self.combo):
            self.combo.clear()
            self.combo.addItems(names)
            self.combo.setCurrentIndex(current if names else -1)
        # As wide as the longest name (up to 16 letters): it kept the width of the first names ("queue",
        # "priority"), and a field added later read "sentime" at 1366 and 1024 px (W11).
        self.combo.setMinimumWidth(0)
        widest = min(self.combo.sizeHint().width(), self.combo.fontMetrics().horizontalAdvance("m" * 16))
        self.combo.setMinimumWidth(widest)
        self.left_action.setEnabled(current > 0)
        self.right_action.setEnabled(0 <= current < len(names) - 1)
        self.setVisible(len(names) > 1)

    def ask_add(self) -> None:
        """The new field's name; a one-field prompt's first addition says what its labels become (W15: the lead
        typed "priority" and the labels already there became a field called "field 1", said nowhere)."""
        first = f"The labels you have become the field '{FIRST_FIELD}' (Rename… names it).\n"
        first = "" if self.combo.count() else first
        self._ask(self.added, "Add field", "", first + ASK_NAME)

    def _ask(self, signal, title: str, name: str, question: str = ASK_NAME) -> None:
        text, ok = QInputDialog.getText(self, title, question, text=name)
        if ok and text.strip():
            signal.emit(text.strip())
