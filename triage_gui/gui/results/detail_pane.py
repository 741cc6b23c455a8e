"""The selected ticket, read whole and explained: its text, every label's probability as a bar, where
its label came from, the baseline's result; and the buttons to teach it.

A prompt with several fields (a queue and a priority): the first field's part as a one-field prompt shows it,
titled with its name, then one part per further field below it, each titled with its field and read from
that field's table with ``decide`` (what its table cells show), each with its own Teach box and buttons that
teach that field alone ("Teach priority:"). A one-field prompt's pane has no titles and reads as it did."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSignalBlocker, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...defaults import LOW_CONFIDENCE
from ...engine.table import Decision, Source, TicketTable, decide
from ..tickets.label_colors import is_dark, label_color, label_slot
from ..widgets.flow_layout import FlowLayout
from ..widgets.focus_combo import FocusWheelComboBox

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
WIDEST_LABEL = 26  # letters a Teach box shows before it elides (a 1024 px window's pane is ~300 px wide)


@dataclass(frozen=True)
class BarRow:
    """Where one label's row is drawn: its name (elided where the pane is narrow), bar track and value."""

    text: str
    name_rect: QRectF
    bar_rect: QRectF  # the whole track; the bar fills the probability's share of it
    value_rect: QRectF
    stacked: bool = False  # the name on its own line, over the bar


