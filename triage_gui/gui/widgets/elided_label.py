"""A one-line label that gives up width gracefully instead of pushing its neighbours out.

Walking the window at 1366×768 showed two places where a long line took space that was not its own: the run
bar's "2,000 labelled by the classifier · language model 79 / 2,000 · 5.4 tickets/s · 5 min left" squeezed
the progress bar until its own text wrapped in two clipped lines, and the status bar's estimate ("~95%
(76–99%), 20 checks (13 on first-pass labels) on v1 with 3 taught, just now") left a passing message seven
words ("Accepted 'top-up and cash' for 1 ticke"). This label paints its text elided (…) where it is short of
room; ``text()`` stays whole, for tests and screen readers, and the full line is its tooltip when cut. Cut
at the end, the run line at 1024×640 kept "2,000 labelled by the classifier · langua…" and lost the time
left, so the run bar cuts in the middle (the language model's count is on the bar beside it anyway).
Cuts fall between words (:func:`word_elided`): mid-word cuts read as other words ("…, fr" ran into the
estimate beside it); the status bar's passing messages are cut the same way (:class:`WordStatusBar`).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

ELLIPSIS = "…"


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
        """The text as painted: whole where it fits, else cut with "…" between words."""
        return word_elided(self.fontMetrics(), self.text(), self.contentsRect().width(), self._mode)

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


def word_elided(metrics: QFontMetrics, text: str, width: int, mode: Qt.TextElideMode) -> str:
    """``text`` if it fits in ``width`` px, else whole words and "…" (at the end, or in the middle with
    ``ElideMiddle``: words from both ends); a first word too long for the width is cut as Qt cuts it."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    words = text.split(" ")

    def fits(candidate: str) -> bool:
        return metrics.horizontalAdvance(candidate) <= width

    if mode == Qt.TextElideMode.ElideMiddle:
        head, tail = 0, 0
        while head + tail < len(words):
            for take_head in (head <= tail, head > tail):  # both ends in turn: the first count and the time left
                h, t = (head + 1, tail) if take_head else (head, tail + 1)
                if h + t <= len(words) and fits(_middle(words, h, t)):
                    head, tail = h, t
                    break
            else:
                break
        if head or tail:
            return _middle(words, head, tail)
        return metrics.elidedText(text, mode, width)
    count = len(words)
    while count > 0 and not fits(_joined(words[:count]) + ELLIPSIS):
        count -= 1
    return _joined(words[:count]) + ELLIPSIS if count else metrics.elidedText(text, mode, width)


def _joined(words: list[str]) -> str:
    return " ".join(words).rstrip(" ,;:·—-")


def _middle(words: list[str], head: int, tail: int) -> str:
    return f"{_joined(words[:head])} {ELLIPSIS} {' '.join(words[len(words) - tail :])}".strip()


class WordStatusBar(QStatusBar):
    """A status bar whose passing message is cut between words, ahead of the permanent labels, with the
    whole message as the bar's tooltip when cut. ``currentMessage()`` stays whole."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._aside: list[QLabel] = []  # permanent labels stepped aside for the message shown
        self.messageChanged.connect(self._make_room)
        self.messageChanged.connect(lambda _m: self._sync_tooltip())

    def _make_room(self, message: str) -> None:
        """A message that does not fit: the permanent labels step aside from the right (the model's name, then
        the prompt's state, …; never the first, the estimate) while it shows, and come back with it gone. At
        1024 px "Accepted…" and "The taught tickets were not written to p.json…" were all a lead could read."""
        for widget in self._aside:
            widget.show()
        self._aside = []
        permanent = sorted(
            (w for w in self.findChildren(QLabel) if w.parent() is self and w.isVisible() and w.geometry().left() > 0),
            key=lambda w: w.geometry().left(),
        )
        while message and len(permanent) > 1 and self.shown_message() != message:
            widget = permanent.pop()
            widget.hide()
            self._aside.append(widget)
            if (layout := self.layout()) is not None:
                layout.activate()

    def message_width(self) -> int:
        """The room the message has: up to the first permanent widget shown."""
        lefts = [w.geometry().left() for w in self.findChildren(QWidget) if w.parent() is self and w.isVisible()]
        return max(0, min(lefts, default=self.width()) - 8 - self.contentsMargins().left())

    def shown_message(self) -> str:
        return word_elided(self.fontMetrics(), self.currentMessage(), self.message_width(), Qt.TextElideMode.ElideRight)

    def _sync_tooltip(self) -> None:
        message = self.currentMessage()
        self.setToolTip(message if message and self.shown_message() != message else "")

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._sync_tooltip()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)  # frames, and the message as Qt clips it: painted over, cut between words
        message = self.currentMessage()
        if not message:
            return
        painter = QPainter(self)
        left = self.contentsMargins().left() + 2
        rect = self.rect().adjusted(left, 0, 0, 0)
        rect.setWidth(self.message_width() + 6)
        painter.fillRect(rect, self.palette().window())
        painter.setPen(self.palette().windowText().color())
        flags = int(Qt.AlignmentFlag.AlignLeading | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine)
        painter.drawText(rect.adjusted(2, 0, 0, 0), flags, self.shown_message())
