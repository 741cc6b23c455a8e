"""The filter bar at a small height: its check boxes (*Low confidence below*, *Disagrees with baseline*, *Wrong
against gold*, *Taught*, *Teach next*, *To check*) go behind one *Filters* button, so the ticket table keeps
its rows (at 1024x640 with two fields it showed 3½ under four rows of filters: two of them were these boxes).
The button says how many of them are on ("Filters (1 on)") and its tooltip which; the boxes are the same
widgets wherever they are, so the window, the keys and the tests read and click them alike."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QCheckBox, QMenu, QToolButton, QVBoxLayout, QWidget, QWidgetAction

from ..widgets.flow_layout import FlowLayout

COMPACT_BELOW = 340  # px of the ticket area's height: below it the check boxes go behind the button


class CompactFilters:
    def __init__(
        self, flow: FlowLayout, widgets: Sequence[QWidget], after: Sequence[QWidget], boxes: Sequence[QCheckBox]
    ) -> None:
        """``widgets``: what goes behind the button (in the bar's order), ``after``: what follows them in the bar,
        ``boxes``: the check boxes counted on the button."""
        self.flow, self.widgets, self.after, self.boxes = flow, list(widgets), list(after), list(boxes)
        self.button = QToolButton()
        self.button.setAccessibleName("More filters")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.button)
        self.holder = QWidget()
        self.holder_box = QVBoxLayout(self.holder)
        action = QWidgetAction(menu)
        action.setDefaultWidget(self.holder)
        menu.addAction(action)
        self.button.setMenu(menu)
        self.button.hide()
        self.compact = False
        for box in self.boxes:
            box.toggled.connect(self.count)
        self.count()

    def fit(self, height: int) -> None:
        """The ticket area is ``height`` px tall: the boxes in the bar, or behind the button below COMPACT_BELOW."""
        compact = 0 < height < COMPACT_BELOW
        if compact == self.compact:
            return
        self.compact = compact
        shown = [not w.isHidden() for w in self.after]  # (the confusion-matrix chip is hidden until a cell is)
        for widget in (*self.widgets, self.button, *self.after):
            self.flow.removeWidget(widget)
        for widget in self.widgets:
            (self.holder_box if compact else self.flow).addWidget(widget)
            widget.show()
        if compact:
            self.flow.addWidget(self.button)
        for widget, visible in zip(self.after, shown, strict=True):
            self.flow.addWidget(widget)
            widget.setVisible(visible)
        self.button.setVisible(compact)

    def count(self) -> None:
        """The button says how many boxes are on; called on each box's toggle and by whoever sets them with their
        signals blocked (``TicketArea.reset_filters``: *Show all* left "Filters (1 on)" with every box off)."""
        on = [box.text() for box in self.boxes if box.isChecked()]
        self.button.setText(f"Filters ({len(on)} on)" if on else "Filters")  # (the button draws its own arrow)
        self.button.setToolTip("On: " + ", ".join(on) if on else "More filters: low confidence, taught, to check…")
