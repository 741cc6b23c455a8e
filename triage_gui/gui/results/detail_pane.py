"""The selected ticket, read whole and explained: its text, every label's probability as a bar, where
its label came from, the baseline's result; and the buttons to teach it."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...engine.table import Decision, Source, TicketTable, decide
from ..tickets.label_colors import is_dark, label_color, label_slot
from ..widgets.flow_layout import FlowLayout

SOURCE_TEXT = {
    Source.PROMPT.shown: "from the prompt (calibrated label scores)",
    Source.LEARNED.shown: "learned from the prompt's examples and label descriptions",
    Source.FIRST.shown: "the classifier's first pass, from the prompt's examples and label descriptions (the language "
    "model has not read this ticket yet; its label is refined when it has)",
    Source.TAUGHT.shown: "taught by you",
}
# A first-pass label on a ticket the language model has read: its heads carry no weight (issue 33), so the pane
# says the first pass decided it (it said "learned" while the language model's weight was 0).
READ_NOT_USED = (
    "the language model has read this ticket; its reading is not used for labels until your taught tickets "
    "show it helps"
)
NOT_READ = "the language model has not read this ticket yet"
FIRST_READ = f"the classifier's first pass, from the prompt's examples and label descriptions ({READ_NOT_USED})"


ROW_HEIGHT = 18
GAP = 6


@dataclass(frozen=True)
class BarRow:
    """Where one label's row is drawn: its name (elided where the pane is narrow), bar track and value."""

    text: str
    name_rect: QRectF
    bar_rect: QRectF  # the whole track; the bar fills the probability's share of it
    value_rect: QRectF


