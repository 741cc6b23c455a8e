"""The main window: assembles the prompt editor, the ticket area, the results area and the detail pane,
sends user intents to the session and renders what the session reports. It keeps no state of its own
about models, prompts or runs (the session owns that), nor about the prompt file or the evaluation: the
Qt-free documents own those (:mod:`session.prompt_document`, :mod:`session.evaluation`)."""

from __future__ import annotations

import gc
import json
import logging

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QActionGroup, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QMainWindow, QMessageBox, QSplitter

from ..defaults import LOW_CONFIDENCE
from ..engine.model import BUNDLED, MULTILINGUAL
from ..session.evaluation import Evaluation
from ..session.prompt_document import DocumentStatus, PromptDocument
from ..session.session import Session
from ..session.status import FileStatus, HeadStatus, ModelStatus, PromptStatus, RunStatus
from ..words import counted
from .actions.app_actions import AppActions
from .actions.field_gold_actions import FieldGoldActions
from .actions.menus import Actions
from .actions.prompt_actions import PromptActions
from .actions.suggest_actions import SuggestActions
from .actions.teach_actions import TeachActions
from .actions.ticket_actions import TicketActions
from .actions.undo_actions import UndoRouter
from .actions.window_actions import Handlers, action_table
from .geometry import first_size, on_screen
from .prompt.prompt_editor import PromptEditor
from .results.detail_pane import DetailPane
from .results.results_area import ResultsArea
from .results.summary import Summary
from .settings import AppSettings
from .status_labels import add_status_labels
from .tickets.language_offer import LanguageOffer, with_offer
from .tickets.ticket_area import TicketArea
from .tickets.ticket_model import TicketTableModel
from .widgets.elided_label import WordStatusBar

log = logging.getLogger(__name__)
SPLITS = (("main_split", [380, 900]), ("right_split", [340, 340]), ("bottom_split", [560, 340]))  # default sizes


