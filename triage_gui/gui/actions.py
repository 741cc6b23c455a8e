"""The window's menus and the actions behind them: files, paste, export, gold, model, help, settings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog

from ..engine.export import write_results
from ..engine.table import NewRow
from ..engine.tickets import SUPPORTED, tickets_from_text
from ..paths import sample_tickets
from ..session.gold import GoldColumn, match_share
from ..session.status import ModelStatus
from . import dialogs, theme

if TYPE_CHECKING:
    from .main_window import MainWindow

SHORTCUTS = [
    ("Ctrl+O", "Open ticket files"),
    ("Ctrl+V", "Paste tickets (lines, or CSV with a header)"),
    ("Ctrl+S", "Save the prompt and re-label"),
    ("Ctrl+E", "Export the labelled tickets"),
    ("Esc", "Stop labelling (Resume picks up the rest)"),
    ("1 – 9", "Teach the selected tickets the n-th label"),
    ("Enter", "Accept the shown label of the selected tickets (teach it)"),
    ("Delete", "Forget what you taught the selected tickets"),
    ("N", "Go to the next ticket to teach (the Teach next filter lists them)"),
    ("Double-click a label", "Choose the right label from a list"),
    ("Ctrl+C", "Copy the selected rows as tab-separated text with a header"),
    ("Ctrl+Z / Ctrl+Shift+Z", "Undo / redo an edit of the labels or examples tables"),
]


def build_menus(w: MainWindow) -> None:
    def action(text: str, slot, shortcut=None, menu=None, context=None) -> QAction:
        act = QAction(text, w)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if context is not None:
            act.setShortcutContext(context)
        if slot is not None:
            act.triggered.connect(slot)
        if menu is not None:
            menu.addAction(act)
        return act

    keys = QKeySequence.StandardKey
    file_menu = w.menuBar().addMenu("&File")
    w.open_action = action("&Open tickets…", lambda: open_dialog(w), keys.Open, file_menu)
    w.recent_menu = file_menu.addMenu("Open &recent")
    action("Open the &sample tickets", lambda: open_sample(w), None, file_menu)
    file_menu.addSeparator()
    w.export_action = action("&Export labelled tickets…", lambda: export_dialog(w), "Ctrl+E", file_menu)
    file_menu.addSeparator()
    from . import prompt_actions

    w.save_action = action("&Save prompt and re-label", lambda: prompt_actions.save_prompt(w), keys.Save, file_menu)
    action("Open &prompt profile…", lambda: prompt_actions.open_prompt_dialog(w), None, file_menu)
    action("Save prompt profile &as…", lambda: prompt_actions.save_as_dialog(w), keys.SaveAs, file_menu)
    file_menu.addSeparator()
    action("&Quit", w.close, keys.Quit, file_menu)

    edit_menu = w.menuBar().addMenu("&Edit")
    undo = w.editor.undo_stack.createUndoAction(w, "&Undo prompt edit")
    undo.setShortcut(QKeySequence(keys.Undo))
    undo.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    redo = w.editor.undo_stack.createRedoAction(w, "&Redo prompt edit")
    redo.setShortcut(QKeySequence(keys.Redo))
    redo.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    w.editor.labels.addActions([undo, redo])
    w.editor.examples.addActions([undo, redo])
    edit_menu.addActions([undo, redo])
    edit_menu.addSeparator()
    w.paste_action = action(
        "&Paste tickets", w.paste_tickets, keys.Paste, edit_menu, Qt.ShortcutContext.WidgetWithChildrenShortcut
    )
    w.tickets.addAction(w.paste_action)
    w.tickets.empty.addAction(w.paste_action)
    action("Clear &tickets", lambda: clear(w), None, edit_menu)
    w.stop_action = action("&Stop labelling", w.session.stop, "Esc", edit_menu)

    teach_menu = w.menuBar().addMenu("&Teach")
    action("Go to the &next ticket to teach", w.next_suggestion, None, teach_menu).setToolTip("N in the table")
    action("&Check a random sample…", w.check_sample, None, teach_menu).setToolTip(
        "Confirm or correct 20 random tickets: the accuracy shown comes from these checks"
    )
    teach_menu.addSeparator()
    action("Learn from the &gold column", lambda: learn_from_gold(w), None, teach_menu)
    action("&Forget everything taught", lambda: forget_all(w), None, teach_menu)

    view_menu = w.menuBar().addMenu("&View")
    appearance = view_menu.addMenu("&Appearance")
    group = QActionGroup(w)
    for scheme in theme.SCHEMES:
        act = action(scheme.capitalize() if scheme != "system" else "Follow the system", None, None, appearance)
        act.setCheckable(True)
        act.setChecked(scheme == w.settings.get_str("appearance", "system"))
        act.triggered.connect(lambda checked=False, s=scheme: set_appearance(w, s))
        group.addAction(act)

    model_menu = w.menuBar().addMenu("&Model")
    action("&Choose model…", lambda: choose_model(w), None, model_menu)
    w.calibrate_action = action("&Calibrate the prompt's label scores", None, None, model_menu)
    w.calibrate_action.setCheckable(True)
    w.calibrate_action.setToolTip("Divide out the label bias the prompt gives an empty ticket (on by default)")
    w.calibrate_action.setChecked(w.settings.get_bool("calibrate", True))
    w.session.calibrate = w.calibrate_action.isChecked()
    w.calibrate_action.toggled.connect(lambda on: set_calibration(w, on))
    help_menu = w.menuBar().addMenu("&Help")
    action("&Guide and keyboard shortcuts", lambda: dialogs.show_guide(w, SHORTCUTS), "F1", help_menu)
    action("&About Ticket Triage", lambda: about(w), None, help_menu)
    refresh_recent_menu(w)


# ------------------------------------------------------------------ settings


def set_appearance(w: MainWindow, scheme: str) -> None:
    """Light, dark or the system's scheme; remembered, and followed when the system switches."""
    w.settings.set("appearance", scheme)
    theme.apply_scheme(scheme)
    w.model.rows_changed(0, len(w.session.table) - 1)


