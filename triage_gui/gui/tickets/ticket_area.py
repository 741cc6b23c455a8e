"""The ticket area: filter bar, the ticket table (teach by editing the label) and the run bar (:mod:`run_bar`).

The window talks to it through its signals and methods (the gold column shown, the settings a restart
keeps, focus, the rows a filter shows), not through its widgets: tests may click those, as a user would."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...defaults import LOW_CONFIDENCE
from ...engine.table import text_parts
from ...session.gold import Filters
from ...session.status import RunStatus
from ..widgets.flow_layout import FlowLayout, labelled
from . import text_columns
from .compact_filters import CompactFilters
from .empty_state import EmptyState
from .field_gold import NO_GOLD, FieldGold
from .filter_combo import combo
from .hidden_hint import hidden_hint
from .label_picker import LabelDelegate
from .language_filter import LanguageFilter, shown
from .run_bar import RunBar
from .ticket_columns import fit_ticket_column, size_columns
from .ticket_model import Col, TicketFilterProxy, TicketTableModel, label_counts
from .ticket_view import TicketView

ALL_LABELS = "All labels"


class TicketArea(QWidget):
    filters_changed = Signal()
    text_column_chosen = Signal(str)
    gold_column_chosen = Signal(object)  # column name or None
    field_gold_chosen = Signal(int, object)  # a further field (1: the second), its gold column name or None
    baseline_toggled = Signal(bool)
    stop_clicked = Signal()
    resume_clicked = Signal()
    row_selected = Signal(int)  # source row, -1 for none
    teach_keys = Signal(list, object)  # the table's: source rows, label or None
    accept_keys = Signal(list)
    next_key = Signal()
    open_clicked = Signal()  # the empty state's
    sample_clicked = Signal()
    recent_clicked = Signal(str)
    note = Signal(str)  # for the status bar: a filter dropped, and why

    def __init__(self, model: TicketTableModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.proxy = TicketFilterProxy(self)
        self.proxy.setSourceModel(model)
        self.cell: tuple[int, int] | None = None  # confusion-matrix cell filter
        self.cell_field = 0  # whose confusion matrix (0: the first field's)
        self._build_filters()
        self._build_table()
        self.run_bar = bar = RunBar(self)  # its widgets under the names they had here (tests click them)
        self.baseline_toggle, self.progress, self.rate_label, self.stop_button = (
            bar.baseline_toggle, bar.progress, bar.rate_label, bar.stop_button
        )  # fmt: skip
        self.empty = EmptyState()
        view, empty = self.table, self.empty
        for theirs, mine in ((bar.baseline_toggled, self.baseline_toggled), (bar.stop_clicked, self.stop_clicked),
                             (bar.resume_clicked, self.resume_clicked), (view.teach_keys, self.teach_keys),
                             (view.accept_keys, self.accept_keys), (view.next_key, self.next_key),
                             (empty.open_clicked, self.open_clicked), (empty.sample_clicked, self.sample_clicked),
                             (empty.recent_clicked, self.recent_clicked)):  # fmt: skip
            theirs.connect(mine)
        self.hidden_row, self.hidden = hidden_hint(self.reset_filters)  # which filters hide every ticket
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.table)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.filter_bar)
        box.addWidget(self.hidden_row)
        box.addWidget(self.stack, 1)
        box.addLayout(bar.row)
        self.show_empty(True)

    # --------------------------------------------------------------- building

    def _build_filters(self) -> None:
        self.text_column = combo("Ticket text column", 10, "Which column holds the ticket text")
        self.text_column.activated.connect(self._text_column_activated)
        self._text_in_use = ""
        self.gold_combo = combo("Gold label column", 10, "A column of correct labels, to measure accuracy against")
        self.gold_combo.activated.connect(self._gold_activated)
        self.field_gold = FieldGold(self.gold_combo)  # the combos' columns, and each further field's gold
        self.field_gold.chosen.connect(self.field_gold_chosen)
        self.label_filter = combo("Filter by label", 14)
        self.label_filter.addItem(ALL_LABELS, None)
        self.label_filter.activated.connect(self.filters_changed)
        self.language_filter = LanguageFilter()
        self.language_filter.activated.connect(self.filters_changed)
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
        self.field_suggested: tuple[int, ...] | None = None  # a further field's in use (None: the first's)
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
        pairs = labelled(
            ("Text:", self.text_column),
            ("Gold:", self.gold_combo),
            ("Show:", self.label_filter),
            ("Language:", self.language_filter),
        )
        for widget in (*pairs[:2], self.field_gold, *pairs[2:]):
            flow.addWidget(widget)
        self.field_gold.first_label = pairs[1].findChildren(QLabel)[0]  # "Gold:", "Gold (queue):" with two fields
        low = QWidget()
        low_box = QHBoxLayout(low)
        low_box.setContentsMargins(0, 0, 0, 0)
        low_box.addWidget(self.low_only)
        low_box.addWidget(self.threshold)
        extra = (self.disagree_only, self.wrong_only, self.taught_only, self.next_only, self.check_only)
        for widget in (low, *extra, self.cell_chip, self.search):
            flow.addWidget(widget)
        self.compact = CompactFilters(flow, (low, *extra), (self.cell_chip, self.search), (self.low_only, *extra))

    def _build_table(self) -> None:
        self.table = TicketView()
        self.table.setModel(self.proxy)
        self.table.setAccessibleName("Tickets")
        self.table.setTabKeyNavigation(False)  # Tab leaves the table (arrows move between cells)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # file order first
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        edit = QAbstractItemView.EditTrigger
        self.table.setEditTriggers(edit.DoubleClicked | edit.EditKeyPressed)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.delegate = LabelDelegate(self.model.table, self.table)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self.model.modelReset.connect(self.size_columns)
        self.table.keep_cell_through_resets(self.model)  # a Save's new version: the field in use stays
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self.size_columns()

    # ---------------------------------------------------------------- state

    def show_empty(self, empty: bool) -> None:
        self.stack.setCurrentWidget(self.empty if empty else self.table)

    def size_columns(self) -> None:
        """The ticket text takes the spare width; the narrow columns stay readable (:mod:`ticket_columns`)."""
        size_columns(self.table, self.model, self.delegate)

    @property
    def field_in_use(self) -> int:
        """The field whose column the current cell is, or was, in (several fields; 0: the first field)."""
        return self.model.field_of(self.table.last_column)

    def show_fields(self, names: list[str]) -> None:
        """A prompt with several fields: the run bar says which the language model reads."""
        self.run_bar.set_fields(names)
        self.field_gold.set_fields(names)  # and a gold column per further field

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        fit_ticket_column(self.table, self.model)
        self.compact.fit(self.height())  # a small height: the check boxes behind one button, the rows kept

    def set_columns(self, columns: list[str], text_column: str, gold: str | None) -> None:
        self._columns, self._text_in_use = list(columns), text_column
        text_columns.fill(self.text_column, columns, text_column)
        text = set(text_parts(text_column, columns))
        self.field_gold.set_columns([c for c in columns if c not in text], gold)  # the ticket text is never gold

    def show_gold(self, column: str | None, field: int = 0) -> None:
        """Field ``field``'s gold column in use (None: none; 0: the first field's), as the lead's choice shows it."""
        self.field_gold.show_gold(field, column)

    @property
    def column_count(self) -> int:
        """The columns offered as the ticket text."""
        return len(getattr(self, "_columns", []))

    def _text_column_activated(self) -> None:
        chosen = self.text_column.currentText()
        if chosen == text_columns.CHOOSE_SEVERAL:
            chosen = text_columns.ask(self, self._columns, self._text_in_use) or self._text_in_use
            self.text_column.setCurrentText(self._text_in_use)  # until the table says what it reads
        self.text_column_chosen.emit(chosen)

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
        if current is not None and index < 0:  # a Save renamed or removed it: all labels, said (it still hid rows)
            self.filters_changed.emit()
            self.note.emit(f"Show: {current} is no label of this prompt version: showing all labels.")

    def refresh_language_filter(self, counts: dict[str, int]) -> None:
        """The languages detected so far (code -> tickets), keeping the one chosen."""
        self.language_filter.refresh(counts)

    def filters(self) -> Filters:
        return Filters(
            label=self.label_filter.currentData(),
            below_confidence=self.threshold.value() if self.low_only.isChecked() else None,
            disagreements=self.disagree_only.isChecked(),
            wrong=self.wrong_only.isChecked(),
            search=self.search.text(),
            cell=self.cell,
            cell_field=self.cell_field,
            taught=self.taught_only.isChecked(),
            only=self._only(),
            language=self.language_filter.currentData(),
        )

    def _only(self) -> tuple[int, ...] | None:
        """The rows of *Teach next* / *To check*, in their order (best first, as drawn): the table lists them so."""
        suggested = self.suggested if self.field_suggested is None else self.field_suggested
        chosen = [rows for box, rows in ((self.next_only, suggested), (self.check_only, self.to_check))
                  if box.isChecked()]  # fmt: skip
        if not chosen:
            return None
        others = [set(rows) for rows in chosen[1:]]
        return tuple(r for r in chosen[0] if all(r in other for other in others))

    def _only_toggled(self, box: QCheckBox, on: bool) -> None:
        if on:  # a list of work to do: no other filter hides part of it (2 of 20 to check were listed)
            self.reset_filters(keep=box, emit=False)
        self.filters_changed.emit()

    def show_to_check(self) -> None:
        """*Check a random sample*: the sample alone."""
        self.show_only(self.check_only)

    @property
    def checking(self) -> bool:
        """The *To check* filter is on."""
        return self.check_only.isChecked()

    def filter_rows(self, mask: np.ndarray | None, order: Sequence[int] | None = None, wrong: str = "") -> None:
        """Show the mask's rows (``order``: a list's own order; ``wrong``: the field *Wrong against gold* judged)."""
        self.wrong_only.setText(f"Wrong against gold ({wrong})" if wrong else "Wrong against gold")
        self.proxy.set_mask(mask, order)

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
        if (language := self.language_filter.currentData()) is not None:
            named.append(f"Language: {shown(language)}")
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
        for widget in (*boxes, self.search, self.label_filter, self.language_filter):
            widget.blockSignals(True)
        for box in boxes:
            box.setChecked(box is keep and box.isChecked())
        self.search.clear()
        self.label_filter.setCurrentIndex(0)
        self.language_filter.setCurrentIndex(0)
        for widget in (*boxes, self.search, self.label_filter, self.language_filter):
            widget.blockSignals(False)
        self.compact.count()  # the boxes changed with their signals blocked: the Filters button's count too
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

    def follow_suggestions(self, name: str, rows: tuple[int, ...] | None) -> None:
        """*Teach next* lists the column in use's field's suggestions (None: the first's) and names it (or "")."""
        self.next_only.setText(f"Teach next ({name})" if name else "Teach next")
        if rows != self.field_suggested:
            self.field_suggested = rows
            if self.next_only.isChecked():
                self.filters_changed.emit()

    def set_cell(self, gold: int, predicted: int, text: str, field: int = 0) -> None:
        self.cell, self.cell_field = (gold, predicted), field
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
        self.run_bar.show_run(status)

    def show_refinement(self, words: str) -> None:  # what the language model's reading changed, once the run ends
        self.run_bar.set_refinement(words)

    def show_new_prompt(self, new: bool) -> None:  # after New prompt: whose labels the tickets show
        self.run_bar.show_new_prompt(new)

    @property
    def threshold_value(self) -> float:
        """The low-confidence threshold (labels below it are marked; a restart keeps it)."""
        return self.threshold.value()

    def set_threshold(self, value: float) -> None:
        self.threshold.setValue(value)

    @property
    def baseline_shown(self) -> bool:
        """Whether the baseline is compared (a restart keeps it)."""
        return self.baseline_toggle.isChecked()

    def show_baseline(self, on: bool) -> None:
        """Compare with the baseline, or not, as a click on the box would (``baseline_toggled`` follows)."""
        self.baseline_toggle.setChecked(on)

    def selected_rows(self) -> list[int]:
        return self.table.selected_rows()

    def edit_current_label(self) -> None:
        """The label picker on the current ticket (or the first selected one)."""
        view, proxy = self.table, self.proxy
        model = proxy.sourceModel()
        if not isinstance(model, TicketTableModel) or not view.selected_rows():
            return
        current = view.currentIndex() if view.currentIndex().isValid() else view.selectionModel().selectedRows()[0]
        source = proxy.mapToSource(current)
        view.setFocus()
        column = current.column() if current.column() in model.label_columns() else model.column_index(Col.LABEL)
        view.edit(proxy.mapFromSource(model.index(source.row(), column)))

    def focus_table(self, empty: bool = False) -> None:
        """Keys to the ticket table, or (``empty``) to the empty state, where Ctrl+V pastes."""
        (self.empty if empty else self.table).setFocus()

    def offer_recent(self, path: str | None) -> None:
        """The empty state offers the last file opened (None: none)."""
        self.empty.set_recent(path)

    def add_paste(self, action: QAction) -> None:
        """Paste (Ctrl+V) on the table and on the empty state."""
        self.addAction(action)
        self.empty.addAction(action)

    def _current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        self.row_selected.emit(self.proxy.mapToSource(current).row() if current.isValid() else -1)

    def select_source_row(self, row: int, field: int = 0) -> None:  # a further field: in its label column
        column = self.model.label_columns()[field] if 0 < field < len(self.model.label_columns()) else 0
        index = self.proxy.mapFromSource(self.model.index(row, column))
        if index.isValid():
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.table.selectionModel().setCurrentIndex(index, flags)
            self.table.scrollTo(index)
