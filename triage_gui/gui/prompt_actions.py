"""The prompt side of the window: load, save (with the taught tickets), drafts, versions, diff, revert,
and importing or exporting the taught tickets."""

from __future__ import annotations

import difflib
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QPlainTextEdit, QVBoxLayout

from ..engine.atomic import atomic_write_text
from ..engine.prompt import Example, Problem, PromptProfile, default_profile
from ..engine.taught import read_taught, write_taught
from ..session.status import PromptStatus

if TYPE_CHECKING:
    from .main_window import MainWindow


def load_initial_prompt(w: MainWindow) -> None:
    """The saved prompt (with its taught tickets), else the default; an unsaved draft comes back on top."""
    w.draft_timer.timeout.connect(lambda: write_draft(w))
    stored = w.settings.get_path("prompt_path")
    w.profile_path = stored or w.settings.default_prompt_path
    saved: PromptProfile | None = None
    if w.profile_path.is_file():
        try:
            saved = PromptProfile.load(w.profile_path)
            saved.validate()
        except ValueError as exc:
            w.statusBar().showMessage(f"Could not read the saved prompt ({exc}); using the default.", 15000)
            saved = None
    w.saved_profile = saved or default_profile()
    w.editor.set_profile(w.saved_profile)
    draft_path = w.settings.draft_path
    if draft_path.is_file():
        try:
            draft = PromptProfile.load(draft_path)
        except ValueError:
            draft = None
        if draft is not None and draft.to_dict() != w.saved_profile.to_dict():
            w.editor.set_profile(draft)
            w.statusBar().showMessage("Restored your unsaved prompt draft.", 10000)
    w.session.teaching.restore([(e.text, e.label) for e in w.saved_profile.taught])
    w.session.set_prompt(w.saved_profile)
    update_dirty_state(w)


def editor_changed(w: MainWindow) -> None:
    w.draft_timer.start()
    update_dirty_state(w)


def _editor_profile(w: MainWindow) -> PromptProfile:
    profile = w.editor.profile()
    profile.taught = w.saved_profile.taught
    return profile


def update_dirty_state(w: MainWindow) -> None:
    dirty = _editor_profile(w).content_hash() != w.saved_profile.content_hash()
    name = w.profile_path.name
    w.editor.state_label.setText(f"{name} — unsaved changes" if dirty else f"{name} — saved")
    w.setWindowModified(dirty)
    w.setWindowTitle(f"Ticket Triage — {name}[*]")


def write_draft(w: MainWindow) -> None:
    profile = w.editor.profile()
    try:
        if profile.content_hash() == w.saved_profile.content_hash():
            w.settings.draft_path.unlink(missing_ok=True)
        else:
            atomic_write_text(w.settings.draft_path, profile.to_json())
    except OSError as exc:
        w.statusBar().showMessage(f"Could not autosave the prompt draft: {exc}", 10000)


def save_prompt(w: MainWindow) -> bool:
    """Validate, write the profile atomically with the taught tickets, then rebuild in the background.
    An unchanged prompt is written (the taught tickets may have changed) but relabels nothing."""
    w.editor.flush_snapshot()
    profile = w.editor.profile()
    problems = profile.problems()
    if problems:
        w.editor.show_problems(problems)
        w.statusBar().showMessage("Prompt not saved: " + problems[0].message, 10000)
        return False
    w.editor.clear_problems()
    profile.taught = [Example(text, label) for text, label in w.session.teaching.items()]
    try:
        profile.save(w.profile_path)
    except OSError as exc:
        w.show_error("Prompt not saved", f"Cannot write {w.profile_path}: {exc.strerror or exc}")
        return False
    w.saved_profile = profile
    w.settings.draft_path.unlink(missing_ok=True)
    update_dirty_state(w)
    if not w.session.set_prompt(profile):
        w.statusBar().showMessage("Prompt unchanged: nothing to re-label.", 6000)
    return True


def save_taught(w: MainWindow) -> None:
    """Keep the taught tickets with the saved prompt as they change (the prompt text itself is untouched)."""
    profile = w.saved_profile
    profile.taught = [Example(text, label) for text, label in w.session.teaching.items()]
    try:
        profile.save(w.profile_path)
    except OSError as exc:
        w.statusBar().showMessage(f"Could not save the taught tickets: {exc.strerror or exc}", 10000)


def prompt_applied(w: MainWindow, labels: list[str]) -> None:
    version = w.session.prompt_status.version
    w.version_saved_at.setdefault(version, time.strftime("%H:%M:%S"))
    previous = [v for v in w.version_accuracy if v < version]
    w.previous_accuracy = w.version_accuracy[max(previous)] if previous else None
    refresh_versions(w)


def comparison(w: MainWindow, accuracy: float) -> str:
    """The change since the previous version's accuracy, only where like is compared with like: the same
    gold rows and the same taught set (a version before teaching scored against one after fourteen taught
    tickets credited the prompt with the teaching's gain)."""
    record = w.previous_accuracy
    if record is None:
        return ""
    before, taught, rows, version = record
    now_taught, now_rows = len(w.session.teaching.taught), gold_rows(w)
    if (taught, rows) != (now_taught, now_rows):
        return (
            f"not comparable with version {version + 1} ({taught} taught tickets and {rows} gold rows then, "
            f"{now_taught} and {now_rows} now)"
        )
    return f"{100 * (accuracy - before):+.1f} points since version {version + 1} (same gold rows and taught set)"


