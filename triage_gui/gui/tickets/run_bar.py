"""The run bar under the tickets: the baseline comparison, the labelling progress, the rate and time left,
and Stop / Resume. Two rows of widgets (not a widget of its own) that the ticket area lays out under the table.

The run line has a row of its own under the progress bar, in shorter words where the long ones do not fit:
beside the progress bar it had 260 px at 1024x640 and showed "2,000 labelled by the … 'priority': first pass"
(the rate and the time left cut out, whole only in its tooltip); on its own row it has the ticket area's width
(716 px at 1024x640, 1,000 at 1366x768), where the long line fits with one field and the short one with two.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout

from ...session.status import RunStatus
from ...words import counted
from ..widgets.elided_label import ElidedLabel, word_elided

# After File › New prompt the tickets keep the last saved prompt's labels until Save (they are not dropped):
# the run line says so first, where a lead looks for what the labels are doing.
LABELS_NOTE = "Labels from the last saved prompt: Save to label with this one."


class RunLine(ElidedLabel):
    """The run line: its long words where they fit, else its short ones (the long in the tooltip), cut in the
    middle between words only where neither fits."""

    def __init__(self) -> None:
        super().__init__(mode=Qt.TextElideMode.ElideMiddle)
        self.short = ""

    def set_line(self, text: str, short: str = "") -> None:
        self.short = short if short != text else ""
        self.setText(text)

    def elided(self) -> str:
        width = self.contentsRect().width()
        if self.short and self.fontMetrics().horizontalAdvance(self.text()) > width:
            return word_elided(self.fontMetrics(), self.short, width, Qt.TextElideMode.ElideMiddle)
        return super().elided()


class RunBar(QObject):
    """See the module docstring; ``row`` is its layout."""

    baseline_toggled = Signal(bool)
    stop_clicked = Signal()
    resume_clicked = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.baseline_toggle = QCheckBox("Compare with baseline")
        self.baseline_toggle.setToolTip(
            "Also label every ticket the slow way (re-encoding the whole prompt, for every field) and compare: "
            "about ten times slower than the cached path while it runs"
        )
        self.baseline_toggle.toggled.connect(self.baseline_toggled)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Labelling progress")
        self.progress.setFormat("no tickets")  # as the run bar says it with none ("0 / 1 labelled" before any)
        self.progress.setMaximum(1)
        self.progress.setValue(0)
        # cut in the middle before it squeezes the bar: the first pass's count and the time left stay in sight
        self.rate_label = RunLine()
        self.rate_label.setAccessibleName("Labelling rate")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop labelling; finished labels are kept (Esc)")
        self.stop_button.setEnabled(False)
        self._resumable = False
        self._refinement = ""  # what the language model's reading changed (set_refinement)
        self._names: list[str] = []  # several fields: their names (set_fields; a Save that changed one: it is named)
        self._shown: RunStatus | None = None
        self._note = ""  # said first (set_note)
        self.stop_button.clicked.connect(self._stop_or_resume)
        bar = QHBoxLayout()
        bar.addWidget(self.baseline_toggle)
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.stop_button)
        self.row = QVBoxLayout()
        self.row.setSpacing(2)
        self.row.addLayout(bar)
        self.row.addWidget(self.rate_label)

    def set_refinement(self, words: str) -> None:
        """What the language model's reading changed (the summary's words), said once the run has ended."""
        if words != self._refinement:
            self._refinement = words
            if self._shown is not None:
                self.show_run(self._shown)

    def show_new_prompt(self, new: bool) -> None:
        """After *New prompt* the tickets keep the last saved prompt's labels until Save: say so."""
        self.set_note(LABELS_NOTE if new else "")

    def set_note(self, note: str) -> None:
        """Words ahead of the run line whenever tickets are loaded (after *New prompt*: whose labels they are)."""
        if note != self._note:
            self._note = note
            if self._shown is not None:
                self.show_run(self._shown)

    def set_fields(self, names: list[str]) -> None:
        """A prompt with several fields: the language model reads each ticket once per field, through that
        field's own prefix, so a ticket costs a field's time per field (said in the bar, the count the bar
        shows being tickets); [] for one field, which the bar says nothing about."""
        if list(names) != self._names:
            self._names = list(names)
            if self._shown is not None:
                self.show_run(self._shown)

    def _fields_words(self, status: RunStatus) -> tuple[str, str]:
        """What the language model reads: every field, or (a Save that changed some) those alone, by name."""
        names, read = self._names, status.fields_read
        if len(names) < 2:
            return "", ""
        if not read or len(read) >= len(names) or max(read) >= len(names):
            return f"each ticket read for {len(names)} fields", f"{len(names)} fields"
        said = " and ".join(names[i] for i in read)
        kept = " and ".join(name for i, name in enumerate(names) if i not in read)
        return f"each ticket read for the {said} alone (the {kept} as read before)", f"{said} alone"

    def show_run(self, status: RunStatus) -> None:
        self._shown = status
        self.progress.setMaximum(max(1, status.total))
        self.progress.setValue(status.labelled)
        first = status.classified > status.labelled  # the classifier's first pass is ahead of the language model
        model_format = "language model %v / %m" if first else "%v / %m labelled"
        self.progress.setFormat(model_format if status.total else "no tickets")
        widest = model_format.replace("%v", str(status.total)).replace("%m", str(status.total))
        self.progress.setMinimumWidth(self.progress.fontMetrics().horizontalAdvance(widest) + 24)  # never wraps
        running = status.state == "running"
        long, short = self._line(status, first)
        short = short or long
        if status.total:
            fields = self._fields_words(status)
            long, short = parts(self._note, long, fields[0]), parts(self._note, short, fields[1])
        self.rate_label.set_line(long, short)
        self._resumable = status.state == "stopped"  # what the button does follows the run, not its text
        self.stop_button.setText("Resume" if self._resumable else "Stop")
        self.stop_button.setToolTip(
            "Label the tickets still missing" if status.state == "stopped" else "Stop labelling; labels are kept (Esc)"
        )
        # Stop stops the language model: with every ticket read (and no baseline to do) only the first pass runs,
        # which Stop never stops, and an enabled Stop beside "classifier's first pass 64 / 154" did nothing (W11)
        left = status.labelled < status.total or status.baseline_done < status.baseline_total
        self.stop_button.setEnabled((running and left) or status.state == "stopped")

    def _line(self, status: RunStatus, first: bool) -> tuple[str, str]:
        """The run line in long words and in short ones (the language model's count is on the bar beside it)."""
        classified = f"{status.classified:,} labelled by the classifier · " if first else ""
        if status.state == "running":
            eta = "" if status.eta_seconds is None else f" · {_duration(status.eta_seconds)} left"
            base = f" · baseline {status.baseline_done}/{status.baseline_total}" if status.baseline_total else ""
            model = f"language model {status.labelled:,} / {status.total:,} · " if first else ""
            brief = f"classifier {status.classified:,} · " if first else ""
            if not first and status.total and status.labelled >= status.total:
                # Every ticket read, and no rate of the language model's to give: the baseline still going (turned
                # on after the run; a walkthrough read "0.0 tickets/s · baseline 7/150" as a stalled run), else the
                # first pass embedding tickets whose scores were kept from an earlier run
                left = status.first_pass_left
                if status.baseline_total:
                    done = f"baseline (full re-encode) {status.baseline_done:,} / {status.baseline_total:,}"
                else:
                    done = (
                        f"classifier's first pass {status.total - left:,} / {status.total:,}" if left else "finishing"
                    )
                return f"The language model has read every ticket · {done}", done
            if status.classified < status.total:  # the first pass is still going: no "0.0 tickets/s" meanwhile
                classified = brief = f"first pass {status.classified:,} / {status.total:,} · "
            rate = f"{status.rate:.1f} tickets/s" if status.rate or not first else "the language model starts"
            return f"{classified}{model}{rate}{eta}{base}", f"{brief}{rate}{eta}{base}"
        if status.state == "stopped" and status.finishing:  # the count not read is about to move: none said yet
            hand = f"the language model finishes the {counted(status.finishing, 'ticket')} it has in hand"
            return f"Stopping: {classified}{hand}", f"Stopping: {hand}"
        if status.state == "stopped" and first:
            stopped = f"Stopped: {status.remaining:,} not read by the language model yet"
            return (
                " · ".join(filter(None, [f"Stopped: {classified}{status.remaining:,} not read by the language model "
                                         "yet", self._refinement])),
                " · ".join(filter(None, [stopped, self._refinement])),
            )  # fmt: skip
        if status.state == "stopped":
            return f"Stopped: {status.remaining} not labelled yet", ""
        if status.state == "done" and status.total:
            return " · ".join(filter(None, ["All labelled", self._refinement])), ""
        return "", ""

    def _stop_or_resume(self) -> None:
        if self._resumable:
            self.resume_clicked.emit()
        else:
            self.stop_clicked.emit()


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{seconds // 60} min"
    return f"{seconds / 3600:.1f} h"


def parts(*words: str) -> str:
    """The run line's parts joined with " · ", a part's full stop dropped where another follows it ("not used
    for labels yet. · each ticket read for 2 fields" read as a slip, walkthrough W3)."""
    kept = [w for w in words if w]
    return " · ".join([w.removesuffix(".") for w in kept[:-1]] + kept[-1:])