def bar_layout(names: list[str], width: int, metrics: QFontMetrics) -> list[BarRow]:
    """One row per label, the name, the bar and the value side by side and never over each other: a name
    too long for the narrow pane is elided in the middle (the widget's tooltip has every full name).
    ``metrics``: the bold font's, so the chosen label, drawn bold, fits as well as the others."""
    value_width = metrics.horizontalAdvance("0.00") + GAP
    widest = max((metrics.horizontalAdvance(name) for name in names), default=0)
    name_width = max(24, min(widest + 2, (width - value_width - 2 * GAP) // 2))  # + 2: rounding never elides
    bar_left = name_width + GAP
    bar_width = max(10, width - bar_left - GAP - value_width)
    rows = []
    for i, name in enumerate(names):
        y = 2 + i * ROW_HEIGHT
        rows.append(
            BarRow(
                metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, name_width),
                QRectF(0, y, name_width, ROW_HEIGHT - 2),
                QRectF(bar_left, y + 2, bar_width, 12),
                QRectF(bar_left + bar_width + GAP, y, value_width, ROW_HEIGHT - 2),
            )
        )
    return rows


class ProbabilityBars(QWidget):
    """One horizontal bar per label, longest for the most probable; the shown label in bold."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, float, int, bool]] = []  # label, probability, colour index, chosen
        self.setAccessibleName("Label probabilities")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def set_rows(self, rows: list[tuple[str, float, int, bool]]) -> None:
        self.rows = rows
        self.setFixedHeight(ROW_HEIGHT * len(rows) + 4)  # every row shown: the pane scrolls, never overlaps
        self.setToolTip("\n".join(f"{name}: {p:.3f}" for name, p, _, _ in rows))
        self.update()

    def layout_rows(self) -> list[BarRow]:
        bold = QFont(self.font())
        bold.setBold(True)
        return bar_layout([r[0] for r in self.rows], self.width(), QFontMetrics(bold))

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        dark = is_dark()
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        for (_name, p, color, chosen), row in zip(self.rows, self.layout_rows()):
            font = painter.font()
            font.setBold(chosen)
            painter.setFont(font)
            painter.setPen(text_color)
            painter.drawText(row.name_rect, right, row.text)
            fill = label_color(color, dark)
            fill.setAlpha(230 if chosen else 150)
            bar = QRectF(row.bar_rect)
            bar.setWidth(row.bar_rect.width() * max(0.0, min(1.0, p)))
            painter.fillRect(bar, fill)
            painter.drawText(row.value_rect, left, f"{p:.2f}")


class TicketText(QPlainTextEdit):
    """The ticket's text: asks for three lines only, so that in the pane's scroll area it takes the height
    left over rather than pushing the bars and the teach buttons out of sight."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.minimumHeight())


class DetailPane(QWidget):
    teach = Signal(list, object)  # rows, label or None
    accept = Signal(list)

    def __init__(self, table: TicketTable, parent=None) -> None:
        super().__init__(parent)
        self.table = table
        self.row = -1
        self.taught_count = 0  # tickets the taught classifier learned from (the window keeps it current)
        self.header = QLabel("Select a ticket to read it whole and see why it got its label.")
        self.header.setWordWrap(True)
        self.header.setAccessibleName("Selected ticket")
        self.text = TicketText()
        self.text.setReadOnly(True)
        self.text.setAccessibleName("Ticket text")
        self.bars = ProbabilityBars()
        self.origin = QLabel()
        self.origin.setWordWrap(True)
        self.teach_box = QComboBox()
        self.teach_box.setMinimumContentsLength(10)
        self.teach_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.teach_box.setAccessibleName("Teach this ticket")
        self.teach_box.setToolTip("Set the right label; the other tickets are relabelled from it at once")
        self.teach_box.activated.connect(self._teach_chosen)
        self.accept_button = QPushButton("Label is right")
        self.accept_button.setToolTip("Teach the shown label (Enter in the table)")
        self.accept_button.clicked.connect(self._accept)
        self.forget_button = QPushButton("Forget")
        self.forget_button.setToolTip("Undo teaching this ticket (Delete in the table)")
        self.forget_button.clicked.connect(self._forget)
        teach_row = QWidget()
        buttons = FlowLayout(teach_row)  # wraps on a narrow pane instead of forcing the window wider
        teach = QWidget()
        pair = QHBoxLayout(teach)
        pair.setContentsMargins(0, 0, 0, 0)
        pair.addWidget(QLabel("Teach:"))
        pair.addWidget(self.teach_box)
        buttons.addWidget(teach)
        buttons.addWidget(self.accept_button)
        buttons.addWidget(self.forget_button)
        content = QWidget()
        box = QVBoxLayout(content)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.header)
        box.addWidget(self.text, 2)
        box.addWidget(self.bars)
        box.addWidget(self.origin)
        box.addWidget(teach_row)
        # On a short pane (a 640 px screen, five labels) the pane scrolls rather than squeezing its parts
        # over one another; the ticket text keeps three lines and takes what height there is to spare.
        self.text.setMinimumHeight(self.text.fontMetrics().lineSpacing() * 3 + 12)
        scroll = QScrollArea()
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self.show_row(-1)

    def show_row(self, row: int) -> None:
        table = self.table
        self.row = row if 0 <= row < len(table) else -1
        enabled = self.row >= 0 and self.row not in table.problems
        for widget in (self.teach_box, self.accept_button, self.forget_button):
            widget.setEnabled(enabled)
        if self.row < 0:
            self.header.setText("Select a ticket to read it whole and see why it got its label.")
            self.text.setPlainText("")
            self.bars.set_rows([])
            self.origin.setText("")
            with QSignalBlocker(self.teach_box):
                self.teach_box.clear()  # no ticket: no label (a stale greyed one read as this ticket's)
            return
        row = self.row
        d = decide(table, row)
        label = d.label
        self.header.setText(f"<b>Ticket #{row + 1}</b>" + (f" — {table.sources[row]}" if table.sources[row] else ""))
        self.text.setPlainText(table.texts[row] or f"({table.problems.get(row, 'no text')})")
        probs = table.label_probs(row)
        if probs is not None:
            chosen = d.model_label
            self.bars.set_rows(
                [
                    (name, float(p), label_slot(name, table.labels), name == chosen)
                    for name, p in zip(table.labels, probs)
                ]
            )
        else:
            self.bars.set_rows([])
        self.origin.setText(self._origin(row, d))
        self.teach_box.blockSignals(True)
        self.teach_box.clear()
        self.teach_box.addItems(table.labels)
        # No label yet: an empty box, not the first label (which read as this ticket's)
        self.teach_box.setCurrentIndex(self.teach_box.findText(table.taught_label(row) or label or ""))
        self.teach_box.blockSignals(False)
        self.forget_button.setEnabled(enabled and d.taught)

    def _origin(self, row: int, d: Decision) -> str:
        table = self.table
        label = d.label
        if row in table.problems:
            return f"Not labelled: {table.problems[row]}."
        if label is None:
            return "Not labelled yet."
        if d.stale:
            return f"<b>{label}</b> is from the previous prompt version; the new label is on its way."
        source, read = d.source.shown, d.llm_label is not None  # a first-pass label the reading left alone
        said = FIRST_READ if read and d.source == Source.FIRST else SOURCE_TEXT.get(source, source)
        parts = [f"<b>{label}</b>, {said}"]
        if d.source in (Source.LEARNED, Source.FIRST) and self.taught_count:
            tickets = f"{self.taught_count} ticket{'s' if self.taught_count != 1 else ''}"
            parts[0] = f"<b>{label}</b>, learned from the {tickets} you taught and the prompt's examples"
            if d.source == Source.FIRST:
                parts[0] += f" (first pass: {READ_NOT_USED if read else NOT_READ})"
        if d.confidence is not None and not d.taught:
            parts[0] += f" (confidence {d.confidence:.2f})"
        parts[0] += "."  # a sentence of its own: it ran into the next one ("taught by you You taught this label")
        if said := _readings(d):
            parts.append(said)
        model = d.model_label
        if d.taught:  # its confidence is 1; the bars are the classifier's
            parts.append("The bars are the classifier's probabilities for the ticket.")
        if d.taught and model is not None and model != label:
            parts.append(f"The model would say {model}.")
        if table.truncated(row):
            parts.append("The ticket was cut to fit the model's context (✂).")
        base = table.baseline.get(row)
        if base is not None:
            agree = table.agree(row)
            parts.append(
                f"Baseline (full re-encode): {table.baseline_label(row)}, {base.latency_ms:.0f} ms"
                + (" — same label." if agree else " — a different label!")
            )
        return " ".join(parts)

    def _accept(self) -> None:
        if self.row >= 0:
            self.accept.emit([self.row])

    def _forget(self) -> None:
        if self.row >= 0:
            self.teach.emit([self.row], None)

    def _teach_chosen(self) -> None:
        if self.row >= 0:
            self.teach.emit([self.row], self.teach_box.currentText())


def _readings(d: Decision) -> str:
    """The language model's own label (its calibrated prompt scores alone) beside the final one, and the
    first pass's where the reading changed it: what the refinement did to this ticket."""
    own, first = d.llm_label, d.first_pass
    if own is None or d.taught:  # taught: "The model would say …" says it
        return ""
    said = "The language model alone says " + (f"<b>{own}</b>." if d.llm_disagrees else "the same.")
    if first is not None and first != d.label:
        said += f" The first pass said {first}."
    return said