def set_calibration(w: MainWindow, on: bool) -> None:
    w.settings.set("calibrate", on)
    w.session.set_calibration(on)


def follow_system_scheme(w: MainWindow) -> None:
    def changed() -> None:
        if w.settings.get_str("appearance", "system") == "system":
            set_appearance(w, "system")

    QGuiApplication.styleHints().colorSchemeChanged.connect(changed)
    scheme = w.settings.get_str("appearance", "system")
    theme.apply_scheme(scheme if scheme in theme.SCHEMES else "system")


def restore_settings(w: MainWindow) -> None:
    s = w.settings
    geometry = s.get_bytes("geometry")
    if geometry is None or not w.restoreGeometry(geometry):
        w.resize(1280, 720)
    for key, splitter, default in (
        ("main_split", w.main_split, [380, 900]),
        ("right_split", w.right_split, [380, 300]),
        ("bottom_split", w.bottom_split, [560, 340]),
    ):
        state = s.get_bytes(key)
        if state is None or not splitter.restoreState(state):
            splitter.setSizes(default)
    w.tickets.threshold.setValue(s.get_float("low_confidence", 0.5))
    w.tickets.baseline_toggle.setChecked(s.get_bool("baseline", False))
    w.gold_mappings = s.get_dict("gold_mappings")


def save_settings(w: MainWindow) -> None:
    s = w.settings
    s.set("geometry", w.saveGeometry())
    s.set("main_split", w.main_split.saveState())
    s.set("right_split", w.right_split.saveState())
    s.set("bottom_split", w.bottom_split.saveState())
    s.set("low_confidence", w.tickets.threshold.value())
    s.set("baseline", w.tickets.baseline_toggle.isChecked())
    s.set("prompt_path", str(w.profile_path))
    import json

    s.set("gold_mappings", json.dumps(w.gold_mappings))
    s.sync()


# ---------------------------------------------------------------- tickets in


