"""A one-line label that gives up width gracefully instead of pushing its neighbours out.

Walking the window at 1366×768 showed two places where a long line took space that was not its own: the run
bar's "2,000 labelled by the classifier · language model 79 / 2,000 · 5.4 tickets/s · 5 min left" squeezed
the progress bar until its own text wrapped in two clipped lines, and the status bar's estimate ("~95%
(76–99%), 20 checks (13 on first-pass labels) on v1 with 3 taught, just now") left a passing message seven
words ("Accepted 'top-up and cash' for 1 ticke"). This label paints its text elided (…) where it is short of
room; ``text()`` stays whole, for tests and screen readers, and the full line is its tooltip when cut. Cut
at the end, the run line at 1024×640 kept "2,000 labelled by the classifier · langua…" and lost the time
left, so the run bar cuts in the middle (the language model's count is on the bar beside it anyway).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class ElidedLabel(QLabel):
    """Plain one-line text; its minimum width is a few characters, its wish (size hint) the whole line."""

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        tooltip: bool = True,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        super().__init__(text, parent)
        self._own_tooltip = tooltip  # False where the caller sets a tooltip of its own (the estimate's details)
        self._mode = mode  # ElideMiddle keeps both ends: the run line's first count and its time left
        self.setTextFormat(Qt.TextFormat.PlainText)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self.fontMetrics().horizontalAdvance("Mmmm…")), hint.height())

    def elided(self) -> str:
        """The text as painted: whole where it fits, else cut with "…"."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), self._mode, width)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._sync_tooltip()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._sync_tooltip()

    def _sync_tooltip(self) -> None:
        if self._own_tooltip:
            self.setToolTip(self.text() if self.elided() != self.text() else "")

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            self.elided(),
            self.foregroundRole(),
        )
