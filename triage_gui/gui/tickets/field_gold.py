"""The gold columns' combos in the filter bar: the first field's *Gold:* (the ticket area's, which emits its own
choice) and, for a prompt with several fields (a queue and a priority), one "Gold (priority):" combo per further
field beside it, hidden for a one-field prompt. Each combo offers the file's columns (the ticket text never),
"(none)" first; choosing a further field's emits the field and the column, found or chosen as the first field's
is (``session.evaluation``). With several fields the first's is named too ("Gold (queue):"): a bare "Gold:" beside
"Gold (priority):" said whose only by the column it showed, and after a field moved first it was the other's
(walkthrough W4)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

NO_GOLD = "(none)"


class FieldGold(QWidget):
    chosen = Signal(int, object)  # the field (1: the second), the column name or None

    def __init__(self, first: QComboBox, parent=None) -> None:
        super().__init__(parent)
        self.first = first  # the first field's
        self.first_label: QLabel | None = None  # its name in the bar, "Gold:" (the ticket area's)
        first.addItem(NO_GOLD)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.names: list[str] = []
        self.combos: list[QComboBox] = []
        self.columns: list[str] = []
        self.hide()

    def set_fields(self, names: list[str]) -> None:
        """Every field's name, the first's first ([] for a one-field prompt): a combo per further field."""
        further = list(names[1:])
        if self.first_label is not None:
            self.first_label.setText(f"Gold ({names[0]}):" if further else "Gold:")
        if further == self.names:
            return
        shown = {name: combo.currentText() for name, combo in zip(self.names, self.combos, strict=True)}
        while self.row.count():
            item = self.row.takeAt(0)
            if item is not None and (widget := item.widget()) is not None:
                widget.deleteLater()
        self.names, self.combos = further, []
        for index, name in enumerate(further, 1):
            combo = QComboBox()
            combo.setAccessibleName(f"Gold label column of {name}")
            combo.setToolTip(f"A column of correct {name} labels, to measure the {name}'s accuracy against")
            combo.setMinimumContentsLength(8)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            label = QLabel(f"Gold ({name}):")
            label.setBuddy(combo)
            self.row.addWidget(label)
            self.row.addWidget(combo)
            self.combos.append(combo)
            self._fill(combo, shown.get(name, NO_GOLD))
            combo.activated.connect(lambda _, i=index, c=combo: self._activated(i, c))
        self.setVisible(bool(further))

    def set_columns(self, columns: list[str], first: str | None) -> None:
        """The columns a gold column can be (the ticket text's left out), the first field's in use (None: none);
        each further field's combo keeps its choice."""
        self.columns = list(columns)
        self._fill(self.first, first or NO_GOLD)
        for combo in self.combos:
            self._fill(combo, combo.currentText())

    def show_gold(self, field: int, column: str | None) -> None:
        """Field ``field``'s gold column in use (None: none; 0: the first field's), as the lead's choice shows it."""
        if not field:
            self.first.setCurrentText(column or NO_GOLD)
        elif field <= len(self.combos):
            self.combos[field - 1].setCurrentText(column or NO_GOLD)

    def _fill(self, combo: QComboBox, current: str) -> None:
        combo.clear()
        combo.addItems([NO_GOLD, *self.columns])
        combo.setCurrentText(current if current in self.columns else NO_GOLD)

    def _activated(self, field: int, combo: QComboBox) -> None:
        text = combo.currentText()
        self.chosen.emit(field, None if text in ("", NO_GOLD) else text)