def refresh_recent_menu(w: MainWindow, files: list[str] | None = None) -> None:
    menu = w.recent_menu
    if menu is None:
        return
    menu.clear()
    for path in files if files is not None else w.settings.recent_files():
        act = menu.addAction(path)
        act.triggered.connect(lambda checked=False, p=path: open_files(w, [p]))
    menu.setEnabled(bool(menu.actions()))


def open_dialog(w: MainWindow) -> None:
    patterns = " ".join(f"*{ext}" for ext in SUPPORTED)
    paths, _ = QFileDialog.getOpenFileNames(w, "Open ticket files", "", f"Ticket files ({patterns});;All files (*)")
    if paths:
        open_files(w, paths)


def open_sample(w: MainWindow) -> None:
    open_files(w, [str(sample_tickets())])


def open_files(w: MainWindow, paths: list[str]) -> None:
    """Open files; while tickets are loaded, ask whether they replace them or are added to them."""
    replace = False
    if len(w.session.table):
        answer = dialogs.replace_or_add(w, len(w.session.table), [Path(p).name for p in paths])
        if answer is None:
            return
        replace = answer
    for i, path in enumerate(paths):
        w.last_opened = path
        refresh_recent_menu(w, w.settings.add_recent(str(path)))
        w.session.open_file(path, replace=replace and i == 0)


def paste_text(w: MainWindow, text: str) -> None:
    columns, tickets, text_column = tickets_from_text(text)
    if not tickets:
        w.statusBar().showMessage("Nothing to paste: the clipboard holds no ticket text.", 8000)
        return
    rows = [NewRow(dict(zip(columns, t.values)), t.text, "pasted") for t in tickets]
    w.session.paste(rows, columns[text_column])
    w.statusBar().showMessage(f"Pasted {len(rows)} ticket{'s' if len(rows) != 1 else ''}.", 8000)


def columns_arrived(w: MainWindow) -> None:
    table = w.session.table
    w.tickets.set_columns(table.columns, w.session.text_column, w.gold.column if w.gold else None)


def clear(w: MainWindow) -> None:
    if confirm_discard(w, "Clear the tickets"):
        w.session.clear()


def confirm_discard(w: MainWindow, what: str) -> bool:
    """While labelling or reading runs, ask before throwing the work away."""
    if not (w.session.running or w.session.reading):
        return True
    answer = QMessageBox.question(
        w,
        what,
        f"Labelling is still running ({w.session.run_status.remaining} tickets to go). {what} anyway?",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel,
    )
    return answer == QMessageBox.StandardButton.Yes


# ---------------------------------------------------------------------- gold


def detect_gold(w: MainWindow) -> None:
    """Offer a column whose values are (nearly all) label names as the gold column."""
    table = w.session.table
    if w.gold is not None or not len(table) or not table.labels:
        return
    text = w.session.text_column
    for column in table.columns:
        if column == text:
            continue
        matched, total = match_share(table, column)
        if total and matched / total >= 0.9:
            set_gold(w, GoldColumn(column))
            return


def choose_gold(w: MainWindow, column: str | None) -> None:
    if column is None:
        set_gold(w, None)
        return
    table = w.session.table
    matched, total = match_share(table, column)
    key = _header_key(w, column)
    remembered = w.gold_mappings.get(key)
    if total and matched < total and remembered is None:
        mapping = dialogs.gold_mapping(w, table, column, matched, total)
        if mapping is None:
            w.tickets.gold_combo.setCurrentText(w.gold.column if w.gold else "(none)")
            return
        w.gold_mappings[key] = mapping
        remembered = mapping
    set_gold(w, GoldColumn(column, dict(remembered or {})))


def _header_key(w: MainWindow, column: str) -> str:
    return "|".join(w.session.table.columns) + "::" + column


def set_gold(w: MainWindow, gold: GoldColumn | None) -> None:
    w.gold = gold
    w.model.set_gold_column(gold.column if gold else None)
    w.tickets.gold_combo.setCurrentText(gold.column if gold else "(none)")
    w.tickets.size_columns()
    w.mark_dirty()
    w.refresh_stats()
    if gold is not None:
        w.results.setCurrentIndex(1)


