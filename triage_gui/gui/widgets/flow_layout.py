"""A layout that wraps its widgets onto the next line when the row is full (Qt's FlowLayout example).

Used for the filter bar, so at 1024x640 the search box and combos keep readable widths instead of
being squeezed to "S…".
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLayout, QLayoutItem, QSizePolicy, QWidget


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self.setSpacing(spacing)
        self.setContentsMargins(QMargins(0, 0, 0, 0))

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, apply=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _place(self, rect: QRect, apply: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line_height = area.x(), area.y(), 0
        spacing = self.spacing()
        lines: list[list[tuple[QLayoutItem, QSize]]] = [[]]
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            hint = item.sizeHint().expandedTo(item.minimumSize())
            if x + hint.width() > area.right() + 1 and lines[-1]:
                x, y = area.x(), y + line_height + spacing
                line_height = 0
                lines.append([])
            lines[-1].append((item, hint))
            x += hint.width() + spacing
            line_height = max(line_height, hint.height())
        if apply:
            self._apply(lines, area, spacing)
        return y + line_height - rect.y() + margins.bottom()

    @staticmethod
    def _apply(lines: list[list[tuple[QLayoutItem, QSize]]], area: QRect, spacing: int) -> None:
        """Lay each line out; an expanding item (the search box) takes the line's spare width."""
        y = area.y()
        for line in lines:
            used = sum(h.width() for _, h in line) + spacing * max(0, len(line) - 1)
            spare = max(0, area.width() - used)
            grow = [i for i, (item, _) in enumerate(line) if _expands(item)]
            x = area.x()
            height = max((h.height() for _, h in line), default=0)
            for i, (item, hint) in enumerate(line):
                width = hint.width() + (spare // len(grow) if i in grow else 0)
                item.setGeometry(QRect(QPoint(x, y + (height - hint.height()) // 2), QSize(width, hint.height())))
                x += width + spacing
            y += height + spacing


def _expands(item: QLayoutItem) -> bool:
    widget = item.widget()
    return widget is not None and widget.sizePolicy().horizontalPolicy() == QSizePolicy.Policy.Expanding


def labelled(*pairs: tuple[str, QWidget]) -> list[QWidget]:
    """Each widget in a row after its label (the label's buddy: its mnemonic focuses the widget)."""
    out = []
    for text, widget in pairs:
        holder = QWidget()
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        label = QLabel(text)
        label.setBuddy(widget)
        row.addWidget(label)
        row.addWidget(widget)
        out.append(holder)
    return out
