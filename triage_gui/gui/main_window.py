"""The main window: prompt editor, live ticket table, summary; wiring between widgets and worker threads."""

from __future__ import annotations

import contextlib
import gc
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QProgressDialog,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..engine.atomic import atomic_write_text
from ..engine.export import write_results
from ..engine.layout import LayoutError
from ..engine.metrics import gold_report, latency_summary
from ..engine.model_loader import BUNDLED, LoadedModel
from ..engine.prompt import Problem, PromptProfile, default_profile
from ..engine.tickets import SUPPORTED, TicketSource, gold_column, tickets_from_text
from .dialogs import ModelDialog, show_about
from .file_loader import FileLoadThread
from .prompt_editor import PromptEditor
from .settings import AppSettings
from .summary import SummaryPanel
from .ticket_model import TicketFilterProxy, TicketRow, TicketTableModel
from .worker import EngineThread

if TYPE_CHECKING:
    from ..engine.scorer import Scorer

log = logging.getLogger(__name__)

BATCH_SIZE = 16
NO_GOLD = "(none)"


class MainWindow(QMainWindow):
    def __init__(self, model_spec: str | None = None, device: str = "auto", freeze_gc: bool = False) -> None:
        super().__init__()
        self.freeze_gc = freeze_gc
        self.setWindowTitle("Ticket Triage")
        self.setAcceptDrops(True)
        self.settings = AppSettings()
        self.device = device
        self.model_spec = model_spec or str(self.settings.value("model", BUNDLED))
        self.loaded: LoadedModel | None = None
        self.scorer: Scorer | None = None
        self.generation = 0  # newest prompt version asked for
        self.ready_generation = -1  # prompt version the current cache belongs to
        self.rebuilds_started = 0
        self.relabels_started = 0
        self.run_id = 0
        self.cancelled_run = 0  # runs up to this id were cancelled; their late results are still kept
        self.run_generation: dict[int, int] = {}
        self.outstanding: dict[int, int] = {}
        self.run_total = self.run_done = 0
        self.run_started = 0.0
        self.load_id = 0
        self.stopped_load = 0  # loads up to this id were stopped; their late rows are dropped
        self.sources: dict[int, TicketSource] = {}
        self.previous_accuracy: float | None = None
        self.last_message: QMessageBox | None = None
        self.progress_dialog: QProgressDialog | None = None
        self.columns: list[str] = []

        self.engine = EngineThread()
        self.loader = FileLoadThread()
        self._build_widgets()
        self._build_actions()
        self._connect_workers()
        self._restore_settings()
        self._load_initial_prompt()
        self._stats_dirty = True
        self.model.dataChanged.connect(self._mark_stats_dirty)
        self.model.rowsInserted.connect(self._mark_stats_dirty)
        self.model.modelReset.connect(self._mark_stats_dirty)
        self._stats_timer = QTimer(self, interval=200)
        self._stats_timer.timeout.connect(self._refresh_stats)
        self._stats_timer.start()
        self._draft_timer = QTimer(self, singleShot=True, interval=800)
        self._draft_timer.timeout.connect(self._write_draft)
        self.editor.changed.connect(self._draft_timer.start)
        self.editor.changed.connect(self._update_dirty_state)
        self.load_model(self.model_spec)

    # =============================================================== building

    def _build_widgets(self) -> None:
        self.editor = PromptEditor()
        self.editor.save_requested.connect(self.save_prompt)

        self.model = TicketTableModel(self)
        self.proxy = TicketFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setAccessibleName("Tickets")
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # file order first
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setDefaultSectionSize(110)
        self.model.modelReset.connect(self._size_columns)
        self._size_columns()

        self.text_column = QComboBox()
        self.text_column.setAccessibleName("Ticket text column")
        self.text_column.setToolTip("Which column holds the ticket text")
        self.text_column.activated.connect(self._text_column_changed)
        self.gold_combo = QComboBox()
        self.gold_combo.setAccessibleName("Gold label column")
        self.gold_combo.setToolTip("A column whose values are label names, to measure accuracy")
        self.gold_combo.addItem(NO_GOLD)
        self.gold_combo.activated.connect(self._gold_changed)
        self.label_filter = QComboBox()
        self.label_filter.setAccessibleName("Filter by label")
        self.label_filter.addItem("All labels")
        self.label_filter.activated.connect(self._filters_changed)
        self.low_only = QCheckBox("Low confidence")
        self.low_only.setToolTip("Show only tickets below the confidence threshold")
        self.low_only.toggled.connect(self._filters_changed)
        self.disagree_only = QCheckBox("Disagreements")
        self.disagree_only.setToolTip("Show only tickets where the baseline gave another label")
        self.disagree_only.toggled.connect(self._filters_changed)
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(0.5)
        self.threshold.setAccessibleName("Low-confidence threshold")
        self.threshold.setToolTip("Rows below this confidence are marked ⚠")
        self.threshold.valueChanged.connect(self._threshold_changed)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search tickets…")
        self.search.setAccessibleName("Search tickets")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filters_changed)

        self.baseline_toggle = QCheckBox("Compare with baseline")
        self.baseline_toggle.setToolTip("Also run the naive full re-encode for every ticket and compare")
        self.baseline_toggle.toggled.connect(self._baseline_toggled)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Labelling progress")
        self.progress.setFormat("%v / %m")
        self.rate_label = QLabel()
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop labelling; finished labels are kept (Esc)")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)

        filters = QHBoxLayout()
        for widget in (
            QLabel("Text:"),
            self.text_column,
            QLabel("Gold:"),
            self.gold_combo,
            QLabel("Show:"),
            self.label_filter,
            self.low_only,
            QLabel("below"),
            self.threshold,
            self.disagree_only,
        ):
            filters.addWidget(widget)
        filters.addWidget(self.search, 1)
        run_row = QHBoxLayout()
        run_row.addWidget(self.baseline_toggle)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.rate_label)
        run_row.addWidget(self.stop_button)

        right_top = QWidget()
        box = QVBoxLayout(right_top)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(filters)
        box.addWidget(self.table, 1)
        box.addLayout(run_row)

        self.summary = SummaryPanel()
        self.summary.flip_selected.connect(self._select_source_row)
        self.right_split = QSplitter(Qt.Orientation.Vertical)
        self.right_split.addWidget(right_top)
        self.right_split.addWidget(self.summary)
        self.right_split.setStretchFactor(0, 3)
        self.right_split.setStretchFactor(1, 1)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(self.editor)
        self.main_split.addWidget(self.right_split)
        self.main_split.setStretchFactor(0, 1)
        self.main_split.setStretchFactor(1, 2)
        self.setCentralWidget(self.main_split)

        self.model_status = QLabel()
        self.cache_status = QLabel("cache: waiting for the model")
        self.cache_status.setAccessibleName("Cache state")
        self.statusBar().addPermanentWidget(self.model_status)
        self.statusBar().addPermanentWidget(self.cache_status)

    def _build_actions(self) -> None:
        def action(text: str, slot, shortcut=None, menu=None, context=None) -> QAction:
            act = QAction(text, self)
            if shortcut is not None:
                act.setShortcut(QKeySequence(shortcut))
            if context is not None:
                act.setShortcutContext(context)
            act.triggered.connect(slot)
            if menu is not None:
                menu.addAction(act)
            return act

        keys = QKeySequence.StandardKey
        file_menu = self.menuBar().addMenu("&File")
        self.open_action = action("&Open tickets…", self.open_dialog, keys.Open, file_menu)
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addSeparator()
        self.export_action = action("&Export results…", self.export_dialog, "Ctrl+E", file_menu)
        file_menu.addSeparator()
        self.save_action = action("&Save prompt and re-label", self.save_prompt, keys.Save, file_menu)
        action("Open &prompt profile…", self.open_prompt_dialog, None, file_menu)
        action("Save prompt profile &as…", self.save_prompt_as_dialog, keys.SaveAs, file_menu)
        file_menu.addSeparator()
        action("&Quit", self.close, keys.Quit, file_menu)

        edit_menu = self.menuBar().addMenu("&Edit")
        undo = self.editor.undo_stack.createUndoAction(self, "&Undo prompt edit")
        undo.setShortcut(QKeySequence(keys.Undo))
        undo.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        redo = self.editor.undo_stack.createRedoAction(self, "&Redo prompt edit")
        redo.setShortcut(QKeySequence(keys.Redo))
        redo.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        # Text boxes keep their own undo; these act on the label and example tables.
        self.editor.labels.addActions([undo, redo])
        self.editor.examples.addActions([undo, redo])
        edit_menu.addActions([undo, redo])
        edit_menu.addSeparator()
        self.paste_action = action(
            "&Paste tickets", self.paste_tickets, keys.Paste, edit_menu, Qt.ShortcutContext.WidgetWithChildrenShortcut
        )
        self.table.addAction(self.paste_action)
        action("Clear &tickets", self.clear_tickets, None, edit_menu)
        self.stop_action = action("&Stop labelling", self.stop, "Esc", edit_menu)

        model_menu = self.menuBar().addMenu("&Model")
        action("&Choose model…", self.choose_model_dialog, None, model_menu)
        help_menu = self.menuBar().addMenu("&Help")
        action("&About Ticket Triage", self.about, None, help_menu)
        self._refresh_recent_menu()

    def _connect_workers(self) -> None:
        w = self.engine.worker
        w.model_progress.connect(self._model_progress)
        w.model_loaded.connect(self._model_loaded)
        w.model_failed.connect(self._model_failed)
        w.cache_ready.connect(self._cache_ready)
        w.cache_failed.connect(self._cache_failed)
        w.scored.connect(self._scored)
        w.run_finished.connect(self._run_finished)
        w.error.connect(self._worker_error)  # a bound slot: queued onto the GUI thread, unlike a lambda
        f = self.loader.worker
        f.opened.connect(self._file_opened)
        f.rows.connect(self._file_rows)
        f.finished.connect(self._file_finished)
        f.failed.connect(self._file_failed)

    # ============================================================== settings

    def _restore_settings(self) -> None:
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 860)
        for key, splitter in (("main_split", self.main_split), ("right_split", self.right_split)):
            state = self.settings.value(key)
            if isinstance(state, QByteArray) and not state.isEmpty():
                splitter.restoreState(state)
            else:
                splitter.setSizes([470, 930] if splitter is self.main_split else [560, 260])
        self.threshold.setValue(self.settings.get_float("low_confidence", 0.5))
        self.baseline_toggle.setChecked(self.settings.get_bool("baseline", False))

    def save_settings(self) -> None:
        self.settings.set("geometry", self.saveGeometry())
        self.settings.set("main_split", self.main_split.saveState())
        self.settings.set("right_split", self.right_split.saveState())
        self.settings.set("low_confidence", self.threshold.value())
        self.settings.set("baseline", self.baseline_toggle.isChecked())
        self.settings.set("model", self.model_spec)
        self.settings.set("prompt_path", str(self.profile_path))
        self.settings.sync()

    def _load_initial_prompt(self) -> None:
        stored = self.settings.value("prompt_path")
        self.profile_path = Path(stored) if stored else self.settings.default_prompt_path
        try:
            self.saved_profile = PromptProfile.load(self.profile_path) if self.profile_path.is_file() else None
        except ValueError as exc:
            self.statusBar().showMessage(f"Could not read the saved prompt ({exc}); using the default.", 10000)
            self.saved_profile = None
        if self.saved_profile is None:
            self.saved_profile = default_profile()
        self.editor.set_profile(self.saved_profile)
        draft_path = self.settings.draft_path
        if draft_path.is_file():
            try:
                draft = PromptProfile.load(draft_path)
            except ValueError:
                draft = None
            if draft is not None and draft.to_dict() != self.saved_profile.to_dict():
                self.editor.set_profile(draft)
                self.statusBar().showMessage("Restored your unsaved prompt draft.", 10000)
        self.model.set_labels(self.saved_profile.label_names)
        self._update_dirty_state()

    def _write_draft(self) -> None:
        profile = self.editor.profile()
        try:
            if profile.to_dict() == self.saved_profile.to_dict():
                self.settings.draft_path.unlink(missing_ok=True)
            else:
                atomic_write_text(self.settings.draft_path, profile.to_json())
        except OSError as exc:
            self.statusBar().showMessage(f"Could not autosave the prompt draft: {exc}", 10000)

    def _update_dirty_state(self) -> None:
        dirty = self.editor.profile().to_dict() != self.saved_profile.to_dict()
        name = self.profile_path.name
        self.editor.state_label.setText(f"{name} — unsaved changes" if dirty else f"{name} — saved")
        self.setWindowModified(dirty)
        self.setWindowTitle(f"Ticket Triage — {name}[*]")

    # ================================================================= model

    def load_model(self, spec: str) -> None:
        if self.freeze_gc:
            gc.unfreeze()  # the model being replaced may hold cycles; let the collector see it again
        self.model_status.setText(f"loading {spec}…")
        self.cache_status.setText("cache: waiting for the model")
        self.engine.worker.load_requested.emit(spec, self.device)

    def _model_progress(self, fraction: float, message: str) -> None:
        if fraction < 0.9:  # the one-time GGUF conversion; loading a converted model reports 0.9 and 1.0
            if self.progress_dialog is None:
                self.progress_dialog = QProgressDialog("Preparing the model (first start only)…", "", 0, 100, self)
                self.progress_dialog.setWindowTitle("Preparing the model")
                self.progress_dialog.setCancelButton(None)
                self.progress_dialog.setMinimumDuration(0)
                self.progress_dialog.setWindowModality(Qt.WindowModality.NonModal)
            self.progress_dialog.setLabelText(message)
            self.progress_dialog.setValue(int(fraction * 100))
            self.progress_dialog.show()
        self.model_status.setText(message)

    def _close_progress_dialog(self) -> None:
        if self.progress_dialog is not None:
            self.progress_dialog.close()
            self.progress_dialog.deleteLater()
            self.progress_dialog = None

    def _model_loaded(self, loaded: LoadedModel) -> None:
        self._close_progress_dialog()
        self._freeze_long_lived()
        self.loaded = loaded
        self.model_spec = loaded.spec
        self.settings.set("model", loaded.spec)
        self.model_status.setText(f"{loaded.name} · {loaded.device} · loaded in {loaded.load_seconds:.1f} s")
        self.scorer = None
        self.ready_generation = -1
        self._request_rebuild(self.saved_profile)

    def _model_failed(self, message: str) -> None:
        self._close_progress_dialog()
        if self.loaded is not None:
            self.model_status.setText(f"{self.loaded.name} · {self.loaded.device}")
            self.show_error("Model not loaded", message + f"\n\nStill using {self.loaded.name}.")
        else:
            self.model_status.setText("no model")
            self.cache_status.setText("cache: no model")
            self.show_error("Model not loaded", message)

    def choose_model_dialog(self) -> None:
        dialog = ModelDialog(self.model_spec, self)
        if dialog.exec() and dialog.spec():
            self.load_model(dialog.spec())

    # ================================================================ prompt

    def save_prompt(self) -> bool:
        """Validate, write the profile atomically, then rebuild the cache in the background."""
        self.editor.flush_snapshot()
        profile = self.editor.profile()
        problems = profile.problems()
        if problems:
            self.editor.show_problems(problems)
            self.statusBar().showMessage("Prompt not saved: " + problems[0].message, 10000)
            return False
        self.editor.clear_problems()
        try:
            profile.save(self.profile_path)
        except OSError as exc:
            self.show_error("Prompt not saved", f"Cannot write {self.profile_path}: {exc}")
            return False
        self.saved_profile = profile
        self.settings.draft_path.unlink(missing_ok=True)
        self._update_dirty_state()
        self._request_rebuild(profile)
        return True

    def _request_rebuild(self, profile: PromptProfile) -> None:
        if self.loaded is None:
            return
        self.generation += 1
        self.rebuilds_started += 1
        self.engine.worker.supersede_rebuilds(self.generation)
        self._cancel_runs()
        self.cache_status.setText("cache: rebuilding…")
        self.engine.worker.rebuild_requested.emit(profile, self.generation)

    def _cache_ready(self, generation: int, scorer: Scorer) -> None:
        if generation != self.generation:
            return  # a newer save is on its way
        self.scorer = scorer
        self.ready_generation = generation
        self.cache_status.setText(
            f"cache: ready, {scorer.prefix_length} tokens, "
            + ("read back from disk" if scorer.prefix_from_disk else f"built in {scorer.prefix.build_seconds:.2f} s")
        )
        self._relabel_all(new_prompt_version=True)

    def _cache_failed(self, generation: int, exc: Exception) -> None:
        if generation != self.generation:
            return
        field = getattr(exc, "field", "instruction")
        if isinstance(exc, LayoutError | ValueError):
            self.editor.show_problems([Problem(field, str(exc))])
        else:
            self.show_error("Prompt cache not built", str(exc))
        keep = "the previous prompt's cache stays in use" if self.scorer is not None else "no cache"
        self.cache_status.setText(f"cache: not rebuilt ({keep})")
        self.generation = self.ready_generation  # keep labelling with the cache that works

    def open_prompt_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open prompt profile", "", "Prompt profiles (*.json)")
        if path:
            self.open_prompt(path)

    def open_prompt(self, path: str) -> None:
        try:
            profile = PromptProfile.load(path)
        except ValueError as exc:
            self.show_error("Prompt not opened", str(exc))
            return
        self.profile_path = Path(path)
        self.editor.set_profile(profile)
        self.save_prompt()

    def save_prompt_as_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save prompt profile", str(self.profile_path), "*.json")
        if path:
            self.profile_path = Path(path)
            self.save_prompt()

    # =============================================================== tickets

    def open_dialog(self) -> None:
        patterns = " ".join(f"*{ext}" for ext in SUPPORTED)
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Open ticket files", "", f"Ticket files ({patterns});;All files (*)"
        )
        for path in paths:
            self.load_file(path)

    def load_file(self, path: str) -> None:
        self.load_id += 1
        self._refresh_recent_menu(self.settings.add_recent(str(path)))
        self.statusBar().showMessage(f"Reading {Path(path).name}…")
        self.loader.worker.load_requested.emit(self.load_id, str(path))

    def _file_opened(self, load_id: int, source: TicketSource) -> None:
        self.sources[load_id] = source
        new = [c for c in source.columns if c not in self.columns]
        if not self.model.rows:
            self.columns = list(source.columns)
            self.text_column.clear()
            self.text_column.addItems(self.columns)
            self.text_column.setCurrentText(source.text_column_name)
            self.gold_combo.clear()
            self.gold_combo.addItem(NO_GOLD)
            self.gold_combo.addItems(self.columns)
        else:
            self.columns += new
            self.text_column.addItems(new)
            self.gold_combo.addItems(new)

    def _file_rows(self, load_id: int, tickets: list) -> None:
        self.loader.worker.taken()
        source = self.sources.get(load_id)
        if source is None or load_id <= self.stopped_load:
            return  # rows still in flight from a file the user stopped reading
        columns = source.columns
        name = source.path.name
        rows = [TicketRow(dict(zip(columns, t.values)), t.text, name) for t in tickets]
        self._add_rows(rows)

    def _file_finished(self, load_id: int, source: TicketSource) -> None:
        self.statusBar().showMessage(f"{source.path.name}: {source.summary()}", 15000)
        self._detect_gold()

    def _file_failed(self, load_id: int, path: str, message: str) -> None:
        self.show_error("File not loaded", message)

    def _detect_gold(self) -> None:
        if self.model.gold_column or not self.model.rows:
            return
        sample = self.model.rows[:1000]
        values = [[r.values.get(c, "") for c in self.columns] for r in sample]
        text_col = self.text_column.currentText()
        exclude = self.columns.index(text_col) if text_col in self.columns else -1
        found = gold_column(self.columns, values, self.saved_profile.label_names, exclude)
        if found is not None:
            self.gold_combo.setCurrentText(self.columns[found])
            self._gold_changed()

    def paste_tickets(self) -> None:
        text = QGuiApplication.clipboard().text()
        self.add_pasted_text(text)

    def add_pasted_text(self, text: str) -> None:
        columns, tickets, col = tickets_from_text(text)
        if not tickets:
            self.statusBar().showMessage("Nothing to paste: the clipboard holds no ticket text.", 8000)
            return
        if not self.model.rows:
            self.columns = list(columns)
            self.text_column.clear()
            self.text_column.addItems(self.columns)
            self.text_column.setCurrentIndex(col)
            self.gold_combo.clear()
            self.gold_combo.addItem(NO_GOLD)
            self.gold_combo.addItems(self.columns)
        rows = [TicketRow(dict(zip(columns, t.values)), t.text, "pasted") for t in tickets]
        self._add_rows(rows)
        self.statusBar().showMessage(f"Pasted {len(rows)} ticket{'s' if len(rows) != 1 else ''}.", 8000)
        self._detect_gold()

    def _add_rows(self, rows: list[TicketRow]) -> None:
        first = len(self.model.rows)
        self.model.append_rows(rows)
        self._freeze_long_lived()
        self._schedule(list(range(first, first + len(rows))))

    def _freeze_long_lived(self) -> None:
        """Keep long-lived objects (torch and the model, then every row and score) out of the cyclic
        collector's full passes, whose cost grows with the heap: 200-350 ms passes were measured with a
        big heap, each one an event-loop stall. Young garbage is collected first (a young-generation pass,
        milliseconds; a full one over torch's objects took 300 ms), so what is frozen is live; rows and
        scores hold no cycles, so reference counting still frees them."""
        if self.freeze_gc:
            gc.collect(1)
            gc.freeze()

    def clear_tickets(self) -> None:
        self.stop()
        self.model.clear()
        self.columns = []
        self.text_column.clear()
        self.gold_combo.clear()
        self.gold_combo.addItem(NO_GOLD)
        self.model.set_gold_column(None)
        self._refresh_stats()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        mime = event.mimeData()
        if (mime.hasUrls() and any(u.isLocalFile() for u in mime.urls())) or mime.hasText():
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        paths = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()] if mime.hasUrls() else []
        if paths:
            for path in paths:
                self.load_file(path)
        elif mime.hasText():
            self.add_pasted_text(mime.text())
        else:
            event.ignore()
            return
        event.acceptProposedAction()

    def _refresh_recent_menu(self, files: list[str] | None = None) -> None:
        self.recent_menu.clear()
        for path in files if files is not None else self.settings.recent_files():
            act = self.recent_menu.addAction(path)
            act.triggered.connect(lambda checked=False, p=path: self.load_file(p))
        self.recent_menu.setEnabled(bool(self.recent_menu.actions()))

    # =============================================================== scoring

    def _schedule(self, indices: list[int]) -> None:
        """Queue tickets for labelling under the current prompt version; the run streams results back."""
        if not indices or self.scorer is None or self.ready_generation != self.generation:
            return  # labelled when the cache is ready
        current = (
            self.run_id in self.outstanding
            and self.run_id > self.cancelled_run
            and self.run_generation[self.run_id] == self.ready_generation
        )
        if not current:  # a cancelled or older-prompt run drains on its own; this work starts a new one
            self.run_id += 1
            self.run_generation[self.run_id] = self.ready_generation
            self.outstanding[self.run_id] = 0
            self.run_total = self.run_done = 0
            self.run_started = time.perf_counter()
        self.outstanding[self.run_id] += 1
        self.run_total += len(indices)
        self.progress.setMaximum(self.run_total)
        self.progress.setValue(self.run_done)
        self.stop_button.setEnabled(True)
        tickets = [(i, self.model.rows[i].text) for i in indices]
        self.engine.worker.score_requested.emit(self.run_id, tickets, BATCH_SIZE, self.baseline_toggle.isChecked())

    def _relabel_all(self, new_prompt_version: bool = False) -> None:
        self._cancel_runs()
        self.relabels_started += 1
        if new_prompt_version:
            report = self._gold_report()
            self.previous_accuracy = report.accuracy if report is not None and report.total else None
            self.model.set_labels(self.scorer.labels)
            self.model.start_new_prompt_version()
            self._refresh_label_filter()
        else:
            self.model.start_new_prompt_version()
        self._schedule(list(range(len(self.model.rows))))

    def _scored(self, run_id: int, batch: list) -> None:
        if self.run_generation.get(run_id) != self.ready_generation:
            return  # labels from an older prompt
        self.model.set_scores([(item.index, item.cached, item.baseline) for item in batch])
        self._freeze_long_lived()
        if run_id == self.run_id:
            self.run_done += len(batch)
            self.progress.setValue(self.run_done)
            elapsed = max(1e-6, time.perf_counter() - self.run_started)
            rate = self.run_done / elapsed
            remaining = (self.run_total - self.run_done) / rate if rate > 0 else 0
            self.rate_label.setText(f"{rate:.1f} tickets/s · ETA {remaining:.0f} s")

    def _run_finished(self, run_id: int, cancelled: bool) -> None:
        if run_id not in self.outstanding:
            return
        self.outstanding[run_id] -= 1
        if self.outstanding[run_id] > 0:
            return
        del self.outstanding[run_id]
        if run_id == self.run_id:
            self.stop_button.setEnabled(False)
            done = self.run_done
            self.rate_label.setText(("Stopped: " if cancelled else "Done: ") + f"{done} labelled")
            self._mark_stats_dirty()
            self._refresh_stats()
            self._refresh_gold()

    def _worker_error(self, text: str) -> None:
        self.show_error("Background work failed", text)

    def _cancel_runs(self) -> None:
        if self.outstanding:
            self.cancelled_run = self.run_id
            self.engine.worker.cancel_runs(self.run_id)

    def stop(self) -> None:
        """Stop labelling and reading; everything finished so far stays in the table."""
        self.loader.worker.cancel()
        self.stopped_load = self.load_id
        if self.outstanding:
            self._cancel_runs()
            self.stop_button.setEnabled(False)

    def is_busy(self) -> bool:
        return bool(self.outstanding) or self.ready_generation != self.generation

    def _baseline_toggled(self, on: bool) -> None:
        self.model.set_show_baseline(on)
        self._size_columns()
        if self.scorer is None or not self.model.rows:
            return
        if on:
            self._relabel_all()
        elif self.outstanding:  # stop paying for the baseline; keep every label already made
            self._cancel_runs()
            self._schedule([i for i, r in enumerate(self.model.rows) if r.cached is None])

    def _text_column_changed(self) -> None:
        column = self.text_column.currentText()
        if column:
            self.model.set_texts_from_column(column)
            self._relabel_all()

    # =========================================================== table view

    def _size_columns(self) -> None:
        """The ticket text takes the spare width; the narrow columns stay readable."""
        header = self.table.horizontalHeader()
        for i, name in enumerate(self.model.columns()):
            if name == "Ticket":
                header.setSectionResizeMode(i, QHeaderView.ResizeMode.Stretch)
                continue
            header.setSectionResizeMode(i, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(i, 115 if "label" in name.lower() or name.startswith("Gold") else 82)

    def _refresh_label_filter(self) -> None:
        current = self.label_filter.currentText()
        self.label_filter.clear()
        self.label_filter.addItem("All labels")
        self.label_filter.addItems(self.model.labels)
        if current in self.model.labels:
            self.label_filter.setCurrentText(current)

    def _filters_changed(self) -> None:
        label = self.label_filter.currentText()
        self.proxy.set_filters(
            None if self.label_filter.currentIndex() <= 0 else label,
            self.threshold.value() if self.low_only.isChecked() else None,
            self.disagree_only.isChecked(),
            self.search.text(),
        )

    def _threshold_changed(self, value: float) -> None:
        self.model.set_low_confidence(value)
        self._filters_changed()

    def _select_source_row(self, row: int) -> None:
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if index.isValid():
            self.table.selectionModel().select(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
            self.table.scrollTo(index)

    # =============================================================== summary

    def _refresh_stats(self) -> None:
        if not self._stats_dirty:
            return
        self._stats_dirty = False
        rows = self.model.rows
        cached = [r.cached.latency_ms for r in rows if r.cached is not None]
        base = [r.baseline.latency_ms for r in rows if r.baseline is not None]
        agree = [r.agree for r in rows if r.agree is not None]
        truncated = sum(1 for r in rows if r.cached is not None and r.cached.truncated)
        fallback = sum(1 for r in rows if r.cached is not None and r.cached.split_fallback)
        notes = []
        if truncated:
            notes.append(f"{truncated} truncated to fit the context (✂).")
        if fallback:
            notes.append(f"{fallback} used the shorter clean prefix.")
        self.summary.show_stats(
            len(cached),
            len(rows),
            latency_summary(cached),
            latency_summary(base),
            (sum(agree), len(agree)) if agree else None,
            " ".join(notes),
        )
        self.summary.chart.set_series(cached[-2000:], base[-2000:])
        filtering = self.proxy.label or self.proxy.max_confidence is not None or self.proxy.only_disagreements
        if filtering and self.outstanding:
            self.proxy.invalidate()

    def _mark_stats_dirty(self, *args) -> None:
        self._stats_dirty = True

    def _gold_report(self):
        column = self.model.gold_column
        if not column or self.scorer is None:
            return None
        pairs = [(r.values.get(column, ""), r.cached.label) for r in self.model.rows if r.cached is not None]
        return gold_report(self.model.labels, [g for g, _ in pairs], [p for _, p in pairs])

    def _refresh_gold(self) -> None:
        self.summary.show_gold(self._gold_report(), self.previous_accuracy)
        flips = [
            (i, r.text, r.previous_label, r.cached.label)
            for i, r in enumerate(self.model.rows)
            if r.cached is not None and r.previous_label is not None and r.previous_label != r.cached.label
        ]
        self.summary.show_flips(flips)

    def _gold_changed(self) -> None:
        column = self.gold_combo.currentText()
        self.model.set_gold_column(None if column in ("", NO_GOLD) else column)
        self._size_columns()
        self._refresh_gold()
        if self.model.gold_column:
            self.summary.setCurrentIndex(1)

    # ================================================================ export

    def export_dialog(self) -> None:
        if not self.model.rows:
            self.statusBar().showMessage("Nothing to export yet.", 5000)
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export results", "labelled-tickets.csv", "CSV files (*.csv)")
        if path:
            self.export(path)

    def export(self, path: str) -> bool:
        """Write exactly what the table holds, in table order, with the prompt hash; atomically."""
        rows = [([r.values.get(c, "") for c in self.columns], r.cached, r.baseline) for r in self.model.rows]
        try:
            write_results(path, self.columns, rows, self.saved_profile.content_hash(), self.baseline_toggle.isChecked())
        except OSError as exc:
            self.show_error("Export failed", f"Cannot write {path}: {exc}. Nothing was overwritten.")
            return False
        self.statusBar().showMessage(f"Exported {len(rows)} tickets to {path}.", 10000)
        return True

    # ================================================================= misc

    def show_error(self, title: str, text: str) -> None:
        """Tell the user without blocking the event loop; the app stays usable."""
        log.warning("%s: %s", title, text)
        self.statusBar().showMessage(f"{title}: {text.splitlines()[0]}", 15000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.last_message = box

    def about(self) -> None:
        loaded = self.loaded
        show_about(self, loaded.name if loaded else "none", loaded.licence if loaded else "")

    def closeEvent(self, event: QCloseEvent) -> None:
        self._write_draft()
        self.save_settings()
        self._stats_timer.stop()
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop both worker threads and wait for them; idempotent."""
        with contextlib.suppress(RuntimeError):
            # Nothing more from the workers reaches this window once it is closing.
            self.loader.worker.blockSignals(True)
            self.engine.worker.blockSignals(True)
            self.loader.stop()
            self.engine.stop()