def gold_hint(w: MainWindow) -> str:
    if not len(w.session.table):
        return ""
    return "Pick a gold column (correct labels) in the bar above the tickets to see accuracy."


def learn_from_gold(w: MainWindow) -> None:
    if w.gold is None:
        w.show_error("No gold column", "Pick the column of correct labels (Gold:) first.")
        return
    taught = w.session.teaching.learn_from(w.gold)
    w.statusBar().showMessage(f"Learning from {taught} tickets of the gold column.", 10000)


def forget_all(w: MainWindow) -> None:
    w.session.teaching.forget_all()


def flips(w: MainWindow, limit: int = 2000) -> tuple[list[tuple[int, str, str, str]], int]:
    """Tickets whose label changed with the last prompt version (the first ``limit``), and how many."""
    table = w.session.table
    previous, current = table.previous_ids(), table.label_ids()
    changed = np.flatnonzero(table.scored_mask() & (previous >= 0) & (current >= 0) & (previous != current))
    out = []
    for row in changed[:limit]:
        old, new = table.label_vocab[previous[row]], table.label_vocab[current[row]]
        out.append((int(row), table.texts[row], old, new))
    return out, len(changed)


# -------------------------------------------------------------------- export


def export_dialog(w: MainWindow) -> None:
    table = w.session.table
    if not len(table):
        w.statusBar().showMessage("Nothing to export yet.", 5000)
        return
    missing = table.count_scorable() - table.count_scored()
    if missing > 0:
        answer = QMessageBox.question(
            w,
            "Export",
            f"{missing} of {table.count_scorable()} tickets are not labelled yet; they are exported with an "
            "empty label and the reason. Export now?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
    source = Path(w.last_opened or Path.home() / "tickets.csv")
    suggestion = source.with_name(f"{source.stem}-labelled.csv")
    path, _ = QFileDialog.getSaveFileName(w, "Export labelled tickets", str(suggestion), "CSV files (*.csv)")
    if path:
        export(w, path)


def export(w: MainWindow, path: str) -> bool:
    """Every row, in table order, atomically, with the user's normal file permissions."""
    table = w.session.table
    profile = w.session.profile
    try:
        labelled = write_results(path, table, profile.content_hash() if profile else "", w.session.baseline)
    except OSError as exc:
        w.show_error("Export failed", f"Cannot write {path}: {exc.strerror or exc}. Nothing was overwritten.")
        return False
    unlabelled = len(table) - labelled
    tail = f" ({unlabelled} without a label)" if unlabelled else ""
    w.statusBar().showMessage(f"Exported {len(table)} tickets to {path}{tail}.", 10000)
    return True


# --------------------------------------------------------------------- model


def choose_model(w: MainWindow) -> None:
    spec = dialogs.choose_model(w, w.session.model_spec or "")
    if spec:
        w.session.load_model(spec)


def model_progress(w: MainWindow, status: ModelStatus) -> None:
    """Conversions and downloads (anything that reports progress before the end) get a cancellable dialog."""
    if status.fraction >= 0.9 and w.progress_dialog is None:
        return
    if w.progress_dialog is None:
        dialog = QProgressDialog("Preparing the model…", "Cancel", 0, 100, w)
        dialog.setWindowTitle("Loading the model")
        dialog.setMinimumDuration(0)
        dialog.setWindowModality(Qt.WindowModality.NonModal)
        dialog.canceled.connect(w.session.cancel_load)
        w.progress_dialog = dialog
    w.progress_dialog.setLabelText(status.message)
    w.progress_dialog.setValue(int(status.fraction * 100))
    w.progress_dialog.show()


def close_progress(w: MainWindow) -> None:
    if w.progress_dialog is not None:
        w.progress_dialog.blockSignals(True)
        w.progress_dialog.close()
        w.progress_dialog.deleteLater()
        w.progress_dialog = None


def about(w: MainWindow) -> None:
    status = w.session.model_status
    dialogs.show_about(w, status.name or "none", status.licence)
