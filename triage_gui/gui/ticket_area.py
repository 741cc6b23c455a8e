"""The ticket area: filter bar, the ticket table (teach by editing the label) and the run bar."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..defaults import LOW_CONFIDENCE
from ..session.gold import Filters
from ..session.status import RunStatus
from .elided_label import ElidedLabel
from .empty_state import EmptyState
from .flow_layout import FlowLayout
from .label_picker import LabelDelegate
from .ticket_columns import fit_ticket_column, size_columns
from .ticket_model import Col, TicketFilterProxy, TicketTableModel, label_counts
from .ticket_view import TicketView

NO_GOLD = "(none)"
ALL_LABELS = "All labels"


class TicketArea(QWidget):
    filters_changed = Signal()
    text_column_chosen = Signal(str)
    gold_column_chosen = Signal(object)  # column name or None
    baseline_toggled = Signal(bool)
    stop_clicked = Signal()
    resume_clicked = Signal()
    row_selected = Signal(int)  # source row, -1 for none

    def __init__(self, model: TicketTableModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.proxy = TicketFilterProxy(self)
        self.proxy.setSourceModel(model)
        self.cell: tuple[int, int] | None = None  # confusion-matrix cell filter
        self._build_filters()
        self._build_table()
        self._build_run_bar()
        self.empty = EmptyState()
        self.hidden = QLabel()  # which filters hide every ticket, where they do
        self.hidden.setAccessibleName("Hidden by the filters")
        self.hidden.setWordWrap(True)
        show_all = QPushButton("Show all")
        show_all.clicked.connect(lambda: self.reset_filters())
        self.hidden_row = QWidget()
        hint = QHBoxLayout(self.hidden_row)
        hint.setContentsMargins(0, 0, 0, 0)
        hint.addWidget(self.hidden, 1)
        hint.addWidget(show_all)
        self.hidden_row.hide()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.table)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.filter_bar)
        box.addWidget(self.hidden_row)
        box.addWidget(self.stack, 1)
        box.addLayout(self.run_row)
        self.show_empty(True)

    # --------------------------------------------------------------- building

    def _build_filters(self) -> None:
        self.text_column = QComboBox()
        self.text_column.setAccessibleName("Ticket text column")
        self.text_column.setToolTip("Which column holds the ticket text")
        self.text_column.setMinimumContentsLength(10)
        self.text_column.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.text_column.activated.connect(lambda: self.text_column_chosen.emit(self.text_column.currentText()))
        self.gold_combo = QComboBox()
        self.gold_combo.setAccessibleName("Gold label column")
        self.gold_combo.setToolTip("A column of correct labels, to measure accuracy against")
        self.gold_combo.setMinimumContentsLength(10)
        self.gold_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.gold_combo.addItem(NO_GOLD)
        self.gold_combo.activated.connect(self._gold_activated)
        self.label_filter = QComboBox()
        self.label_filter.setAccessibleName("Filter by label")
        self.label_filter.setMinimumContentsLength(14)
        self.label_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.label_filter.addItem(ALL_LABELS, None)
        self.label_filter.activated.connect(self.filters_changed)
        self.low_only = QCheckBox("Low confidence below")
        self.low_only.setToolTip("Show only tickets whose label is less sure than this")
        self.low_only.toggled.connect(self.filters_changed)
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(LOW_CONFIDENCE)
        self.threshold.setAccessibleName("Low-confidence threshold")
        self.threshold.setToolTip("Labels below this confidence are marked ⚠")
        self.threshold.valueChanged.connect(self._threshold_changed)
        self.disagree_only = QCheckBox("Disagrees with baseline")
        self.disagree_only.toggled.connect(self.filters_changed)
        self.wrong_only = QCheckBox("Wrong against gold")
        self.wrong_only.setToolTip("Tickets whose label differs from the gold column (taught ones: cross-validated)")
        self.wrong_only.toggled.connect(self.filters_changed)
        self.taught_only = QCheckBox("Taught")
        self.taught_only.setToolTip("Only the tickets you taught")
        self.taught_only.toggled.connect(self.filters_changed)
        self.next_only = QCheckBox("Teach next")
        self.next_only.setToolTip("The tickets that would teach the classifier most, best first (N: go to the next)")
        self.next_only.toggled.connect(lambda on: self._only_toggled(self.next_only, on))
        self.check_only = QCheckBox("To check")
        self.check_only.setToolTip("The random sample to check, in the order drawn: Enter if the label is right, "
                                   "else pick the right one")  # fmt: skip
        self.check_only.toggled.connect(lambda on: self._only_toggled(self.check_only, on))
        self.suggested: tuple[int, ...] = ()  # rows to teach next, best first (the session's)
        self.to_check: tuple[int, ...] = ()  # the random sample still to check
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search tickets…")
        self.search.setAccessibleName("Search tickets")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(180)
        self.search.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.search.textChanged.connect(self.filters_changed)
        self.cell_chip = QPushButton()
        self.cell_chip.setToolTip("Showing one confusion-matrix cell; click to show all")
        self.cell_chip.clicked.connect(self.clear_cell)
        self.cell_chip.hide()

        self.filter_bar = QWidget()
        flow = FlowLayout(self.filter_bar)
        for widget in self._pairs(
            ("Text:", self.text_column),
            ("Gold:", self.gold_combo),
            ("Show:", self.label_filter),
        ):
            flow.addWidget(widget)
        low = QWidget()
        low_box = QHBoxLayout(low)
        low_box.setContentsMargins(0, 0, 0, 0)
        low_box.addWidget(self.low_only)
        low_box.addWidget(self.threshold)
        extra = (self.disagree_only, self.wrong_only, self.taught_only, self.next_only, self.check_only)
        for widget in (low, *extra, self.cell_chip, self.search):
            flow.addWidget(widget)

    @staticmethod
    def _pairs(*pairs: tuple[str, QWidget]) -> list[QWidget]:
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

    def _build_table(self) -> None:
        self.table = TicketView()
        self.table.setModel(self.proxy)
        self.table.setAccessibleName("Tickets")
        self.table.setTabKeyNavigation(False)  # Tab leaves the table (arrows move between cells)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # file order first
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.delegate = LabelDelegate(self.model.table, self.table)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self.model.modelReset.connect(self.size_columns)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self.size_columns()

    def _build_run_bar(self) -> None:
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
        self.stop_button.clicked.connect(self._stop_or_resume)
        self.run_row = QHBoxLayout()
        self.run_row.addWidget(self.baseline_toggle)
        self.run_row.addWidget(self.progress, 1)
        self.run_row.addWidget(self.rate_label)
        self.run_row.addWidget(self.stop_button)

    # ---------------------------------------------------------------- state

    def show_empty(self, empty: bool) -> None:
        self.stack.setCurrentWidget(self.empty if empty else self.table)

    def size_columns(self) -> None:
        """The ticket text takes the spare width; the narrow columns stay readable (:mod:`ticket_columns`)."""
        size_columns(self.table, self.model)
        self.table.setItemDelegateForColumn(self.model.column_index(Col.LABEL), self.delegate)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        fit_ticket_column(self.table, self.model)

    def set_columns(self, columns: list[str], text_column: str, gold: str | None) -> None:
        self.text_column.clear()
        self.text_column.addItems(columns)
        self.text_column.setCurrentText(text_column)
        self.gold_combo.clear()
        self.gold_combo.addItem(NO_GOLD)
        self.gold_combo.addItems([c for c in columns if c != text_column])  # the ticket text is never gold
        self.gold_combo.setCurrentText(gold or NO_GOLD)

    def _gold_activated(self) -> None:
        text = self.gold_combo.currentText()
        self.gold_column_chosen.emit(None if text in ("", NO_GOLD) else text)

    def refresh_label_filter(self) -> None:
        """Current labels with their row counts, keeping the chosen one."""
        current = self.label_filter.currentData()
        counts = label_counts(self.model.table)
        self.label_filter.blockSignals(True)
        self.label_filter.clear()
        total = sum(counts.values())
        self.label_filter.addItem(f"{ALL_LABELS} ({total})" if total else ALL_LABELS, None)
        for name in self.model.table.labels:
            self.label_filter.addItem(f"{name} ({counts.get(name, 0)})", name)
        index = self.label_filter.findData(current)
        self.label_filter.setCurrentIndex(max(0, index))
        self.label_filter.blockSignals(False)

    def filters(self) -> Filters:
        return Filters(
            label=self.label_filter.currentData(),
            below_confidence=self.threshold.value() if self.low_only.isChecked() else None,
            disagreements=self.disagree_only.isChecked(),
            wrong=self.wrong_only.isChecked(),
            search=self.search.text(),
            cell=self.cell,
            taught=self.taught_only.isChecked(),
            only=self._only(),
        )

    def _only(self) -> tuple[int, ...] | None:
        """The rows of *Teach next* / *To check*, in their order (best first, as drawn): the table lists them so."""
        chosen = [rows for box, rows in ((self.next_only, self.suggested), (self.check_only, self.to_check))
                  if box.isChecked()]  # fmt: skip
        if not chosen:
            return None
        others = [set(rows) for rows in chosen[1:]]
        return tuple(r for r in chosen[0] if all(r in other for other in others))

    def _only_toggled(self, box: QCheckBox, on: bool) -> None:
        if on:  # a list of work to do: no other filter hides part of it (2 of 20 to check were listed)
            self.reset_filters(keep=box, emit=False)
        self.filters_changed.emit()

    def show_only(self, box: QCheckBox) -> None:
        """*Check a random sample*, and the like: this list alone, every other filter off."""
        self.reset_filters(keep=box, emit=not box.isChecked())
        box.setChecked(True)

    def say_hidden(self, loaded: int) -> None:
        """Every loaded ticket filtered out: say by which filters, rather than show an empty table."""
        if not loaded or self.proxy.rowCount():
            self.hidden_row.hide()
            return
        named = [box.text() for box in (self.low_only, self.disagree_only, self.wrong_only, self.taught_only,
                                        self.next_only, self.check_only) if box.isChecked()]  # fmt: skip
        if self.label_filter.currentData() is not None:
            named.append(f"Show: {self.label_filter.currentData()}")
        if self.search.text():
            named.append(f"the search '{self.search.text()}'")
        if self.cell is not None:
            named.append(self.cell_chip.text().rstrip(" ✕"))
        which = "The one ticket does not pass" if loaded == 1 else f"None of the {loaded} tickets passes"
        self.hidden.setText(f"{which} {', '.join(named) or 'the filters'}.")
        self.hidden_row.show()

    def reset_filters(self, keep: QCheckBox | None = None, emit: bool = True) -> None:
        """Every filter off but ``keep`` (a new file, a new list of work): a table emptied by a filter left
        on from the last file gave no hint why."""
        boxes = (self.low_only, self.disagree_only, self.wrong_only, self.taught_only, self.next_only, self.check_only)
        for widget in (*boxes, self.search, self.label_filter):
            widget.blockSignals(True)
        for box in boxes:
            box.setChecked(box is keep and box.isChecked())
        self.search.clear()
        self.label_filter.setCurrentIndex(0)
        for widget in (*boxes, self.search, self.label_filter):
            widget.blockSignals(False)
        self.cell = None
        self.cell_chip.hide()
        if emit:
            self.filters_changed.emit()

    def set_rows(self, suggested: tuple[int, ...] | None = None, to_check: tuple[int, ...] | None = None) -> None:
        """The session's suggestions or random sample changed: filter by the new rows if that filter is on."""
        if suggested is not None:
            self.suggested = suggested
        if to_check is not None:
            self.to_check = to_check
        if (suggested is not None and self.next_only.isChecked()) or (
            to_check is not None and self.check_only.isChecked()
        ):
            self.filters_changed.emit()

    def set_cell(self, gold: int, predicted: int, text: str) -> None:
        self.cell = (gold, predicted)
        self.cell_chip.setText(f"{text} ✕")
        self.cell_chip.show()
        self.filters_changed.emit()

    def clear_cell(self) -> None:
        self.cell = None
        self.cell_chip.hide()
        self.filters_changed.emit()

    def _threshold_changed(self, value: float) -> None:
        self.model.set_low_confidence(value)
        self.filters_changed.emit()

    def show_run(self, status: RunStatus) -> None:
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
            self.rate_label.setText(f"Stopped: {classified}{status.remaining:,} not read by the language model yet")
        elif status.state == "stopped":
            self.rate_label.setText(f"Stopped: {status.remaining} not labelled yet")
        elif status.state == "done" and status.total:
            self.rate_label.setText("All labelled")
        else:
            self.rate_label.setText("")
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

    def _current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        self.row_selected.emit(self.proxy.mapToSource(current).row() if current.isValid() else -1)

    def select_source_row(self, row: int) -> None:
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if index.isValid():
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.table.selectionModel().setCurrentIndex(index, flags)
            self.table.scrollTo(index)


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{seconds // 60} min"
    return f"{seconds / 3600:.1f} h"