class MainWindow(QMainWindow):
    def __init__(
        self,
        model_spec: str | None = None,
        device: str = "auto",
        freeze_gc: bool = False,
        session: Session | None = None,
        encoder: str | None = None,
    ) -> None:
        super().__init__()
        self.setStatusBar(WordStatusBar(self))  # passing messages cut between words, whole in its tooltip
        self.freeze_gc = freeze_gc
        self.setWindowTitle("Ticket Triage")
        self.setAcceptDrops(True)
        self.settings = AppSettings()
        # The encoder given on the command line, else the one chosen in the model dialog (kept in the settings).
        self.session = session or Session(device=device, encoder=encoder or self.settings.get_encoder())
        prompt_path = self.settings.get_path("prompt_path") or self.settings.default_prompt_path
        self.document = PromptDocument(prompt_path, self.settings.draft_path, self.settings.default_prompt_path)
        self.evaluation = Evaluation(self.session.table, self.settings.get_dict("gold_mappings"))
        self.last_message: QMessageBox | None = None
        self._closing = self._closed = False
        self._build()
        notify, warn = self.statusBar().showMessage, self.show_error
        self.prompt = PromptActions(
            self.document, self.evaluation, self.session, self.editor, self.results, self, notify, warn
        )
        self.ticket_actions = TicketActions(
            self.session, self.evaluation, self.tickets, self.settings, self, notify, warn, self.prompt.open,
            lambda: self.document.path,  # an export never writes over the prompt file in use
        )  # fmt: skip
        self.suggest = SuggestActions(self.session, self.editor, self, notify)
        self.teaching = TeachActions(self.session, self.tickets, self.editor, self.check_status, notify)
        self.model.teach_field = self.teaching.teach_field  # the picker in a further field's column
        self.app_actions = AppActions(self.session, self.settings, self, self._repaint, notify)
        self._build_actions()
        self._file_done: str | None = None  # the file read whose tickets' language may still earn the offer
        self._connect()
        self._restore_settings()
        self.app_actions.follow_system_scheme()
        self.prompt.start()
        self.show_document(self.document.status)
        self._stats_timer = QTimer(self, interval=200)
        self._stats_timer.timeout.connect(self.refresh_stats)
        self._stats_timer.timeout.connect(self.menu_actions.refresh)
        self._stats_timer.timeout.connect(self.teaching.follow_field)  # the estimate of the field in use
        self._stats_timer.start()
        for note in self.settings.notes:
            self.statusBar().showMessage(f"Settings: {note}.", 15000)
        self.session.load_model(model_spec or self.settings.get_str("model", BUNDLED))

    # =============================================================== building

    def _build(self) -> None:
        table = self.session.table
        self.editor = PromptEditor()
        self.model = TicketTableModel(table, self.teach)
        self.tickets = TicketArea(self.model)
        self.results = ResultsArea()
        self.detail = DetailPane(table)
        self.summary = Summary(self.session, self.evaluation, self.results, self.tickets)
        self.bottom_split = QSplitter(Qt.Orientation.Horizontal)
        self.bottom_split.addWidget(self.results)
        self.bottom_split.addWidget(self.detail)
        self.bottom_split.setStretchFactor(0, 3)
        self.bottom_split.setStretchFactor(1, 2)
        self.right_split = QSplitter(Qt.Orientation.Vertical)
        self.language_offer = LanguageOffer()  # most tickets not in English (:meth:`offer_multilingual`)
        self.right_split.addWidget(with_offer(self.tickets, self.language_offer))
        self.right_split.addWidget(self.bottom_split)
        self.right_split.setStretchFactor(0, 3)
        self.right_split.setStretchFactor(1, 2)
        self.right_split.setChildrenCollapsible(False)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(self.editor)
        self.main_split.addWidget(self.right_split)
        self.main_split.setStretchFactor(0, 1)
        self.main_split.setStretchFactor(1, 2)
        self.main_split.setChildrenCollapsible(False)
        self.setCentralWidget(self.main_split)
        labels = add_status_labels(self.statusBar())
        self.check_status, self.learn_status, self.prompt_status, self.model_status = labels

    def _build_actions(self) -> None:
        """The menu bar and the F1 guide, from the one table (:mod:`window_actions`)."""
        self.undo = UndoRouter(self.session.history, self.editor, self.statusBar().showMessage, self)
        handlers = Handlers(
            self.ticket_actions, self.prompt, self.app_actions, self.teaching.next_suggestion,
            self.teaching.check_sample, self.undo.undo, self.undo.redo, self.close,
            lambda: self.app_actions.show_guide(self.menu_actions.guide()), self.teaching, self.suggest,
        )  # fmt: skip
        scheme = self.settings.get_str("appearance", "system")
        calibrate = self.settings.get_bool("calibrate", True)
        specs = action_table(handlers, self.session, self.evaluation, calibrate, scheme)
        self.menu_actions = Actions(self, specs, self.menuBar())
        self.menu_actions.field_name = lambda: self.teaching.field_name(self.tickets.field_in_use)
        group = QActionGroup(self)
        for spec in specs:
            if spec.id.startswith("appearance."):
                group.addAction(self.menu_actions[spec.id])
        self.undo.bind(self.menu_actions["undo"], self.menu_actions["redo"])  # the editor's, else teaching's
        self.tickets.add_paste(self.menu_actions["paste"])
        recent = self.menu_actions.menus["&File"].addMenu("Open &recent")
        self.menu_actions.menus["&File"].insertMenu(self.menu_actions["sample"], recent)
        self.ticket_actions.recent_menu = recent
        self.ticket_actions.refresh_recent_menu()
        self.session.set_calibration(calibrate)  # the session's setter: it rebuilds a prompt already built

    def trigger(self, action_id: str) -> None:
        """Trigger a menu action by its id, as a click on it would (tests use this)."""
        self.menu_actions.trigger(action_id)

    def _connect(self) -> None:
        s = self.session
        s.model_changed.connect(self.show_model)
        s.prompt_changed.connect(self.show_prompt)
        s.run_changed.connect(self.show_run)
        s.file_changed.connect(self.show_file)
        s.languages_known.connect(self.offer_multilingual)
        offer = self.language_offer  # one click to the multilingual encoder; hidden once it is in use
        offer.use_clicked.connect(lambda: self.app_actions.use_encoder(MULTILINGUAL))
        self.app_actions.encoder_switched.connect(lambda: offer.offer(False))
        self.app_actions.encoder_switched.connect(lambda: self.app_actions.name_model(self.model_status))
        s.rows_added.connect(self._rows_added)
        s.rows_changed.connect(self._rows_changed)
        s.table_reset.connect(self._table_reset)
        s.message.connect(self.show_error)
        s.save_taught.connect(self.prompt.keep_taught)
        s.save_taught.connect(self._show_field_taught)
        self.document.changed.connect(self.show_document)
        s.head_changed.connect(self.show_head)
        s.suggested.connect(lambda rows: self.tickets.set_rows(suggested=tuple(rows)))
        for checks in (s.checks_changed, s.field_checks_changed):  # the estimate shown is the field in use's
            checks.connect(self.show_checks)
        changes = (s.run_changed, s.file_changed, s.rows_added, s.head_changed, s.history.changed)
        for event in (*changes, self.evaluation.gold_changed):  # (an undo enables Forget everything at once)
            event.connect(lambda *_: self.menu_actions.refresh())
        s.table_reset.connect(self.menu_actions.refresh)
        t = self.tickets
        t.filters_changed.connect(self.summary.apply_filters)
        t.text_column_chosen.connect(self.session.set_text_column)
        t.text_column_chosen.connect(lambda _: self.ticket_actions.columns_arrived())  # "subject + body" shown
        t.gold_column_chosen.connect(self.ticket_actions.choose_gold)
        t.baseline_toggled.connect(self._baseline_toggled)
        t.stop_clicked.connect(self.session.stop)
        t.resume_clicked.connect(self.session.resume)
        t.row_selected.connect(lambda row: self.detail.show_row(row, t.field_in_use))  # that field's part in view
        t.teach_keys.connect(self.teaching.teach_keys)
        t.accept_keys.connect(self.teaching.accept)
        t.next_key.connect(self.teaching.next_suggestion)
        t.open_clicked.connect(self.ticket_actions.open_dialog)
        t.sample_clicked.connect(self.ticket_actions.open_sample)
        t.recent_clicked.connect(lambda path: self.ticket_actions.open_files([path]))
        t.note.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.detail.teach.connect(self.teaching.teach_field)  # each field's part of the pane teaches its field
        self.detail.accept.connect(lambda field, rows: self.teaching.accept(rows, field))
        self.results.flip_selected.connect(self.tickets.select_source_row)
        self.results.cell_selected.connect(self.tickets.set_cell)
        self.results.version_revert.connect(self.prompt.revert)
        self.results.version_diff.connect(self.prompt.show_diff)
        self.editor.save_requested.connect(self.prompt.save)
        self.editor.import_taught.connect(self.prompt.import_taught)
        self.editor.export_taught.connect(self.prompt.export_taught)
        self.editor.changed.connect(self.prompt.edited)
        self.evaluation.gold_changed.connect(self._gold_changed)
        self.field_gold = FieldGoldActions(s, self.evaluation, t, self.model, self.results, self, self.summary.redraw)

    # ========================================================= session → view

    def show_model(self, status: ModelStatus) -> None:
        if status.state == "loading":
            self.model_status.setText(status.message)
            self.app_actions.model_progress(status)
            return
        self.app_actions.close_progress()
        if status.state == "ready":
            self.settings.set("model", self.session.model_spec or BUNDLED)
            self.app_actions.name_model(self.model_status)  # short, so the file's status keeps room at 1024 px
            if status.message:
                self.statusBar().showMessage(status.message, 15000)
            if self.freeze_gc:
                gc.collect(1)
                gc.freeze()  # torch's long-lived objects out of the collector's full passes
        elif status.state == "failed" and not self.session.has_model:
            self.model_status.setText("No model")
            self.prompt_status.setText("No model: labels cannot be made")

    def show_prompt(self, status: PromptStatus) -> None:
        if status.state == "updating":
            self.prompt_status.setText("Updating prompt…")
        elif status.state == "ready":
            how = "read back from disk" if status.from_disk else f"built in {status.seconds:.2f} s"
            self.prompt.applied()  # numbers the version in the prompt file's history
            said = self.prompt.version_said(status.version)  # "v3"; several fields: each field's own
            self.prompt_status.setText(f"Prompt ready ({said})")
            self.prompt_status.setToolTip(
                (f"Versions ({said})" if len(self.session.field_names) > 1 else f"Version {said[1:]}") + f", {how}. "
                f"The prompt's {status.prefix_tokens} tokens are cached; each ticket adds only its own."
                + (" Label scores are calibrated against the prompt's own bias." if status.calibrated else "")
            )
            if status.notice:
                self.statusBar().showMessage(status.notice, 15000)
            self.tickets.refresh_label_filter()
            fields = (self.session.field_names, self.session.field_table, self.session.field_decision)
            self.model.set_fields(*fields)  # a column per field
            self.detail.set_fields(*fields)  # a part per field
            self.tickets.show_fields(self.session.field_names)
            self._show_field_taught()  # the editor's fields by name: a reopen with no tickets has no fit to say them
            self.model.reset()
            self.tickets.size_columns()
            self.evaluation.detect(self.session.text_column, self.session.field_names)  # (golds follow a move)
        elif status.state == "failed":
            self.prompt.failed(status)
            kept = self.session.prompt_in_use is not None  # (none at a start on a prompt the model cannot build)
            self.prompt_status.setText(
                "Prompt not updated: the previous prompt stays in use" if kept else "No prompt in use: fix it and Save"
            )
        self.mark_dirty()

    def show_document(self, status: DocumentStatus) -> None:
        """The prompt file's name in the title, marked while it holds unsaved edits."""
        self.setWindowModified(status.dirty)
        self.setWindowTitle(f"Ticket Triage — {status.name}[*]")
        self.tickets.show_new_prompt(status.new)

    def show_run(self, status: RunStatus) -> None:
        self.tickets.show_run(status)
        self.mark_dirty()
        if status.state in ("done", "stopped"):
            self.refresh_stats()

    def show_file(self, status: FileStatus) -> None:
        if status.state == "reading":
            self.statusBar().showMessage(f"Reading {status.name}…")
        elif status.state == "done":
            self.statusBar().showMessage(f"{status.name}: {status.summary}", 15000)
            self.evaluation.detect(self.session.text_column)
            self._file_done = status.name
            self.offer_multilingual()
        elif status.state == "stopped":
            self.statusBar().showMessage(f"{status.name}: stopped after {counted(status.rows, 'row')}.", 15000)

    def offer_multilingual(self) -> None:
        """The multilingual encoder's offer over the table (:mod:`language_offer`), no dialog, once per file: asked
        when the file is read and again when every row's language is known; a file that needs none hides it."""
        if self._file_done is not None:
            self.language_offer.offer(shown := bool(said := self.session.offers_multilingual()), said)
            self._file_done = None if shown else self._file_done  # offered: once per file

    def show_head(self, status: HeadStatus) -> None:
        self.detail.taught_count = status.learned  # (the pane is shown again below)
        self.teaching.show_head(status, self.learn_status)
        self.editor.set_taught_count(status.taught, status.stranded)
        self._show_field_taught()
        self.mark_dirty()
        self.model.rows_changed(0, self.session.ticket_count - 1)
        self.detail.show_row(self.detail.row)

    def _show_field_taught(self) -> None:
        if self.session.prompt_in_use is None:  # none built yet: the editor keeps the saved prompt's counts (W20)
            return
        counts = [len(taught) for taught in self.session.field_taught()]
        self.editor.set_field_taught(counts, self.session.field_names, self.session.field_learned())
        self.detail.set_field_taught(counts)

    def _rows_added(self, rows: range) -> None:
        if rows.start == 0 or len(self.session.columns) != self.tickets.column_count:
            self.ticket_actions.columns_arrived()
        self.model.rows_added(rows)
        self.tickets.show_empty(False)
        self.mark_dirty()
        if self.freeze_gc:
            gc.collect(0)

    def _rows_changed(self, first: int, last: int) -> None:
        self.model.rows_changed(first, last)
        if first <= self.detail.row <= last:
            self.detail.show_row(self.detail.row)
        self.mark_dirty()

    def _table_reset(self) -> None:
        self.model.reset()
        self.evaluation.cleared()
        self.model.set_gold_column(None)
        self.tickets.set_columns([], "", None)
        self.tickets.show_empty(True)
        self.tickets.reset_filters()  # the next file starts with every ticket shown
        self.detail.show_row(-1)
        self.mark_dirty()
        self.refresh_stats()

    # ========================================================== view → session

    def teach(self, rows: list[int], label: str | None) -> None:
        self.teaching.teach_field(0, rows, label)  # the tests': the first field

    def show_checks(self, *_: object) -> None:
        self.teaching.show_checks(gold=self.evaluation.gold is not None)  # the field in use's estimate
        self.mark_dirty()  # the Accuracy tab names the estimate too

    def _baseline_toggled(self, on: bool) -> None:
        self.model.set_show_baseline(on)
        self.tickets.size_columns()
        self.session.set_baseline(on)

    # =============================================================== summary

    def refresh_stats(self) -> None:
        self.summary.refresh()

    def mark_dirty(self) -> None:
        self.summary.dirty = True

    def _gold_changed(self, gold) -> None:
        """The evaluation's gold column changed: show it as a column, and its accuracy."""
        self.model.set_gold_column(gold.column if gold else None)
        self.tickets.show_gold(gold.column if gold else None)
        self.tickets.size_columns()
        self.show_checks()
        self.refresh_stats()
        if gold is not None and self.results.currentIndex() == 0:  # a lead on Versions or Flipped stays there
            self.results.setCurrentIndex(1)

    # ================================================================= misc

    def show_error(self, title: str, text: str) -> None:
        """Tell the user without blocking the event loop; the app stays usable."""
        log.warning("%s: %s", title, text)
        self.statusBar().showMessage(f"{title}: {text.splitlines()[0] if text else ''}", 15000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.last_message = box

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self.ticket_actions.accepts(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        if self.ticket_actions.drop(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def close_now(self) -> bool:
        """Close without asking, as when the session ends (a logout; a test's teardown, where nobody would
        answer "Labelling is still running … Quit anyway?" and the suite sat waiting)."""
        self._closing = True
        return self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closed:  # closed once already (pytest-qt closes what a test closed): nothing left to save
            super().closeEvent(event)
            return
        if not self._closing and not (self.ticket_actions.confirm_discard("Quit") and self.prompt.confirm_quit()):
            event.ignore()
            return
        self._closing = self._closed = True
        self.document.write_draft()
        self._save_settings()
        self._stats_timer.stop()
        self.shutdown()
        super().closeEvent(event)

    def _restore_settings(self) -> None:
        s = self.settings
        if (geometry := s.get_bytes("geometry")) is None or not self.restoreGeometry(geometry):
            self.resize(first_size(self.screen()))  # 1280x720, or what the screen has room for
        elif not self.isMaximized() and not self.isFullScreen():
            self.setGeometry(on_screen(self.geometry(), self.screen()))  # saved on a larger or a gone monitor
        for key, default in SPLITS:
            state = s.get_bytes(key)
            if state is None or not getattr(self, key).restoreState(state):
                getattr(self, key).setSizes(default)
        self.tickets.set_threshold(s.get_float("low_confidence", LOW_CONFIDENCE))
        self.tickets.show_baseline(s.get_bool("baseline", False))

    def _save_settings(self) -> None:
        s = self.settings
        s.set("geometry", self.saveGeometry())
        for key, _default in SPLITS:
            s.set(key, getattr(self, key).saveState())
        s.set("low_confidence", self.tickets.threshold_value)
        s.set("baseline", self.tickets.baseline_shown)
        s.set("prompt_path", str(self.document.path))
        s.set("gold_mappings", json.dumps(self.evaluation.mappings))
        s.sync()

    def _repaint(self) -> None:
        self.model.rows_changed(0, self.session.ticket_count - 1)

    def shutdown(self) -> None:
        """Write what the prompt document still holds, cancel the session's work, join its threads; idempotent."""
        self.document.close()
        self.session.shutdown()
