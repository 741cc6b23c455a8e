"""The results area: run summary with a latency chart, accuracy against gold (read-only, click-through),
the tickets whose label flipped with the last prompt save, and the prompt's versions.

A prompt with several fields shows one field's Accuracy, Flipped and Versions at a time, the one chosen in the
*Field:* selector at the top of the tab shown (one selector for the three tabs, moved into the one shown: a lead who
picked the priority to read its accuracy and then opened Flipped would otherwise read the queue's flips under the
priority's matrix; not on the Summary tab, which is the run's, nor for a one-field prompt, whose tabs are as they
were). At the tab bar's corner it left the four tabs too little room at 1024 px: they scrolled, Summary hidden."""

from __future__ import annotations

import html

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...engine.scoring import GoldReport, LatencySummary
from ...engine.tickets import FORMAT_NAMES
from ...words import counted, plural
from .latency_chart import BASELINE_COLOR, CACHED_COLOR, LatencyChart
from .matrix_titles import distinct_elided, two_lines

NO_FLIPS_YET = "No earlier version to compare with yet: labels that change between prompt versions are listed here."
NO_FLIPS = "No label changed with the last prompt save."
FLIPS_NAME = "Tickets whose label changed with the last prompt save"
ROW_TITLE = 110  # px: the widest a gold label's row title gets in the confusion matrix
NO_GOLD_TEXT = "Pick a gold column (a column of correct labels) in the bar above the tickets to see accuracy."


def read_only(table: QTableWidget) -> QTableWidget:
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.verticalHeader().setDefaultSectionSize(22)
    table.setTabKeyNavigation(False)  # Tab moves on to the next control, not to the next cell
    return table


