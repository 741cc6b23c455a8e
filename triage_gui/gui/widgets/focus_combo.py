"""A combo box that the mouse wheel changes only once it has focus.

A plain QComboBox takes every wheel turn over it and emits ``activated`` for the item it lands on, as though
chosen. In the detail pane's scroll area the Teach box is such a box: scrolling the pane down over it taught
the ticket the next label ("Taught 1 ticket 'top-up and cash' (queue)") with nothing chosen (walkthrough W4,
two fields at 1366x768). This one lets an unfocused wheel turn go on to the scroll area under it; a click or
Tab gives it focus, and then the wheel picks as it always did."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QComboBox


class FocusWheelComboBox(QComboBox):
    """See the module docstring."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # (the default WheelFocus gave focus on a wheel turn)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # the parent (the pane's scroll area) scrolls instead