def bar_layout(names: list[str], width: int, metrics: QFontMetrics) -> list[BarRow]:
    """One row per label, the name, the bar and the value never over each other: side by side where every
    name fits in half the width, else each name on its own line over its bar (W9: "pa…rs", "to…sh" at
    1024x640 could not be read), elided in the middle only where longer than the pane (the widget's tooltip
    has every full name). ``metrics``: the bold font's, so the chosen label, drawn bold, fits as well."""
    value_width = metrics.horizontalAdvance("0.00") + GAP
    widest = max((metrics.horizontalAdvance(name) for name in names), default=0)
    half = (width - value_width - 2 * GAP) // 2
    stacked = widest + 2 > half  # + 2: rounding never elides
    name_width = max(24, width if stacked else min(widest + 2, half))
    bar_left = 0 if stacked else name_width + GAP
    bar_width = max(10, width - bar_left - GAP - value_width)
    rows = []
    for i, name in enumerate(names):
        y = 2 + i * ROW_HEIGHT * (2 if stacked else 1)
        bar_y = y + ROW_HEIGHT if stacked else y
        rows.append(
            BarRow(
                metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, name_width),
                QRectF(0, y, name_width, ROW_HEIGHT - 2),
                QRectF(bar_left, bar_y + 2, bar_width, 12),
                QRectF(bar_left + bar_width + GAP, bar_y, value_width, ROW_HEIGHT - 2),
                stacked,
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
        self._fit_height()
        self.setToolTip("\n".join(f"{name}: {p:.3f}" for name, p, _, _ in rows))
        self.update()

    def _fit_height(self) -> None:
        """Every row shown (the pane scrolls, never overlaps): two lines a label where the names are stacked."""
        laid = self.layout_rows()
        self.setFixedHeight(ROW_HEIGHT * len(self.rows) * (2 if laid and laid[0].stacked else 1) + 4)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_height()

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
            painter.drawText(row.name_rect, left if row.stacked else right, row.text)
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


class FieldPart(QWidget):
    """One field's part of the pane: its name (a prompt with several fields), every label's probability as a
    bar, where the label came from, and the buttons that teach this field and no other."""

    chosen = Signal(object)  # the label taught, or None: forget
    accepted = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.hide()  # a one-field prompt's pane has no field names
        self.bars = ProbabilityBars()
        self.origin = QLabel()
        self.origin.setWordWrap(True)
        self.teach_box = FocusWheelComboBox()  # scrolling the pane over it teaches nothing
        self.teach_box.setMinimumContentsLength(10)
        self.teach_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.teach_box.setAccessibleName("Teach this ticket")
        self.teach_box.setToolTip("Set the right label; the other tickets are relabelled from it at once")
        self.teach_box.activated.connect(lambda: self.chosen.emit(self.teach_box.currentText()))
        self.accept_button = QPushButton("Label is right")
        self.accept_button.setToolTip("Teach the shown label (Enter in the table)")
        self.accept_button.clicked.connect(self.accepted.emit)
        self.forget_button = QPushButton("Forget")
        self.forget_button.setToolTip("Undo teaching this ticket (Delete in the table)")
        self.forget_button.clicked.connect(lambda: self.chosen.emit(None))
        self.teach_label = QLabel("Teach:")
        teach_row = QWidget()
        buttons = FlowLayout(teach_row)  # wraps on a narrow pane instead of forcing the window wider
        # "Teach priority:" and its box are two items, the box below its name on a narrow pane: paired, they
        # were 221 px wide and a two-field pane 183 px at 1024x640, cut on the right (walkthrough W).
        buttons.addWidget(self.teach_label)
        buttons.addWidget(self.teach_box)
        buttons.addWidget(self.accept_button)
        buttons.addWidget(self.forget_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.bars, self.origin, teach_row):
            box.addWidget(widget)

    def set_name(self, name: str) -> None:
        """A prompt with several fields: the part is titled with its field, and its Teach box and buttons say
        which field they teach; "" (one field): as the pane always was."""
        self.title.setText(f"<b>{name}</b>")
        self.title.setVisible(bool(name))
        self.teach_label.setText(f"Teach {name}:" if name else "Teach:")
        self.teach_box.setAccessibleName(f"Teach this ticket's {name}" if name else "Teach this ticket")
        self.accept_button.setToolTip(f"Teach the shown {name or 'label'} (Enter in the table)")
        its = f" its {name}" if name else ""
        self.forget_button.setToolTip(f"Undo teaching this ticket{its} (Delete in the table)")

    def show_decision(self, table: TicketTable | None, row: int, d: Decision | None, origin: str, enabled: bool):
        """The row's bars and label in this field (``d`` None: not labelled in it yet), and its teach box."""
        probs = table.label_probs(row) if table is not None and d is not None else None
        if table is not None and probs is not None:
            chosen, names = d.model_label if d is not None else None, table.labels
            self.bars.set_rows([(n, float(p), label_slot(n, names), n == chosen) for n, p in zip(names, probs)])
        else:
            self.bars.set_rows([])
        self.origin.setText(origin)
        for widget in (self.teach_box, self.accept_button, self.forget_button):
            widget.setEnabled(enabled)
        with QSignalBlocker(self.teach_box):
            self.teach_box.clear()  # no ticket: no label (a stale greyed one read as this ticket's)
            if table is not None and row >= 0:
                self.teach_box.addItems(table.labels)
                # As wide as the longest label, up to WIDEST_LABEL letters (the row wraps below a narrow pane):
                # at 10 it showed "payments and tra" for the label a lead was about to teach (W11)
                longest = max(map(len, table.labels), default=0)
                self.teach_box.setMinimumContentsLength(max(10, min(longest, WIDEST_LABEL)))
                # No label yet: an empty box, not the first label (which read as this ticket's)
                label = table.taught_label(row) or (d.label if d is not None else None)
                self.teach_box.setCurrentIndex(self.teach_box.findText(label or ""))
        self.forget_button.setEnabled(enabled and d is not None and d.taught)


class DetailPane(QWidget):
    teach = Signal(int, list, object)  # the field (0: the first, 1: the second …), rows, label or None
    accept = Signal(int, list)  # the field, rows

    def __init__(self, table: TicketTable, parent=None) -> None:
        super().__init__(parent)
        self.table = table
        self.row = -1
        self.taught_count = 0  # tickets the taught classifier learned from (the window keeps it current)
        self.field_names: list[str] = []  # a prompt with several fields: each field's name, else []
        self.field_table: Callable[[int], TicketTable | None] = lambda index: None
        self.field_decisions: Callable[[int, int, float], Decision | None] = lambda index, row, low: None
        self.field_taught: list[int] = []  # each further field's taught tickets (the window keeps it current)
        self.header = QLabel("Select a ticket to read it whole and see why it got its label.")
        self.header.setWordWrap(True)
        self.header.setAccessibleName("Selected ticket")
        self.text = TicketText()
        self.text.setReadOnly(True)
        self.text.setAccessibleName("Ticket text")
        self.first = FieldPart()
        self.bars, self.origin, self.teach_box = self.first.bars, self.first.origin, self.first.teach_box
        self.accept_button, self.forget_button = self.first.accept_button, self.first.forget_button
        self.first.chosen.connect(lambda label: self._teach(0, label))
        self.first.accepted.connect(lambda: self._accept(0))
        self.parts: list[FieldPart] = []  # each further field's, below the first's
        content = QWidget()
        self.box = box = QVBoxLayout(content)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.header)
        box.addWidget(self.text, 2)
        box.addWidget(self.first)
        # On a short pane (a 640 px screen, five labels) the pane scrolls rather than squeezing its parts
        # over one another; the ticket text keeps three lines and takes what height there is to spare.
        self.text.setMinimumHeight(self.text.fontMetrics().lineSpacing() * 3 + 12)
        self.scroll_area = scroll = QScrollArea()
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self.show_row(-1)

    def set_fields(
        self,
        names: list[str],
        tables: Callable[[int], TicketTable | None],
        decisions: Callable[[int, int, float], Decision | None],
    ) -> None:
        """A prompt with several fields: the first field's part as it was, titled with its name, and one part
        per further field below it, each teaching its own field ([] for a one-field prompt: no titles); each
        further field's decision from ``decisions`` (its teaching shown at once, as the table shows it)."""
        self.field_table, self.field_decisions = tables, decisions
        if names == self.field_names:
            return
        self.field_names = list(names)
        for part in self.parts:
            self.box.removeWidget(part)
            part.deleteLater()
        self.parts = []
        self.first.set_name(names[0] if names else "")
        for index, name in enumerate(names[1:], 1):
            part = FieldPart()
            part.set_name(name)
            part.chosen.connect(lambda label, i=index: self._teach(i, label))
            part.accepted.connect(lambda i=index: self._accept(i))
            self.box.addWidget(part)
            self.parts.append(part)
        self.show_row(self.row)

    def set_field_taught(self, counts: list[int]) -> None:
        """Each further field's taught tickets, which its part says its first pass learned from."""
        if counts != self.field_taught:
            self.field_taught = counts
            self.show_row(self.row)

    def show_row(self, row: int, field: int = 0) -> None:
        """The ticket of this row; a new one starts at the top of the pane, or with a further ``field``'s part
        in view (the column in use: after *Teach next* for the priority the priority's part was below the fold
        at 1366x768, walkthrough W4)."""
        table = self.table
        row, before = (row if 0 <= row < len(table) else -1), self.row
        self.row = row
        if row != before:  # a new ticket starts at the top (the pane kept the last one's scroll position)
            self.scroll_area.verticalScrollBar().setValue(0)
            if row >= 0 and 0 < field <= len(self.parts):  # once the new ticket's parts are laid out
                part = self.parts[field - 1]
                QTimer.singleShot(0, part, lambda: self.scroll_area.ensureWidgetVisible(part))
        enabled = self.row >= 0 and self.row not in table.problems
        if self.row < 0:
            self.header.setText("Select a ticket to read it whole and see why it got its label.")
            self.text.setPlainText("")
            for part in (self.first, *self.parts):
                part.show_decision(None, -1, None, "", False)
            return
        row = self.row
        d = decide(table, row)
        header = f"<b>Ticket #{row + 1}</b>" + (f" — {table.sources[row]}" if table.sources[row] else "")
        self.text.setPlainText(table.texts[row] or f"({table.problems.get(row, 'no text')})")
        self.first.show_decision(table, row, d, self._origin(row, d), enabled)
        decisions: list[Decision | None] = [d]
        for index, part in enumerate(self.parts, 1):
            shown = self.field_table(index)
            decisions.append(mine := self.field_decisions(index, row, LOW_CONFIDENCE))
            taught = self.field_taught[index - 1] if index <= len(self.field_taught) else 0
            said = field_origin(table, row, mine, taught, self.field_names[index])
            part.show_decision(shown, row, mine, said, enabled)
        if self.parts:  # every field's label on one line: the further fields' parts are below the fold
            header += "<br>" + " · ".join(map(said_label, self.field_names, decisions))
        self.header.setText(header)

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

    def _teach(self, field: int, label: str | None) -> None:
        if self.row >= 0:
            self.teach.emit(field, [self.row], label)

    def _accept(self, field: int) -> None:
        if self.row >= 0:
            self.accept.emit(field, [self.row])


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


