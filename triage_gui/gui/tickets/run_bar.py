"""The run bar under the tickets: the baseline comparison, the labelling progress, the rate and time left,
and Stop / Resume. A row of widgets (not a widget of its own) that the ticket area lays out under the table."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QProgressBar, QPushButton

from ...session.status import RunStatus
from ..widgets.elided_label import ElidedLabel


class RunBar(QObject):
    """See the module docstring; ``row`` is its layout."""

    baseline_toggled = Signal(bool)
    stop_clicked = Signal()
    resume_clicked = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.baseline_toggle = QCheckBox("Compare with baseline")
        self.baseline_toggle.setToolTip(
            "Also label every ticket the slow way (re-encoding the whole prompt) and compare"
        )
        self.baseline_toggle.toggled.connect(self.baseline_toggled)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Labelling progress")
        self.progress.setFormat("no tickets")  # as the run bar says it with none ("0 / 1 labelled" before any)
        self.progress.setMaximum(1)
        self.progress.setValue(0)
        # cut in the middle before it squeezes the bar: the first pass's count and the time left stay in sight
        self.rate_label = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.rate_label.setAccessibleName("Labelling rate")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop labelling; finished labels are kept (Esc)")
        self.stop_button.setEnabled(False)
        self._resumable = False
        self._refinement = ""  # what the language model's reading changed (set_refinement)
        self._fields = ""  # a prompt with several fields: which the language model reads (set_fields)
        self._shown: RunStatus | None = None
        self.stop_button.clicked.connect(self._stop_or_resume)
        self.row = QHBoxLayout()
        self.row.addWidget(self.baseline_toggle)
        self.row.addWidget(self.progress, 1)
        self.row.addWidget(self.rate_label)
        self.row.addWidget(self.stop_button)

    def set_refinement(self, words: str) -> None:
        """What the language model's reading changed (the summary's words), said once the run has ended."""
        if words != self._refinement:
            self._refinement = words
            if self._shown is not None:
                self.show_run(self._shown)

    def set_fields(self, names: list[str]) -> None:
        """A prompt with several fields: the language model refines the first field's labels; the others have
        their first pass (said in the bar); [] for one field, which the bar says nothing about."""
        words = (
            f"the language model reads {names[0]!r} only; {', '.join(map(repr, names[1:]))}: first pass"
            if len(names) > 1
            else ""
        )
        if words != self._fields:
            self._fields = words
            if self._shown is not None:
                self.show_run(self._shown)

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
        classified = f"{status.classified:,} labelled by the classifier · " if first else ""
        if running:
            eta = "" if status.eta_seconds is None else f" · {_duration(status.eta_seconds)} left"
            base = f" · baseline {status.baseline_done}/{status.baseline_total}" if status.baseline_total else ""
            model = f"language model {status.labelled:,} / {status.total:,} · " if first else ""
            if status.classified < status.total:  # the first pass is still going: no "0.0 tickets/s" meanwhile
                classified = f"first pass {status.classified:,} / {status.total:,} · "
            rate = f"{status.rate:.1f} tickets/s" if status.rate or not first else "the language model starts"
            self.rate_label.setText(f"{classified}{model}{rate}{eta}{base}")
        elif status.state == "stopped" and first:
            stopped = f"Stopped: {classified}{status.remaining:,} not read by the language model yet"
            self.rate_label.setText(" · ".join(filter(None, [stopped, self._refinement])))
        elif status.state == "stopped":
            self.rate_label.setText(f"Stopped: {status.remaining} not labelled yet")
        elif status.state == "done" and status.total:
            self.rate_label.setText(" · ".join(filter(None, ["All labelled", self._refinement])))
        else:
            self.rate_label.setText("")
        if self._fields and status.total:
            self.rate_label.setText(" · ".join(filter(None, [self.rate_label.text(), self._fields])))
        self._resumable = status.state == "stopped"  # what the button does follows the run, not its text
        self.stop_button.setText("Resume" if self._resumable else "Stop")
        self.stop_button.setToolTip(
            "Label the tickets still missing" if status.state == "stopped" else "Stop labelling; labels are kept (Esc)"
        )
        self.stop_button.setEnabled(running or status.state == "stopped")

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