class ResultsArea(QTabWidget):
    flip_selected = Signal(int)  # source row of a ticket whose label flipped
    cell_selected = Signal(int, int, str, int)  # gold index, predicted index, description, field (0: the first)
    accuracy_field_chosen = Signal(int)  # the field whose accuracy the Accuracy tab shows (0: the first)
    version_revert = Signal(int)  # prompt version to go back to
    version_diff = Signal(int, int)  # two prompt versions to compare

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDocumentMode(True)
        self.stats = QLabel()
        self.stats.setWordWrap(True)
        self.stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stats.setAccessibleName("Run summary")
        self.chart = LatencyChart()
        summary = QWidget()
        box = QVBoxLayout(summary)
        box.addWidget(self.stats)
        box.addWidget(self.chart, 1)
        self.addTab(summary, "Summary")

        self.accuracy = QLabel(NO_GOLD_TEXT)
        self.accuracy.setWordWrap(True)
        self.accuracy.setAccessibleName("Accuracy")
        self.confusion = read_only(QTableWidget(0, 0))
        self.confusion.setAccessibleName("Confusion matrix (rows: gold, columns: predicted), recall and precision")
        self.confusion.setToolTip(
            "Rows: the gold label; columns: the label given (labelled). The last column is each gold label's "
            "recall, the last row each label's precision. Click a cell to list its tickets."
        )
        self.confusion.cellClicked.connect(self._cell_clicked)
        self.confusion.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.confusion.horizontalHeader().setMinimumSectionSize(36)
        self.confusion.horizontalHeader().sectionResized.connect(self._fit_headers)
        # and once the layout has settled: names elided while the tab was hidden stayed "ac…nt" in a
        # column wide enough for "account"
        header = self.confusion.horizontalHeader()
        header.geometriesChanged.connect(lambda: QTimer.singleShot(0, self, self._fit_headers))
        self.axes = QLabel("Rows: gold ↓ · Columns: labelled →")  # the matrix's axis names, as its tooltips say
        self.axes.setAccessibleName("Confusion matrix axes")
        self.axes.hide()
        self.field_choice = QComboBox()  # a prompt with several fields: whose accuracy, flips and versions are shown
        self.field_choice.setAccessibleName("Field whose accuracy, flips and versions are shown")
        self.field_choice.setToolTip(
            "A prompt with several fields: each field's accuracy against its own gold column, its flipped labels and "
            "its versions"
        )
        self.field_choice.activated.connect(lambda index: self.accuracy_field_chosen.emit(index))
        self.field_row = QWidget()
        row = QHBoxLayout(self.field_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Field:"))
        row.addWidget(self.field_choice)
        row.addStretch(1)
        self.field_row.hide()
        self._field_boxes: dict[int, QVBoxLayout] = {}  # tab -> its layout, where the field selector goes when shown
        self.currentChanged.connect(lambda _: self._show_field_row())
        accuracy = QWidget()
        box = self._field_boxes[1] = QVBoxLayout(accuracy)
        box.addWidget(self.field_row)  # the tab it is in until another is shown
        box.addWidget(self.accuracy)
        box.addWidget(self.axes)
        box.addWidget(self.confusion, 1)
        self.addTab(accuracy, "Accuracy")

        self.flips = QListWidget()
        self.flips.setAccessibleName(FLIPS_NAME)
        self._flips_of = ""  # whose flips are listed ("": the first field's)
        self.flips.itemActivated.connect(lambda item: self.flip_selected.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.flips.itemClicked.connect(lambda item: self.flip_selected.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.flips_note = QLabel(NO_FLIPS_YET)  # the tab was blank, with no words, on the first run
        self.flips_note.setWordWrap(True)
        self.flips_note.setAccessibleName("Flipped labels note")
        flipped = QWidget()
        box = self._field_boxes[2] = QVBoxLayout(flipped)
        box.addWidget(self.flips_note)
        box.addWidget(self.flips, 1)
        box.addStretch(0)  # the note at the top while the list is hidden
        self.addTab(flipped, "Flipped")

        self.versions = read_only(QTableWidget(0, 5))
        self.versions.setHorizontalHeaderLabels(["Version", "Saved", "Accuracy", "Taught", "Prompt"])
        self.versions.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.versions.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.versions.verticalHeader().setVisible(False)
        for column in range(4):  # number, date, accuracy and taught whole; the prompt's summary takes the rest
            self.versions.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.versions.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.versions.setAccessibleName("Prompt versions")
        self.compare_button = diff = QPushButton("Compare two…")
        diff.setToolTip("Select two versions (Ctrl+click) to see what changed between them")
        diff.setEnabled(False)  # with none selected it did nothing, with one it compared a version with itself
        diff.clicked.connect(self._diff_clicked)
        self.versions.itemSelectionChanged.connect(lambda: diff.setEnabled(len(self._selected_versions()) == 2))
        self.revert_button = revert = QPushButton("Go back to this version")
        revert.setEnabled(False)  # with none or two selected it looked ready and did nothing (W17)
        revert.clicked.connect(self._revert_clicked)
        self.versions.itemSelectionChanged.connect(lambda: revert.setEnabled(len(self._selected_versions()) == 1))
        versions = QWidget()
        box = self._field_boxes[3] = QVBoxLayout(versions)
        box.addWidget(self.versions, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(diff)
        row.addWidget(revert)
        box.addLayout(row)
        self.addTab(versions, "Versions")
        self._version_numbers: list[int] = []
        self._versions_of = ""  # whose versions are listed ("": the first field's)
        self._labels: list[str] = []
        self._field = 0  # the field whose confusion matrix is shown

    # --------------------------------------------------------------- summary

    def show_stats(
        self,
        labelled: int,
        total: int,
        problems: int,
        cached: LatencySummary | None,
        baseline: LatencySummary | None,
        agree: tuple[int, int] | None,
        learning: str = "",
        notes: str = "",
        classified: int = 0,
        field: str = "",
    ) -> None:
        """``field``: a prompt with several fields, the first's name: the fast path's time, the baseline's and their
        agreement are that field's (the per-field line in ``notes`` gives each field's and the total); a walkthrough
        read "Fast path: median 105 ms/ticket" as a ticket's cost when both fields took 346 ms."""
        of = f" ({html.escape(field)})" if field else ""
        if not total and not problems:
            self.stats.setText(f"No tickets yet. Drop a {FORMAT_NAMES} file on the window, or paste tickets.")
            return
        parts = [f"<b>{labelled}</b> of {counted(total, 'ticket')} labelled."]
        if classified > labelled:  # the first pass is ahead: say what the lead has, then what is refined
            have = plural(classified, "has", "have")
            parts = [f"<b>{labelled}</b> of {counted(total, 'ticket')} labelled by the language model; {classified:,} "
                     f"{have} a label (the others are the classifier's first pass)."]  # fmt: skip
        if problems:
            parts.append(f"{counted(problems, 'row')} {plural(problems, 'has', 'have')} no ticket text and "
                         f"{plural(problems, 'is', 'are')} kept unlabelled.")  # fmt: skip
        if learning:
            parts.append(learning)
        if cached is not None:
            parts.append(f"Fast path{of}: median <b>{cached.median_ms:.0f} ms</b>/ticket (p90 {cached.p90_ms:.0f}).")
        if baseline is not None:
            parts.append(f"Baseline full re-encode{of}: median <b>{baseline.median_ms:.0f} ms</b>.")
            if cached is not None and cached.median_ms > 0:
                parts.append(f"Speed-up <b>{baseline.median_ms / cached.median_ms:.1f}×</b>.")
        if agree is not None and agree[1]:
            same, n = agree
            parts.append(f"Agreement{of} <b>{same}/{n}</b> ({100 * same / n:.1f}%).")
        if notes:
            parts.append(notes)
        self.stats.setText(" ".join(parts))

    # -------------------------------------------------------------- accuracy

    def show_latencies(self, cached: list[float], baseline: list[float], field: str = "") -> None:
        """The latency chart's series: each ticket's cached-path time and the baseline's where it ran (with
        several fields, ``field``'s: the first's)."""
        self.chart.set_series(cached, baseline, field)

    def show_fields(self, names: list[str]) -> None:
        """Every field's name, the first's first ([] for a one-field prompt, which shows no field selector):
        the Accuracy tab shows one field's at a time, the one chosen (kept by name across prompt versions). A
        field kept whose place changed (a Save that moved a field) is chosen anew, as the lead would: the tabs
        were filled by its old place, and the Versions tab listed the other field's versions under its name."""
        if names == [self.field_choice.itemText(i) for i in range(self.field_choice.count())]:
            return
        was, place = self.field_choice.currentText(), self.accuracy_field()
        self.field_choice.clear()
        self.field_choice.addItems(names)
        self.field_choice.setCurrentIndex(names.index(was) if was in names else 0)
        self._show_field_row()
        if was in names and self.accuracy_field() != place:
            self.accuracy_field_chosen.emit(self.accuracy_field())

    def _show_field_row(self) -> None:
        """The field selector, for a prompt with several fields: at the top of the tab shown (not the Summary)."""
        box = self._field_boxes.get(self.currentIndex())
        if box is not None and box.indexOf(self.field_row) != 0:
            box.insertWidget(0, self.field_row)  # taken out of the tab it was in
        self.field_row.setVisible(self.field_choice.count() > 1 and box is not None)

    def accuracy_field(self) -> int:
        """The field whose accuracy, flips and versions the tabs show (0: the first, and for a one-field prompt)."""
        return max(0, self.field_choice.currentIndex()) if self.field_choice.count() > 1 else 0

    def show_gold(
        self, report: GoldReport | None, since: str = "", note: str = "", field: int = 0, far: int | None = None
    ) -> None:
        """Field ``field``'s accuracy against gold (0: the first's); ``since``: the change since the previous version,
        or why there is none; ``far``: an ordered field's tickets two or more steps from their gold label."""
        self._field = field
        if report is None or report.total == 0:
            self.accuracy.setText(note or NO_GOLD_TEXT)
            self.confusion.setRowCount(0)
            self.confusion.setColumnCount(0)
            self.axes.hide()
            return
        self.axes.show()
        share = f"{report.correct:,}/{report.total:,} with a gold label"
        if far is not None:  # an ordered field (low < medium < high)
            order = html.escape(" < ".join(s.label for s in report.per_label))  # rich text: "<" would start a tag
            share += f"; {far:,} two or more steps from their gold label ({order})"
        text = f"Accuracy against gold <b>{100 * report.accuracy:.1f}%</b> ({share})"
        if since:
            text += f", {since}"
        self.accuracy.setText(text + ". " + note)
        names = [s.label for s in report.per_label]
        self._labels = names
        n = len(names)
        self.confusion.clear()
        self.confusion.setRowCount(n + 1)
        self.confusion.setColumnCount(n + 2)
        self.confusion.setHorizontalHeaderLabels([*names, "recall", "support"])
        self.confusion.setVerticalHeaderLabels([*names, "precision"])
        peak = max((v for row in report.confusion for v in row), default=0) or 1
        for g, row in enumerate(report.confusion):
            for p, count in enumerate(row):
                item = QTableWidgetItem(str(count))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                shade = QColor(CACHED_COLOR if g == p else BASELINE_COLOR)
                shade.setAlpha(int(30 + 160 * count / peak) if count else 0)
                item.setBackground(shade)
                item.setToolTip(f"gold {names[g]}, labelled {names[p]}: {counted(count, 'ticket')}")
                self.confusion.setItem(g, p, item)
        for i, stats in enumerate(report.per_label):
            for r, c, value in (
                (i, n, stats.recall),
                (n, i, stats.precision),
            ):
                item = QTableWidgetItem("–" if value is None else f"{value:.2f}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.confusion.setItem(r, c, item)
            support = QTableWidgetItem(str(stats.support))
            support.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            self.confusion.setItem(i, n + 1, support)
        header = self.confusion.horizontalHeader()
        mode = QHeaderView.ResizeMode
        for column in range(n + 2):  # recall and support: as wide as their titles; the labels share the rest
            header.setSectionResizeMode(column, mode.ResizeToContents if column >= n else mode.Stretch)
        self._fit_headers()
        QTimer.singleShot(0, self, self._fit_headers)

    def _fit_headers(self) -> None:
        """Label names too long for their column break at a space onto two lines ("hr and / work"); where
        even that does not fit (five labels in a 1024 px window read "b…g", "hr…rk"), the columns are
        numbered and each row's title starts with its number, the legend ("1 banking"), the whole name in
        every tooltip. Row titles are elided in the middle at most ROW_TITLE px, so the matrix keeps room
        for its columns; numbered columns need room for a count alone, and leave the rest to the row titles."""
        header, rows = self.confusion.horizontalHeader(), self.confusion.verticalHeader()
        margin = 2 * header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin) + 4
        metrics = header.fontMetrics()
        columns = []
        for i, name in enumerate(self._labels):
            width = header.sectionSize(i) - margin
            columns.append(name if metrics.horizontalAdvance(name) <= width else two_lines(name, metrics, width))
        numbered = None in columns
        titles = [f"{i + 1} {name}" if numbered else name for i, name in enumerate(self._labels)]
        title_width = ROW_TITLE - margin
        if numbered:  # a numbered column needs room for a count alone: the row titles take the rest (W17)
            n = len(self._labels)
            rest = rows.width() + self.confusion.viewport().width() - header.sectionSize(n) - header.sectionSize(n + 1)
            room = rest - n * (metrics.horizontalAdvance("0000") + margin) - margin
            widest = max((rows.fontMetrics().horizontalAdvance(t) for t in titles), default=0)
            title_width = max(title_width, min(room, widest))
        for i, name in enumerate(self._labels):
            texts = (
                (self.confusion.horizontalHeaderItem(i), str(i + 1) if numbered else columns[i] or name),
                (
                    self.confusion.verticalHeaderItem(i),
                    distinct_elided(titles[i], titles, rows.fontMetrics(), title_width),
                ),
            )
            for item, shown in texts:
                if item is None:
                    continue
                if item.text() != shown:
                    item.setText(shown)
                item.setToolTip(name)
                item.setData(Qt.ItemDataRole.UserRole, name)
        self.axes.setText(f"Rows: gold ↓ · Columns: labelled{' (numbered as the rows)' if numbered else ''} →")

    def _cell_clicked(self, row: int, column: int) -> None:
        if row < len(self._labels) and column < len(self._labels):
            whose = f"{self.field_choice.itemText(self._field)}: " if self._field else ""
            said = f"{whose}gold {self._labels[row]} → {self._labels[column]}"
            self.cell_selected.emit(row, column, said, self._field)

    # ----------------------------------------------------------------- flips

    def show_flips(
        self, flips: list[tuple[int, str, str, str]], count: int, compared: bool = False, field: str = ""
    ) -> None:
        """flips: (source row, ticket text, old label, new label), the first of ``count``; ``compared``:
        some ticket has a label from an earlier prompt version to compare with; ``field``: a further field's name
        (its labels before its part of the prompt or its taught tickets last changed, against its labels now)."""
        shown = [(self.flips.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.flips.count())]
        note = "" if count else flips_note(compared, field)
        same = shown == [f[0] for f in flips] and self.tabText(2).endswith(f"({count})") and self._flips_of == field
        if same and note == self.flips_note.text():
            return  # nothing changed: no rebuild of a 2,000-item list every refresh
        self._flips_of = field
        self.flips.clear()
        for row, text, old, new in flips:
            item = QListWidgetItem(f"#{row + 1}  {old} → {new}:  {text[:120]}")
            item.setData(Qt.ItemDataRole.UserRole, row)
            self.flips.addItem(item)
        self.flips.setAccessibleName(f"Tickets whose {field} label changed" if field else FLIPS_NAME)
        self.setTabText(2, f"Flipped ({count})" if count else "Flipped")
        self.flips_note.setText(note)
        self.flips_note.setVisible(not count)
        self.flips.setVisible(bool(count))  # no empty box under the note

    # -------------------------------------------------------------- versions

    def show_versions(self, rows: list[tuple[int, str, float | None, str, int | None]], field: str = "") -> None:
        """rows: (version, saved at, accuracy or None, one-line prompt summary, taught tickets the accuracy
        was measured with or None), newest first; ``field``: a further field's name (its versions: its part of
        the prompt, its accuracy against its own gold column and its taught tickets)."""
        self.versions.setAccessibleName(f"Versions of {field}" if field else "Prompt versions")
        self.revert_button.setToolTip(
            f"Put this version's {field} instruction, labels and examples back in the editor and save (the other "
            "fields stay as they are)"
            if field
            else "Put this version back in the editor and save"
        )
        # kept by number (a new version shifts every row down), for the same field's list
        chosen = set(self._selected_versions()) if field == self._versions_of else set()
        self._versions_of = field
        self.versions.setRowCount(len(rows))
        self._version_numbers = [r[0] for r in rows]
        for r, (version, saved, accuracy, summary, taught) in enumerate(rows):
            shown = "–" if accuracy is None else f"{100 * accuracy:.1f}%"
            cells = [str(version), saved, shown, "–" if taught is None else str(taught), summary]
            for c, value in enumerate(cells):
                item = QTableWidgetItem(value)
                item.setToolTip(value if c == 4 else "")
                self.versions.setItem(r, c, item)
        # After Revert to v1 (row 2 of 2) the highlight stayed on row 2, then v2, under a Compare or Revert button.
        picked = QItemSelection()
        for r, number in enumerate(self._version_numbers):
            if number in chosen:
                picked.select(self.versions.model().index(r, 0), self.versions.model().index(r, 4))
        self.versions.selectionModel().select(picked, QItemSelectionModel.SelectionFlag.ClearAndSelect)

    def _selected_versions(self) -> list[int]:
        rows = sorted({i.row() for i in self.versions.selectedIndexes()})
        return [self._version_numbers[r] for r in rows if r < len(self._version_numbers)]

    def _diff_clicked(self) -> None:
        chosen = self._selected_versions()
        if len(chosen) == 2:
            self.version_diff.emit(min(chosen), max(chosen))

    def _revert_clicked(self) -> None:
        chosen = self._selected_versions()
        if len(chosen) == 1:
            self.version_revert.emit(chosen[0])


def flips_note(compared: bool, field: str = "") -> str:
    """What the Flipped tab says with no flip to list: the first field's words, or a further field's, named."""
    if not field:
        return NO_FLIPS if compared else NO_FLIPS_YET
    if compared:
        return f"No {field} label changed when its part of the prompt or its taught tickets last changed."
    return (
        f"No earlier {field} labels to compare with yet: {field} labels that change when its part of the prompt or "
        "its taught tickets change are listed here."
    )