def gold_rows(w: MainWindow) -> int:
    if w.gold is None:
        return 0
    return int((w.gold.ids(w.session.table) >= 0).sum())


def prompt_failed(w: MainWindow, status: PromptStatus) -> None:
    w.editor.show_problems([Problem(status.field or "instruction", status.message)])
    w.prompt_status.setText("Prompt not updated: the previous prompt stays in use")
    w.statusBar().showMessage(f"Prompt not updated: {status.message}", 15000)


def record_accuracy(w: MainWindow) -> None:
    """A finished run's accuracy against gold, kept for the version list and the change since."""
    if w.gold is None:
        return
    from ..session.gold import gold_report

    report = gold_report(w.session.table, w.gold)
    if report.total:
        version = w.session.prompt_status.version
        w.version_accuracy[version] = (report.accuracy, len(w.session.teaching.taught), gold_rows(w), version)
        refresh_versions(w)


def refresh_versions(w: MainWindow) -> None:
    rows = []
    for version, profile in reversed(w.session.versions):
        summary = f"{len(profile.labels)} labels: {', '.join(profile.label_names)[:80]} — {profile.instruction[:60]}"
        record = w.version_accuracy.get(version)
        accuracy = None if record is None else record[0]
        taught = "" if record is None else f" ({record[1]} taught)"
        rows.append((version + 1, w.version_saved_at.get(version, ""), accuracy, summary + taught))
    w.results.show_versions(rows)


def _version(w: MainWindow, shown: int) -> PromptProfile | None:
    return next((p for v, p in w.session.versions if v + 1 == shown), None)


def revert(w: MainWindow, shown: int) -> None:
    profile = _version(w, shown)
    if profile is not None:
        w.editor.set_profile(profile, clear_undo=False)
        save_prompt(w)


def show_diff(w: MainWindow, a: int, b: int) -> None:
    old, new = _version(w, a), _version(w, b)
    if old is None or new is None:
        return
    lines = difflib.unified_diff(
        _readable(old).splitlines(), _readable(new).splitlines(), f"version {a}", f"version {b}", lineterm=""
    )
    dialog = QDialog(w)
    dialog.setWindowTitle(f"Prompt version {a} → {b}")
    text = QPlainTextEdit("\n".join(lines) or "No difference in what the model reads.")
    text.setReadOnly(True)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    box = QVBoxLayout(dialog)
    box.addWidget(text)
    box.addWidget(buttons)
    dialog.resize(640, 420)
    dialog.open()
    w.diff_dialog = dialog


def _readable(profile: PromptProfile) -> str:
    lines = ["Instruction:", profile.instruction, "", "Labels:"]
    lines += [f"- {label.name}: {label.description}" for label in profile.labels]
    lines += ["", "Examples:"] + [f"- [{e.label}] {e.text}" for e in profile.examples]
    return "\n".join(lines)


def open_prompt_dialog(w: MainWindow) -> None:
    path, _ = QFileDialog.getOpenFileName(w, "Open prompt profile", "", "Prompt profiles (*.json)")
    if path:
        open_prompt(w, path)


def open_prompt(w: MainWindow, path: str) -> None:
    try:
        profile = PromptProfile.load(path)
    except ValueError as exc:
        w.show_error("Prompt not opened", str(exc))
        return
    w.profile_path = Path(path)
    w.editor.set_profile(profile)
    w.session.teaching.restore([(e.text, e.label) for e in profile.taught])
    save_prompt(w)


def save_as_dialog(w: MainWindow) -> None:
    path, _ = QFileDialog.getSaveFileName(w, "Save prompt profile", str(w.profile_path), "*.json")
    if path:
        w.profile_path = Path(path)
        save_prompt(w)


def import_taught(w: MainWindow) -> None:
    path, _ = QFileDialog.getOpenFileName(w, "Import taught tickets", "", "Ticket files (*.csv *.tsv *.jsonl *.txt)")
    if not path:
        return
    try:
        items = read_taught(path, w.session.table.labels or w.saved_profile.label_names)
    except ValueError as exc:
        w.show_error("Taught tickets not imported", str(exc))
        return
    added = w.session.teaching.add_items(items.items)
    note = f" ({items.skipped} rows skipped: {items.reason})" if items.skipped else ""
    w.statusBar().showMessage(f"Imported {added} taught tickets from {Path(path).name}{note}.", 10000)


def export_taught(w: MainWindow) -> None:
    items = w.session.teaching.items()
    if not items:
        w.statusBar().showMessage("Nothing taught yet.", 5000)
        return
    suggestion = w.profile_path.with_name(f"{w.profile_path.stem}-taught.csv")
    path, _ = QFileDialog.getSaveFileName(w, "Export taught tickets", str(suggestion), "CSV files (*.csv)")
    if path:
        try:
            write_taught(path, items)
        except OSError as exc:
            w.show_error("Export failed", f"Cannot write {path}: {exc.strerror or exc}")
            return
        w.statusBar().showMessage(f"Exported {len(items)} taught tickets to {path}.", 10000)
