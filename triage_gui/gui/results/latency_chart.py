"""Per-ticket latency over the run, fast path against baseline, on a log scale (they differ by ~10x)."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QWidget

CACHED_COLOR = QColor(40, 130, 230)
EMPTY = "Latency per ticket appears here while labelling"
# Wrapped: one line is ~300 px, and the plot at 1024x640 ~270 px ("atency per ticket … labellin", walkthrough W).
EMPTY_FLAGS = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
BASELINE_COLOR = QColor(230, 110, 40)


class LatencyChart(QWidget):
    """Per-ticket latency over the run, cached vs baseline, on a log scale (they differ by ~10x)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.cached: list[float] = []
        self.baseline: list[float] = []
        self.field = ""  # with several fields, whose times (the first field's)
        self.setMinimumHeight(90)
        self.setAccessibleName("Latency chart")

    def set_series(self, cached: list[float], baseline: list[float], field: str = "") -> None:
        self.cached, self.baseline, self.field = cached, baseline, field
        self.update()

    def plot_rect(self) -> QRectF:
        """Where the curves are drawn (and, before any, the line that says they will be)."""
        return QRectF(48, 10, max(10, self.width() - 58), max(10, self.height() - 36))

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        plot = self.plot_rect()
        painter.setPen(QPen(text_color, 1))
        painter.drawRect(plot)
        values = [v for v in self.cached + self.baseline if v > 0]
        if not values:
            painter.drawText(plot, EMPTY_FLAGS, EMPTY)
            return
        lo = 10 ** math.floor(math.log10(min(values)))
        hi = 10 ** math.ceil(math.log10(max(values)))
        if hi <= lo:
            hi = lo * 10
        span = math.log10(hi) - math.log10(lo)
        n = max(len(self.cached), len(self.baseline), 2)

        def point(i: int, v: float) -> QPointF:
            x = plot.left() + plot.width() * i / (n - 1)
            y = plot.bottom() - plot.height() * (math.log10(max(v, lo)) - math.log10(lo)) / span
            return QPointF(x, y)

        grid = QColor(text_color)
        grid.setAlpha(60)
        decade = lo
        while decade <= hi * 1.001:
            y = point(0, decade).y()
            painter.setPen(QPen(grid, 1, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text_color)
            painter.drawText(QRectF(0, y - 8, 44, 16), Qt.AlignmentFlag.AlignRight, f"{decade:g}")
            decade *= 10
        for series, color in ((self.baseline, BASELINE_COLOR), (self.cached, CACHED_COLOR)):
            if not series:
                continue
            path = QPainterPath(point(0, series[0]))
            for i, v in enumerate(series[1:], start=1):
                path.lineTo(point(i, v))
            painter.setPen(QPen(color, 1.5))
            painter.drawPath(path)
        painter.setPen(text_color)
        for text, rect, swatch in legend(painter.fontMetrics(), plot, self.field):
            if swatch is not None:
                painter.fillRect(QRectF(rect.left() - 16, rect.top() + 5, 12, 8), swatch)
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft, text)


def legend(metrics: QFontMetrics, plot: QRectF, field: str = "") -> list[tuple[str, QRectF, QColor | None]]:
    """The axis title and the two series' names under the plot, as (text, rect, swatch colour). A narrow
    chart (a 1024-px window) gets the short names rather than overlapping text; with several fields the axis
    names the field whose times these are (the first: the summary line gives every field's), where it fits."""
    y = plot.bottom() + 6
    axes = [f"ms per ticket ({field})", "ms per ticket"] if field else ["ms per ticket"]
    choices = [
        (axis, names)
        for axis in axes
        for names in (("fast path (cached prefix)", "baseline (full re-encode)"), ("fast path", "baseline"))
    ]
    for axis, names in choices:
        axis_end = plot.left() + metrics.horizontalAdvance(axis) + 4 + 12
        width = sum(metrics.horizontalAdvance(name) + 34 for name in names)
        if plot.right() - width >= axis_end:
            break
    items: list[tuple[str, QRectF, QColor | None]] = [
        (axis, QRectF(plot.left(), y, metrics.horizontalAdvance(axis) + 4, 18), None)
    ]
    x = plot.right() - width
    for name, color in zip(names, (CACHED_COLOR, BASELINE_COLOR)):
        advance = metrics.horizontalAdvance(name) + 4
        items.append((name, QRectF(x + 16, y, advance, 18), color))
        x += advance + 30
    return items