def said_label(name: str, d: Decision | None) -> str:
    """ "priority: <b>✓ high</b>" (taught), "queue: <b>billing</b>", "priority: —" (not labelled yet)."""
    label = None if d is None else d.label
    return f"{name}: " + ("—" if label is None else f"<b>{'✓ ' if d is not None and d.taught else ''}{label}</b>")


def field_origin(table: TicketTable, row: int, d: Decision | None, taught: int, name: str) -> str:
    """Where a further field's label came from: taught by the lead, that field's first pass, or the classifier
    with the language model's reading of the ticket for that field (through the field's own prefix), with its
    confidence, and whether the language model has read the ticket for that field yet."""
    if row in table.problems:
        return f"Not labelled: {table.problems[row]}."
    if d is None or d.label is None:
        return f"No {name} yet: it comes with the field's first pass."
    if d.taught:
        model = d.model_label
        would = f" The model would say {model}." if model is not None and model != d.label else ""
        return f"<b>{d.label}</b>, taught by you. The bars are the classifier's probabilities for the ticket.{would}"
    tickets = f" and the {taught} ticket{'s' if taught != 1 else ''} you taught for {name}" if taught else ""
    sure = f" (confidence {d.confidence:.2f})" if d.confidence is not None else ""
    if d.source is Source.LEARNED:
        return f"<b>{d.label}</b>, the classifier with the language model's reading of the ticket for {name}{sure}."
    read = (
        f"The language model has read it for {name}; its reading is not used for {name}'s labels yet."
        if table.scored(row)
        else f"The language model has not read it for {name} yet."
    )
    return (
        f"<b>{d.label}</b>, the classifier's first pass, from the prompt's examples and label descriptions"
        f"{tickets}{sure}. {read}"
    )
