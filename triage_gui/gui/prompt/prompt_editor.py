"""The prompt editor: instruction, a labels table and few-shot examples, with undo/redo and inline errors; for
a prompt with several fields, the field selector (:mod:`field_bar`) says whose it shows, and a field is added,
renamed, moved or removed as one undo step."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QIcon, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...engine.prompt import Example, Field, Label, Problem, PromptProfile
from ...session.field_order import FIRST_FIELD
from .field_bar import FieldBar
from .problem_marks import clear_marks, mark_problems
from .prompt_cells import LabelChoice, MultiLine, TabOn
from .taught_line import KEPT, TaughtLine


class _Snapshot(QUndoCommand):
    """One edit, stored as whole-profile snapshots: simple and exact for a small form."""

    def __init__(self, editor: PromptEditor, before: dict, after: dict, shown: tuple[int, int] | None = None,
                 what: str = "prompt edit") -> None:  # fmt: skip
        super().__init__(what)  # Edit › Undo's words: "prompt edit", a field step names its field (W11)
        self.editor, self.before, self.after, self.shown = editor, before, after, shown  # a field step: whose shown
        self._first = True

    def redo(self) -> None:
        if self._first:  # the widgets already show the new state
            self._first = False
            return
        self.editor._field = self.shown[1] if self.shown else self.editor._field
        self.editor._restore(self.after)

    def undo(self) -> None:
        self.editor._field = self.shown[0] if self.shown else self.editor._field
        self.editor._restore(self.before)


def _icon(theme: str, fallback: QStyle.StandardPixmap | None, style: QStyle) -> QIcon:
    icon = QIcon.fromTheme(theme)
    if icon.isNull() and fallback is not None:
        icon = style.standardIcon(fallback)
    return icon


class PromptEditor(QWidget):
    changed = Signal()  # any edit, after the undo snapshot was taken
    save_requested = Signal()
    import_taught = Signal()
    export_taught = Signal()
    steps_changed = Signal()  # what undo and redo of a prompt edit would do changed (the Edit menu's words)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.indexChanged.connect(self.steps_changed)  # signal to signal: Qt drops both with the editor
        self.undo_stack.cleanChanged.connect(self.steps_changed)
        self._state = PromptProfile("", []).to_dict()
        self._restoring = False
        self._snapshot_timer = QTimer(self, singleShot=True, interval=300)
        self._snapshot_timer.timeout.connect(self._take_snapshot)
        self._fields: list[Field] = []  # a prompt with several fields: each one's prompt ([]: one field)
        self._field = 0  # the field shown
        self.field_bar = FieldBar()
        self.field_bar.chosen.connect(self.show_field)
        self.field_bar.added.connect(self.add_field)
        self.field_bar.renamed.connect(self.rename_field)
        self.field_bar.removed.connect(self.remove_field)
        self.field_bar.moved.connect(self.move_field)
        self.field_bar.ordered_set.connect(lambda on: self.rename_field(ordered=on))

        self.name = QLineEdit()
        self.name.setAccessibleName("Prompt name")
        self.name.setPlaceholderText("Prompt name")
        self.name.setToolTip("The prompt's name; made from its labels until you type one")
        self._auto_name = ""  # the name made from the labels, while the lead has not typed one
        self._names: list[str] = []  # the label names as last seen (to follow a rename into the examples)
        self._renames: list[tuple[str, str]] = []  # labels renamed in their cells since the Save, in order (W14)
        self.instruction = QPlainTextEdit()
        self.instruction.setAccessibleName("Instruction")
        self.instruction.setPlaceholderText("What the model should do with each ticket…")
        self.instruction.setTabChangesFocus(True)

        self.labels = self._table(["Label", "Description"], "Labels")
        self.examples = self._table(["Example ticket", "Label"], "Few-shot examples")
        self.examples.setItemDelegateForColumn(1, LabelChoice(self.label_names, self))
        self._multi_line = (MultiLine(self), MultiLine(self))  # one a view: commitData goes to every view
        self.labels.setItemDelegateForColumn(1, self._multi_line[0])
        self._name_cell = TabOn(self)
        self.labels.setItemDelegateForColumn(0, self._name_cell)
        self._name_cell.on_tab = self._multi_line[0].on_tab = self._tab_in_labels
        self.labels.installEventFilter(self)  # Tab on a selected cell, not editing, too
        self.examples.setItemDelegateForColumn(0, self._multi_line[1])
        self.labels.horizontalHeader().resizeSection(0, 120)
        header = self.examples.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.resizeSection(1, 110)

        self.errors = QLabel()
        self.errors.setWordWrap(True)
        self.errors.setStyleSheet("color: #d23c3c; font-weight: bold;")
        self.errors.setAccessibleName("Prompt problems")
        self.errors.hide()

        self.save_button = QPushButton("Save and re-label")
        self.save_button.setToolTip("Validate the prompt, rebuild the prefix cache and re-label all tickets (Ctrl+S)")
        self.save_button.clicked.connect(self.save_requested)
        self.state_label = QLabel()
        self.state_label.setWordWrap(True)  # "Unsaved: new-prompt.json" on two lines at 1024 px, not cut
        self.taught_count = TaughtLine()  # the shown field's taught tickets and estimate
        import_button = QPushButton("Import…")
        import_button.setToolTip("Teach from a CSV of labelled tickets (text, label)")
        import_button.clicked.connect(self.import_taught)
        export_button = QPushButton("Export…")
        export_button.setToolTip("Save the taught tickets as a CSV (text, label)")
        export_button.clicked.connect(self.export_taught)

        layout = QVBoxLayout(self)
        named = QHBoxLayout()
        named.addWidget(QLabel("<b>Prompt</b>"))
        named.addWidget(self.name, 1)
        layout.addLayout(named)
        layout.addWidget(self.field_bar)
        # Instruction, labels and examples share one splitter, the labels taking most of the height: at 1024x640
        # with eleven labels the table showed 1.5 rows and nothing could be dragged (five or more rows show now).
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.instruction.setMinimumHeight(3 * self.instruction.fontMetrics().lineSpacing() + 10)
        self.examples.setMinimumHeight(self.examples.verticalHeader().defaultSectionSize() + 28)
        self.labels.setMinimumHeight(2 * self.labels.verticalHeader().defaultSectionSize() + 28)
        panes: tuple[tuple[QLabel | QHBoxLayout, QWidget, int], ...] = (
            (QLabel("<b>Instruction</b>"), self.instruction, 1),
            (self._header("<b>Labels</b>", self.labels, reorder=True), self.labels, 6),
            (self._header("<b>Few-shot examples</b>", self.examples, reorder=True), self.examples, 2),
        )
        for i, (title, widget, stretch) in enumerate(panes):
            pane = QWidget()
            box = QVBoxLayout(pane)
            box.setContentsMargins(0, 0, 0, 0)
            box.setSpacing(2)
            if isinstance(title, QHBoxLayout):
                box.addLayout(title)
            else:
                box.addWidget(title)
            box.addWidget(widget, 1)
            self.splitter.addWidget(pane)
            self.splitter.setStretchFactor(i, stretch)
        self.splitter.setSizes([100 * stretch for *_, stretch in panes])  # shares of whatever height there is
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.errors)
        layout.addWidget(self.taught_count)  # the whole width: beside the buttons it wrapped to seven lines
        files = QHBoxLayout()
        files.addWidget(import_button)
        files.addWidget(export_button)
        files.addStretch(1)
        layout.addLayout(files)
        bottom = QHBoxLayout()
        bottom.addWidget(self.state_label, 1)
        bottom.addWidget(self.save_button)
        layout.addLayout(bottom)

        self.name.textEdited.connect(self._edited)
        self.instruction.textChanged.connect(self._edited)
        self.labels.itemChanged.connect(self._label_renamed)  # before the snapshot: one undo step
        self.labels.itemChanged.connect(self._edited)
        self.examples.itemChanged.connect(self._edited)

    def set_taught_count(self, count: int, left: int = 0) -> None:
        """The first field's taught tickets (the only field of a one-field prompt), ``left`` out of its fit."""
        self.taught_count.taught, self.taught_count.left[0] = count, left
        self._show_taught()

    def set_field_taught(self, counts: list[int], names: list[str] | None = None, learned: Sequence[int] = ()) -> None:
        """The taught tickets of each field after the first (the line under the editor counts the shown
        field's: it said "none yet" on the priority field with a priority ticket taught), and every field's
        name as saved, so that a field moved before Save is counted by its name, not its new place; ``learned``:
        how many of each its fit learns from."""
        self.taught_count.further, self.taught_count.saved = list(counts), list(names or [])
        self.taught_count.left[1:] = [n - k for n, k in zip(counts, learned, strict=False)]
        self._show_taught()

    def edit_first_label(self) -> None:
        """The first label's name, ready to type (a new prompt starts there)."""
        self.labels.setFocus()
        self.labels.setCurrentCell(0, 0)
        if (first := self.labels.item(0, 0)) is not None:
            self.labels.editItem(first)

    def focus_instruction(self) -> None:
        self.instruction.setFocus()

    def show_state(self, text: str, new: bool = False, kept: str = KEPT) -> None:
        """The prompt's name, whether it has unsaved changes (``new``: never saved), where the taught tickets are."""
        self.state_label.setText(text)
        self.taught_count.new, self.taught_count.kept = new, kept
        self._show_taught()

    def undo_edit(self) -> None:
        self.flush_snapshot()  # an edit typed just now is undone too
        self.undo_stack.undo()

    def redo_edit(self) -> None:
        self.undo_stack.redo()

    def edit_steps(self) -> tuple[str, str]:
        """What Undo and Redo would take back and make again ("prompt edit", "add field 'mood'"; "": nothing)."""
        return self.undo_stack.undoText(), self.undo_stack.redoText()

    def set_estimates(self, by_field: dict[str, str]) -> None:
        """Each field's random-check estimate by its saved name ("" for a one-field prompt): the line under the
        editor says the shown field's, as it counts that field's taught tickets ("Accuracy of priority …")."""
        self.taught_count.estimates = dict(by_field)
        self._show_taught()

    def _show_taught(self) -> None:
        self.taught_count.show_for(self._fields, self._field)

    # ---------------------------------------------------------------- building

    def _table(self, headers: list[str], name: str) -> QTableWidget:
        table = QTableWidget(0, len(headers))
        table.setHorizontalHeaderLabels(headers)
        table.setAccessibleName(name)
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        table.horizontalHeader().setStretchLastSection(True)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        table.setTabKeyNavigation(False)
        table.setWordWrap(True)
        # Two lines a row, fixed: rows sized to their contents grew as a description was typed, so a
        # double-click landed on the neighbour, and three long descriptions filled the table (2.5 rows
        # showed at 1366x768). The whole text is in the cell's editor (double-click).
        rows = table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(2 * table.fontMetrics().lineSpacing() + 8)
        table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        return table

    def _header(self, title: str, table: QTableWidget, reorder: bool) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel(title), 1)
        if table is self.labels:  # a prompt with several fields: the shown field's labels in order, or not (W14)
            row.addWidget(self.field_bar.ordered_box)
        style = self.style()
        buttons: list[tuple[str, str, str, QStyle.StandardPixmap | None, Callable[[], None]]] = [
            ("Add", "+", "list-add", None, lambda: self._add_row(table)),
            ("Remove", "−", "list-remove", None, lambda: self._remove_row(table)),
        ]
        if reorder:
            buttons += [
                ("Move up", "▲", "go-up", QStyle.StandardPixmap.SP_ArrowUp, lambda: self._move_row(table, -1)),
                ("Move down", "▼", "go-down", QStyle.StandardPixmap.SP_ArrowDown, lambda: self._move_row(table, 1)),
            ]
        what = "label" if table is self.labels else "example"
        for text, glyph, theme, fallback, slot in buttons:
            button = QToolButton()
            icon = _icon(theme, fallback, style)
            if icon.isNull():
                button.setText(glyph)  # no icon theme (a bare X server): a glyph that says what it does
            else:
                button.setIcon(icon)
            button.setToolTip(f"{text} {what}")
            button.setAccessibleName(f"{text} {what}")
            button.clicked.connect(slot)
            row.addWidget(button)
        return row

    # ------------------------------------------------------------------- state

    def label_names(self) -> list[str]:
        return [self._cell(self.labels, r, 0) for r in range(self.labels.rowCount())]

    @staticmethod
    def _cell(table: QTableWidget, row: int, column: int) -> str:
        item = table.item(row, column)
        return item.text() if item is not None else ""

    def profile(self) -> PromptProfile:
        shown = self._shown_profile()
        if not self._fields:
            return shown
        fields = list(self._fields)
        was = fields[self._field]
        fields[self._field] = Field(was.name, shown.instruction, shown.labels, shown.examples, was.ordered)
        return PromptProfile.of_fields(fields, shown.name)

    def _shown_profile(self) -> PromptProfile:
        """What the widgets show: the one field, or the field shown of several."""
        return PromptProfile(
            name=self.name.text().strip() or "Untitled prompt",
            instruction=self.instruction.toPlainText(),
            labels=[
                Label(self._cell(self.labels, r, 0), self._cell(self.labels, r, 1))
                for r in range(self.labels.rowCount())
            ],
            examples=[
                Example(self._cell(self.examples, r, 0), self._cell(self.examples, r, 1))
                for r in range(self.examples.rowCount())
            ],
        )

    def set_profile(self, profile: PromptProfile, clear_undo: bool = True) -> None:
        self._restore(profile.to_dict())
        if clear_undo:
            self.undo_stack.clear()
            self._renames.clear()

    def label_renames(self, saved: bool = False) -> list[tuple[str, str]]:
        """The labels renamed in their cells (old, new) since the last Save, in order: a Save has each field's
        taught tickets follow those that hold (``session.label_renames``); ``saved``: and forget them."""
        renames, self._renames = list(self._renames), [] if saved else self._renames
        return renames

    def _restore(self, data: dict) -> None:
        self._restoring = True
        whole = PromptProfile.from_dict(data)
        several = len(whole.fields) > 1
        if not several and whole.several:  # one field left (the others removed): the classic one-field prompt
            whole = whole.field_profile(0)
        self._fields = editable(whole.fields) if several else []
        self._field = min(self._field, len(self._fields) - 1) if several else 0
        profile = whole.field_profile(self._field) if several else whole
        self.field_bar.show_fields([f.name for f in self._fields], self._field, [f.ordered for f in self._fields])
        self.name.setText(profile.name)
        self.name.setCursorPosition(0)  # its start, not its end, when longer than the field
        made_up = (auto_name(profile.label_names), "Untitled prompt", "")
        self._auto_name = profile.name if profile.name in made_up else ""
        with QSignalBlocker(self.instruction), QSignalBlocker(self.labels), QSignalBlocker(self.examples):
            if self.instruction.toPlainText() != profile.instruction:
                self.instruction.setPlainText(profile.instruction)
            self._fill(self.labels, [(x.name, x.description) for x in profile.labels])
            self._fill(self.examples, [(x.text, x.label) for x in profile.examples])
        self._state = whole.to_dict()
        self._names = self.label_names()
        self._restoring = False
        self.clear_problems()
        self.changed.emit()

    @staticmethod
    def _fill(table: QTableWidget, rows: list[tuple[str, str]]) -> None:
        table.setRowCount(len(rows))
        for r, values in enumerate(rows):
            for c, value in enumerate(values):
                table.setItem(r, c, QTableWidgetItem(value))

    def _label_renamed(self, item: QTableWidgetItem) -> None:
        """A label renamed in its cell renames it in the examples too (a lead renamed three labels and
        Save refused: "Example 1 uses unknown label 'billing'"), unless another label keeps that name."""
        names, row = self._names, item.row()
        if self._restoring or item.column() != 0 or len(names) != self.labels.rowCount():
            return
        old, new = names[row], item.text()
        if old and new.strip() and old != new:
            self._renames.append((old, new))
        if old and new.strip() and old != new and old not in self.label_names():
            with QSignalBlocker(self.examples):
                for r in range(self.examples.rowCount()):
                    cell = self.examples.item(r, 1)
                    if cell is not None and cell.text() == old:
                        cell.setText(new)

    def _edited(self) -> None:
        if self._restoring:
            return
        self._names = self.label_names()
        if self._auto_name and self.name.text() == self._auto_name:  # a made-up name follows the labels
            self._auto_name = auto_name([n for n in self.label_names() if n.strip()])
            self.name.setText(self._auto_name)
            self.name.setCursorPosition(0)
        elif self.name.text() != self._auto_name:
            self._auto_name = ""  # the lead named it: keep that
        self._snapshot_timer.start()
        self.changed.emit()

    def _take_snapshot(self) -> None:
        after = self.profile().to_dict()
        if after != self._state:
            self.undo_stack.push(_Snapshot(self, self._state, after))
            self._state = after

    def replace_undoably(self, profile: PromptProfile) -> None:
        """Show ``profile`` (suggested labels accepted) as one step Undo takes back. A name made up from the
        old labels follows the new ones (it said "Support triage (billing / technical / account)" over eight
        suggested labels); a name the lead typed is kept."""
        self.flush_snapshot()
        before = self._state
        if self._auto_name and self.name.text() == self._auto_name:
            profile = replace(profile, name=auto_name(profile.label_names))
        self._restore(profile.to_dict())
        self.undo_stack.push(_Snapshot(self, before, self._state))

    def show_field(self, index: int) -> None:
        """Show field ``index``'s instruction, labels and examples (the edits of the one shown are kept)."""
        self.flush_snapshot()
        if 0 <= index < len(self._fields) and index != self._field:
            self._field = index
            self._restore(self._state)
            self._show_taught()

    def add_field(self, name: str) -> None:
        """A new field named ``name`` after the others, shown (one undo step; a one-field prompt's field is
        named "field 1" if it has no name)."""
        profile = self.profile()
        fields = editable(profile.fields)
        fields[0].name = fields[0].name or FIRST_FIELD
        fields.append(Field(name, "Read the ticket and choose one label.", []))
        self._step(PromptProfile.of_fields(fields, profile.name), len(fields) - 1, f"add field '{name}'")

    def ask_add_field(self) -> None:
        """*Add a field…*: its name asked, then added (a one-field prompt's first gets the selector)."""
        self.field_bar.ask_add()

    def rename_field(self, name: str = "", ordered: bool | None = None) -> None:
        """The field shown, renamed, or its labels put in order or not (one undo step)."""
        if fields := self._fields_now():
            was, on = fields[self._field], fields[self._field].ordered if ordered is None else ordered
            fields[self._field], order = replace(was, name=name or was.name, ordered=on), "" if on else "no "
            what = f"rename '{was.name}' to '{name}'" if name else f"labels of '{was.name}' in {order}order"
            self._step(PromptProfile.of_fields(fields, self.profile().name), self._field, what)

    def remove_field(self) -> None:
        """The field shown, removed; the last field cannot be (one undo step)."""
        fields = self._fields_now()
        if len(fields) > 1:
            gone, profile = fields.pop(self._field).name, PromptProfile.of_fields(fields, self.profile().name)
            self._step(profile, max(0, self._field - 1), f"remove field '{gone}'")

    def move_field(self, delta: int) -> None:
        """The field shown, one place left (-1) or right (1), still shown (one undo step). The first field is
        the main one; after a Save each field keeps its taught tickets, versions and checks wherever it is."""
        fields, at = self._fields_now(), self._field + delta
        if fields and 0 <= at < len(fields):
            fields.insert(at, fields.pop(self._field))
            self._step(PromptProfile.of_fields(fields, self.profile().name), at, f"move field '{fields[at].name}'")

    def can_move_field(self, delta: int) -> bool:
        return bool(self._fields) and 0 <= self._field + delta < len(self._fields)

    def _fields_now(self) -> list[Field]:
        return editable(self.profile().fields) if self._fields else []

    def _step(self, profile: PromptProfile, show: int, what: str) -> None:
        self.flush_snapshot()
        before, shown = self._state, self._field
        self._field = show
        self._restore(profile.to_dict())
        self.undo_stack.push(_Snapshot(self, before, self._state, (shown, show), what))

    def flush_snapshot(self) -> None:
        """Record a pending edit in the undo history now (before a save, say)."""
        if self._snapshot_timer.isActive():
            self._snapshot_timer.stop()
            self._take_snapshot()

    # --------------------------------------------------------------- row edits

    def eventFilter(self, watched, event) -> bool:
        tab = event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab)
        if watched is self.labels and tab:
            shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self._tab_in_labels(event.key() == Qt.Key.Key_Backtab or shift)
            return True
        return super().eventFilter(watched, event)

    def _tab_in_labels(self, backward: bool) -> None:
        """Tab in the labels table: name → description → the next row's name, and past the last row a
        new label row (a spreadsheet's Tab); Shift+Tab back, staying at the first cell. Never another
        widget: Ctrl+Tab (or a click) leaves the table."""
        table = self.labels
        row, column = max(table.currentRow(), 0), max(table.currentColumn(), 0)
        step = row * 2 + column + (-1 if backward else 1)
        if step >= 2 * table.rowCount():
            self._add_row(table)  # edits the new row's name
            return
        row, column = divmod(max(step, 0), 2)
        table.setCurrentCell(row, column)
        # Typing replaces what the cell held, as in the name cell (Qt selects a line editor's text): Tab into a
        # filled description appended to it (W14)
        self._multi_line[0].select_all = column == 1
        item = table.item(row, column)
        if item is None:
            item = QTableWidgetItem("")
            table.setItem(row, column, item)
        table.editItem(item)

    def _add_row(self, table: QTableWidget) -> None:
        row = table.rowCount()
        with QSignalBlocker(table):
            table.insertRow(row)
            default = "" if table is self.labels else next(iter(self.label_names()), "")
            table.setItem(row, 0, QTableWidgetItem(""))
            table.setItem(row, 1, QTableWidgetItem(default if table is self.examples else ""))
        table.setCurrentCell(row, 0)
        item = table.item(row, 0)
        if item is not None:
            table.scrollToItem(item)  # the new row in view: a lead typed a label into a row 3 px high
            table.editItem(item)
        self._edited()

    def _remove_row(self, table: QTableWidget) -> None:
        rows = sorted({i.row() for i in table.selectedIndexes()} or {table.currentRow()}, reverse=True)
        with QSignalBlocker(table):
            for row in rows:
                if row >= 0:
                    table.removeRow(row)
        self._edited()

    def _move_row(self, table: QTableWidget, delta: int) -> None:
        row = table.currentRow()
        target = row + delta
        if row < 0 or not 0 <= target < table.rowCount():
            return
        with QSignalBlocker(table):
            for c in range(table.columnCount()):
                a, b = table.takeItem(row, c), table.takeItem(target, c)
                table.setItem(row, c, b)
                table.setItem(target, c, a)
        table.setCurrentCell(target, table.currentColumn())
        self._edited()

    # -------------------------------------------------------------- validation

    def clear_problems(self) -> None:
        self.errors.hide()
        self.errors.clear()
        clear_marks(self.instruction, self.labels, self.examples)

    def show_problems(self, problems: list[Problem], heading: str = "Not saved:") -> None:
        """Point at each offending field; nothing the user typed is changed (``heading``: what became of it)."""
        self.clear_problems()
        mark_problems(problems, self.instruction, self.labels, self.examples)
        self.errors.setText(heading + "\n" + "\n".join(f"• {p.message}" for p in problems))
        self.errors.show()


def editable(fields: list[Field]) -> list[Field]:
    """Copies of ``fields`` with what the editor edits (name, instruction, labels, examples, order); their taught
    tickets, versions and checks are the prompt document's to keep (``session.prompt_document``)."""
    return [Field(f.name, f.instruction, f.labels, f.examples, f.ordered) for f in fields]


def auto_name(labels: list[str]) -> str:
    """The name a prompt gets from its labels ("Support triage (billing / technical / account)", the
    bundled prompt's), kept in step with them until the lead types a name of their own: the name stayed
    "billing / technical / account" after those labels were renamed."""
    if not labels:
        return "Untitled prompt"  # a new prompt, before its first label: not "Support triage ()"
    shown = " / ".join(labels[:4]) + (" / …" if len(labels) > 4 else "")
    return f"Support triage ({shown})"
