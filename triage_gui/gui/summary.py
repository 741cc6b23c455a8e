"""Run summary: latency of both paths with a chart, agreement, and accuracy against gold labels."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..engine.metrics import GoldReport, LatencySummary

CACHED_COLOR = QColor(40, 130, 230)
BASELINE_COLOR = QColor(230, 110, 40)


class LatencyChart(QWidget):
    """Per-ticket latency over the run, cached vs baseline, on a log scale (they differ by ~10x)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.cached: list[float] = []
        self.baseline: list[float] = []
        self.setMinimumHeight(140)
        self.setAccessibleName("Latency chart")

    def set_series(self, cached: list[float], baseline: list[float]) -> None:
        self.cached, self.baseline = cached, baseline
        self.update()

    def paintEvent(self, event) -> None:
        import math

        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        plot = QRectF(48, 10, max(10, self.width() - 58), max(10, self.height() - 36))
        painter.setPen(QPen(text_color, 1))
        painter.drawRect(plot)
        values = [v for v in self.cached + self.baseline if v > 0]
        if not values:
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, "Latency per ticket appears here while labelling")
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
        legend_y = plot.bottom() + 6
        painter.drawText(QRectF(plot.left(), legend_y, plot.width(), 18), Qt.AlignmentFlag.AlignLeft, "ms per ticket")
        metrics = painter.fontMetrics()
        entries = [("cached prefix", CACHED_COLOR), ("baseline (full re-encode)", BASELINE_COLOR)]
        x = plot.right() - sum(metrics.horizontalAdvance(name) + 34 for name, _ in entries)
        for name, color in entries:
            painter.fillRect(QRectF(x, legend_y + 5, 12, 8), color)
            width = metrics.horizontalAdvance(name) + 4
            painter.drawText(QRectF(x + 16, legend_y, width, 18), Qt.AlignmentFlag.AlignLeft, name)
            x += width + 30


class SummaryPanel(QTabWidget):
    flip_selected = Signal(int)  # source row of a ticket whose label flipped

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.stats = QLabel("No tickets yet. Drop a CSV, TSV, TXT or JSONL file on the window, or paste tickets.")
        self.stats.setWordWrap(True)
        self.stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chart = LatencyChart()
        latency = QWidget()
        box = QVBoxLayout(latency)
        box.addWidget(self.stats)
        box.addWidget(self.chart, 1)
        self.addTab(latency, "Latency")

        self.accuracy = QLabel("Pick a gold column (values that are label names) to see accuracy.")
        self.accuracy.setWordWrap(True)
        self.per_label = QTableWidget(0, 4)
        self.per_label.setHorizontalHeaderLabels(["Label", "Precision", "Recall", "Support"])
        self.per_label.verticalHeader().setVisible(False)
        self.per_label.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.confusion = QTableWidget(0, 0)
        self.confusion.setAccessibleName("Confusion matrix (rows: gold, columns: predicted)")
        self.confusion.setToolTip("Rows: gold label; columns: predicted label")
        acc = QWidget()
        box = QVBoxLayout(acc)
        box.addWidget(self.accuracy)
        box.addWidget(self.per_label, 1)
        box.addWidget(QLabel("Confusion matrix (rows gold, columns predicted)"))
        box.addWidget(self.confusion, 1)
        self.addTab(acc, "Accuracy")

        self.flips = QListWidget()
        self.flips.setAccessibleName("Tickets whose label changed with the last prompt save")
        self.flips.itemActivated.connect(lambda item: self.flip_selected.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.flips.itemClicked.connect(lambda item: self.flip_selected.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.addTab(self.flips, "Flipped")

    def show_stats(
        self,
        labelled: int,
        total: int,
        cached: LatencySummary | None,
        baseline: LatencySummary | None,
        agree: tuple[int, int] | None,
        flagged: str = "",
    ) -> None:
        parts = [f"<b>{labelled}</b> of {total} tickets labelled."]
        if cached is not None:
            parts.append(f"Cached prefix: median <b>{cached.median_ms:.0f} ms</b>/ticket (p90 {cached.p90_ms:.0f}).")
        if baseline is not None:
            parts.append(f"Baseline full re-encode: median <b>{baseline.median_ms:.0f} ms</b>.")
            if cached is not None and cached.median_ms > 0:
                parts.append(f"Speed-up <b>{baseline.median_ms / cached.median_ms:.1f}×</b>.")
        if agree is not None and agree[1]:
            same, n = agree
            parts.append(f"Agreement <b>{same}/{n}</b> ({100 * same / n:.1f}%).")
        if flagged:
            parts.append(flagged)
        self.stats.setText(" ".join(parts))

    def show_gold(self, report: GoldReport | None, previous_accuracy: float | None) -> None:
        if report is None or report.total == 0:
            self.accuracy.setText("Pick a gold column (values that are label names) to see accuracy.")
            self.per_label.setRowCount(0)
            self.confusion.setRowCount(0)
            self.confusion.setColumnCount(0)
            return
        text = f"Accuracy <b>{100 * report.accuracy:.1f}%</b> ({report.correct}/{report.total})"
        if previous_accuracy is not None:
            delta = 100 * (report.accuracy - previous_accuracy)
            text += f", {delta:+.1f} points since the previous prompt version"
        self.accuracy.setText(text + ".")
        self.per_label.setRowCount(len(report.per_label))
        for r, stats in enumerate(report.per_label):
            values = [
                stats.label,
                "–" if stats.precision is None else f"{stats.precision:.2f}",
                "–" if stats.recall is None else f"{stats.recall:.2f}",
                str(stats.support),
            ]
            for c, value in enumerate(values):
                self.per_label.setItem(r, c, QTableWidgetItem(value))
        names = [s.label for s in report.per_label]
        self.confusion.setRowCount(len(names))
        self.confusion.setColumnCount(len(names))
        self.confusion.setHorizontalHeaderLabels(names)
        self.confusion.setVerticalHeaderLabels(names)
        peak = max((v for row in report.confusion for v in row), default=0) or 1
        for g, row in enumerate(report.confusion):
            for p, count in enumerate(row):
                item = QTableWidgetItem(str(count))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                shade = QColor(CACHED_COLOR if g == p else BASELINE_COLOR)
                shade.setAlpha(int(30 + 160 * count / peak) if count else 0)
                item.setBackground(shade)
                self.confusion.setItem(g, p, item)

    def show_flips(self, flips: list[tuple[int, str, str, str]]) -> None:
        """flips: (source row, ticket text, old label, new label)."""
        self.flips.clear()
        for row, text, old, new in flips[:2000]:
            item = QListWidgetItem(f"#{row + 1}  {old} → {new}:  {text[:120]}")
            item.setData(Qt.ItemDataRole.UserRole, row)
            self.flips.addItem(item)
        self.setTabText(2, f"Flipped ({len(flips)})" if flips else "Flipped")
