"""The main window: assembles the prompt editor, the ticket area, the results area and the detail pane,
sends user intents to the session and renders what the session reports. It keeps no state of its own
about models, prompts or runs: the session owns that."""

from __future__ import annotations

import gc
import logging
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QDialog, QLabel, QMainWindow, QMenu, QMessageBox, QProgressDialog, QSplitter

from ..engine.metrics import latency_summary
from ..engine.model_loader import BUNDLED
from ..engine.prompt import PromptProfile
from ..session.gold import GoldColumn, gold_report, row_mask
from ..session.session import Session
from ..session.status import FileStatus, HeadStatus, ModelStatus, PromptStatus, RunStatus
from . import actions, prompt_actions
from .detail_pane import DetailPane
from .prompt_editor import PromptEditor
from .results_area import ResultsArea
from .settings import AppSettings
from .ticket_area import TicketArea
from .ticket_model import TicketTableModel

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    def __init__(
        self,
        model_spec: str | None = None,
        device: str = "auto",
        freeze_gc: bool = False,
        session: Session | None = None,
        encoder: str = "bundled",
    ) -> None:
        super().__init__()
        self.freeze_gc = freeze_gc
        self.setWindowTitle("Ticket Triage")
        self.setAcceptDrops(True)
        self.settings = AppSettings()
        self.session = session or Session(device=device, encoder=encoder)
        self.gold: GoldColumn | None = None
        # (accuracy, taught tickets, gold rows, version) of the previous version with a gold accuracy
        self.previous_accuracy: tuple[float, int, int, int] | None = None
        self.last_message: QMessageBox | None = None
        self.progress_dialog: QProgressDialog | None = None
        self._closing = False
        # Set by the action modules (actions, prompt_actions) as they build and load; declared here.
        self.open_action = self.export_action = self.save_action = self.paste_action = self.stop_action = QAction()
        self.calibrate_action = QAction()
        self.recent_menu: QMenu | None = None
        self.gold_mappings: dict[str, dict[str, str]] = {}  # gold value mappings, per file header
        self.profile_path = Path()
        self.saved_profile = PromptProfile("", [])
        self.version_saved_at: dict[int, str] = {}
        self.version_accuracy: dict[int, tuple[float, int, int, int]] = {}
        self.draft_timer = QTimer(self, singleShot=True, interval=800)
        self.diff_dialog: QDialog | None = None
        self.last_opened = ""
        self._build()
        actions.build_menus(self)
        self._connect()
        actions.restore_settings(self)
        actions.follow_system_scheme(self)
        prompt_actions.load_initial_prompt(self)
        self._stats_dirty = True
        self._stats_timer = QTimer(self, interval=200)
        self._stats_timer.timeout.connect(self.refresh_stats)
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
        self.bottom_split = QSplitter(Qt.Orientation.Horizontal)
        self.bottom_split.addWidget(self.results)
        self.bottom_split.addWidget(self.detail)
        self.bottom_split.setStretchFactor(0, 3)
        self.bottom_split.setStretchFactor(1, 2)
        self.right_split = QSplitter(Qt.Orientation.Vertical)
        self.right_split.addWidget(self.tickets)
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
        self.model_status = QLabel()
        self.model_status.setAccessibleName("Model")
        self.prompt_status = QLabel("Waiting for the model…")
        self.prompt_status.setAccessibleName("Prompt state")
        self.learn_status = QLabel()
        self.learn_status.setAccessibleName("Learning state")
        self.check_status = QLabel("Accuracy: not estimated")
        self.check_status.setAccessibleName("Estimated accuracy")
        self.check_status.setToolTip("Check a random sample (Teach menu) to estimate the accuracy")
        for label in (self.check_status, self.learn_status, self.prompt_status, self.model_status):
            self.statusBar().addPermanentWidget(label)

    def _connect(self) -> None:
        s = self.session
        s.model_changed.connect(self.show_model)
        s.prompt_changed.connect(self.show_prompt)
        s.run_changed.connect(self.show_run)
        s.file_changed.connect(self.show_file)
        s.rows_added.connect(self._rows_added)
        s.rows_changed.connect(self._rows_changed)
        s.table_reset.connect(self._table_reset)
        s.message.connect(self.show_error)
        s.save_taught.connect(lambda: prompt_actions.save_taught(self))
        s.teaching.changed.connect(self.show_head)
        s.teaching.suggested.connect(lambda rows: self.tickets.set_rows(suggested=tuple(rows)))
        s.checks.changed.connect(self.show_checks)
        t = self.tickets
        t.filters_changed.connect(self.apply_filters)
        t.text_column_chosen.connect(self.session.set_text_column)
        t.gold_column_chosen.connect(lambda column: actions.choose_gold(self, column))
        t.baseline_toggled.connect(self._baseline_toggled)
        t.stop_clicked.connect(self.session.stop)
        t.resume_clicked.connect(self.session.resume)
        t.row_selected.connect(self.detail.show_row)
        t.table.teach_keys.connect(self._teach_keys)
        t.table.accept_keys.connect(self.accept)
        t.table.next_key.connect(self.next_suggestion)
        t.empty.open_clicked.connect(lambda: actions.open_dialog(self))
        t.empty.sample_clicked.connect(lambda: actions.open_sample(self))
        self.detail.teach.connect(self.teach)
        self.detail.accept.connect(self.accept)
        self.results.flip_selected.connect(self.tickets.select_source_row)
        self.results.cell_selected.connect(self.tickets.set_cell)
        self.results.version_revert.connect(lambda v: prompt_actions.revert(self, v))
        self.results.version_diff.connect(lambda a, b: prompt_actions.show_diff(self, a, b))
        self.editor.save_requested.connect(lambda: prompt_actions.save_prompt(self))
        self.editor.import_taught.connect(lambda: prompt_actions.import_taught(self))
        self.editor.export_taught.connect(lambda: prompt_actions.export_taught(self))
        self.editor.changed.connect(lambda: prompt_actions.editor_changed(self))

    # ========================================================= session → view

    def show_model(self, status: ModelStatus) -> None:
        if status.state == "loading":
            self.model_status.setText(status.message)
            actions.model_progress(self, status)
            return
        actions.close_progress(self)
        if status.state == "ready":
            self.settings.set("model", self.session.model_spec or BUNDLED)
            # Short, so the file's status keeps room at 1024 px; the rest in the tooltip.
            self.model_status.setText(f"{status.name} · {status.device}")
            self.model_status.setToolTip(f"{status.name} on {status.device}, loaded in {status.seconds:.1f} s")
            if status.message:
                self.statusBar().showMessage(status.message, 15000)
            if self.freeze_gc:
                gc.collect(1)
                gc.freeze()  # torch's long-lived objects out of the collector's full passes
        elif status.state == "failed" and self.session.model is None:
            self.model_status.setText("No model")
            self.prompt_status.setText("No model: labels cannot be made")

    def show_prompt(self, status: PromptStatus) -> None:
        if status.state == "updating":
            self.prompt_status.setText("Updating prompt…")
        elif status.state == "ready":
            how = "read back from disk" if status.from_disk else f"built in {status.seconds:.2f} s"
            self.prompt_status.setText(f"Prompt ready (v{status.version + 1})")
            self.prompt_status.setToolTip(
                f"Version {status.version + 1}, {how}. "
                f"The prompt's {status.prefix_tokens} tokens are cached; each ticket adds only its own."
                + (" Label scores are calibrated against the prompt's own bias." if status.calibrated else "")
            )
            if status.notice:
                self.statusBar().showMessage(status.notice, 15000)
            labels = self.session.table.labels
            self.tickets.refresh_label_filter()
            self.model.reset()
            self.tickets.size_columns()
            prompt_actions.prompt_applied(self, labels)
        elif status.state == "failed":
            prompt_actions.prompt_failed(self, status)
        self._stats_dirty = True

    def show_run(self, status: RunStatus) -> None:
        self.tickets.show_run(status)
        self._stats_dirty = True
        if status.state in ("done", "stopped"):
            self.refresh_stats()
            prompt_actions.record_accuracy(self)

    def show_file(self, status: FileStatus) -> None:
        if status.state == "reading":
            self.statusBar().showMessage(f"Reading {status.name}…")
        elif status.state == "done":
            self.statusBar().showMessage(f"{status.name}: {status.summary}", 15000)
            actions.detect_gold(self)
        elif status.state == "stopped":
            self.statusBar().showMessage(f"{status.name}: stopped after {status.rows} rows.", 15000)

    def show_head(self, status: HeadStatus) -> None:
        if status.taught != self.detail.taught_count:
            self.detail.taught_count = status.taught
            self.detail.show_row(self.detail.row)
        if status.state == "off":
            self.learn_status.setText("")
        elif status.state == "fitting":
            self.learn_status.setText("Learning…")
        elif status.state == "ready":
            if status.taught:
                self.learn_status.setText(f"Learned from {status.taught} taught tickets")
            else:
                self.learn_status.setText("Learned from the prompt's examples")
            self.learn_status.setToolTip(
                f"Encoder, LLM-state, word and character heads and the prompt, weighted {status.weights}. "
                f"Refit in {status.fit_ms:.0f} ms."
            )
        elif status.state == "failed":
            self.learn_status.setText("Learning failed")
            self.learn_status.setToolTip(status.message)
        self.editor.set_taught_count(status.taught)
        self._stats_dirty = True
        self.model.rows_changed(0, len(self.session.table) - 1)
        self.detail.show_row(self.detail.row)

    def _rows_added(self, rows: range) -> None:
        if rows.start == 0 or len(self.session.table.columns) != self.tickets.text_column.count():
            actions.columns_arrived(self)
        self.model.rows_added(rows)
        self.tickets.show_empty(False)
        self._stats_dirty = True
        if self.freeze_gc:
            gc.collect(0)

    def _rows_changed(self, first: int, last: int) -> None:
        self.model.rows_changed(first, last)
        if first <= self.detail.row <= last:
            self.detail.show_row(self.detail.row)
        self._stats_dirty = True

    def _table_reset(self) -> None:
        self.model.reset()
        self.gold = None
        self.previous_accuracy = None
        self.tickets.set_columns([], "", None)
        self.tickets.show_empty(True)
        self.tickets.clear_cell()
        self.detail.show_row(-1)
        self._stats_dirty = True
        self.refresh_stats()

    # ========================================================== view → session

    def teach(self, rows: list[int], label: str | None) -> None:
        checked = self.session.checks.record(rows, label) if label is not None else []
        self.session.teaching.teach(rows, label)  # a ticket of the random sample: counted above, taught here
        self._next_to_check(checked)

    def accept(self, rows: list[int]) -> None:
        checked = self.session.checks.record(rows, None)
        self.session.teaching.accept(rows)
        self._next_to_check(checked)

    def _next_to_check(self, checked: list[int]) -> None:
        """After a verdict on the random sample, the next ticket to check is selected, in the order drawn,
        so Enter or 1-9 answers it straight away."""
        following = self.session.checks.next_row()
        if checked and following is not None:
            self.tickets.select_source_row(following)
            self.tickets.table.setFocus()

    def next_suggestion(self) -> None:
        """Select the next ticket to teach: the best suggestion not taught yet, or say there is none."""
        table = self.session.table
        row = next(
            (r for r in self.session.teaching.suggestions if r < len(table) and table.taught_label(r) is None), -1
        )
        if row < 0:
            self.statusBar().showMessage("No ticket to suggest yet: suggestions follow the first labels.", 6000)
            return
        self.tickets.select_source_row(row)
        self.tickets.table.setFocus()

    def check_sample(self) -> None:
        """Draw a random sample to check and show it ("To check"), its first ticket selected."""
        drawn = self.session.checks.draw()
        if not drawn and not self.session.checks.queue:
            self.statusBar().showMessage("No untaught labelled ticket to check.", 6000)
            return
        self.tickets.check_only.setChecked(True)
        self.tickets.select_source_row(self.session.checks.queue[0])
        self.tickets.table.setFocus()
        self.statusBar().showMessage(
            f"Check {len(self.session.checks.queue)} random tickets: Enter if right, else 1-9.", 15000
        )

    def show_checks(self, status) -> None:
        """The random checks' estimate, next to the learning state and in the editor."""
        self.tickets.set_rows(to_check=status.to_check)
        self.check_status.setText(
            "Accuracy: not estimated" if not status.checked else
            f"~{100 * status.accuracy:.0f}% ({100 * status.low:.0f}–{100 * status.high:.0f}%, "
            f"{status.checked} check{'s' if status.checked != 1 else ''})"
        )  # fmt: skip
        self.check_status.setToolTip(status.describe())
        self.editor.set_estimate(status.describe())
        if status.checked and not status.to_check and self.tickets.check_only.isChecked():
            self.statusBar().showMessage(f"Sample checked. {status.describe()}.", 15000)

    def _teach_keys(self, rows: list[int], which) -> None:
        labels = self.session.table.labels
        if which is None:
            self.teach(rows, None)
        elif isinstance(which, int) and which < len(labels):
            self.teach(rows, labels[which])

    def _baseline_toggled(self, on: bool) -> None:
        self.model.set_show_baseline(on)
        self.tickets.size_columns()
        self.session.set_baseline(on)

    def apply_filters(self) -> None:
        filters = self.tickets.filters()
        self.tickets.proxy.set_mask(row_mask(self.session.table, filters, self.gold))

    # =============================================================== summary

    def refresh_stats(self) -> None:
        if not self._stats_dirty:
            return
        self._stats_dirty = False
        table = self.session.table
        latencies = table.latencies()
        base = [table.baseline[r].latency_ms for r in table.baseline]
        agree = [table.agree(r) for r in table.baseline]
        truncated, fallback = table.flags_count()
        notes = []
        if truncated:
            notes.append(f"{truncated} truncated to fit the context (✂).")
        if fallback:
            notes.append(f"{fallback} used the shorter clean prefix.")
        head = self.session.teaching.status
        learning = ""
        if head.state == "ready":
            learning = f"Labels learned from {head.taught} taught tickets and {head.examples} prompt examples."
        self.results.show_stats(
            table.count_scored(),
            table.count_scorable(),
            len(table.problems),
            latency_summary(latencies),
            latency_summary(base),
            (sum(a is True for a in agree), sum(a is not None for a in agree)) if agree else None,
            learning,
            " ".join(notes),
        )
        self.results.chart.set_series(latencies[-2000:].tolist(), base[-2000:])
        self.refresh_gold()
        self.tickets.refresh_label_filter()
        if self.tickets.filters().active and self.session.running:
            self.apply_filters()

    def mark_dirty(self) -> None:
        self._stats_dirty = True

    def refresh_gold(self) -> None:
        table = self.session.table
        if self.gold is None or not table.labels:
            self.results.show_gold(None, "", actions.gold_hint(self))
            self.results.show_flips(*actions.flips(self))
            return
        report = gold_report(table, self.gold)
        note = "Taught tickets count with the label the classifier gives them when not trained on them."
        since = prompt_actions.comparison(self, report.accuracy) if report.total else ""
        self.results.show_gold(report, since, note if len(table.taught_rows()) else "")
        self.results.show_flips(*actions.flips(self))

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
        mime = event.mimeData()
        if (mime.hasUrls() and any(u.isLocalFile() for u in mime.urls())) or mime.hasText():
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        paths = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()] if mime.hasUrls() else []
        if paths:
            actions.open_files(self, paths)
        elif mime.hasText():
            actions.paste_text(self, mime.text())
        else:
            event.ignore()
            return
        event.acceptProposedAction()

    def paste_tickets(self) -> None:
        actions.paste_text(self, QGuiApplication.clipboard().text())

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing and not actions.confirm_discard(self, "Quit"):
            event.ignore()
            return
        self._closing = True
        prompt_actions.write_draft(self)
        actions.save_settings(self)
        self._stats_timer.stop()
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Cancel the session's work and join its threads; idempotent."""
        self.session.shutdown()
