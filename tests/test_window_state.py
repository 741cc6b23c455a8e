"""The window's numbers match what is there: the run bar, the summary and the counts from one source,
cleared with what they describe (issue 22)."""

from __future__ import annotations

import pytest
from fake_engine import FakeEngine
from PySide6.QtCore import Qt
from window_fakes import close_fake, fake_window

from triage_gui.engine.table import NewRow


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, event_loop_qt):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    win = fake_window(qtbot, FakeEngine(batch_seconds=0.02))
    yield win
    close_fake(win)


def rows(n: int) -> list[NewRow]:
    return [NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(n)]


def test_turning_the_baseline_off_ends_its_progress(qtbot, window):
    window.tickets.baseline_toggle.setChecked(True)
    window.session.paste(rows(60))
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 60, timeout=10_000)
    qtbot.waitUntil(lambda: len(window.session.table.baseline) > 0, timeout=10_000)
    window.tickets.baseline_toggle.setChecked(False)
    qtbot.waitUntil(lambda: not window.session.running, timeout=10_000)
    qtbot.wait(300)
    bar = window.tickets.rate_label.text()
    assert "baseline" not in bar and "left" not in bar, bar
    assert not window.tickets.stop_button.isEnabled()


def test_turning_the_baseline_off_mid_run_leaves_no_baseline_progress(qtbot, window):
    window.tickets.baseline_toggle.setChecked(True)
    window.session.paste(rows(200))
    qtbot.waitUntil(lambda: len(window.session.table.baseline) > 0, timeout=10_000)
    assert "baseline" in window.tickets.rate_label.text()
    window.tickets.baseline_toggle.setChecked(False)
    qtbot.wait(50)
    assert "baseline" not in window.tickets.rate_label.text()
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=20_000)
    qtbot.wait(300)
    assert window.tickets.rate_label.text().split(" · ")[0] == "All labelled"  # then what the reading changed
    assert not window.tickets.stop_button.isEnabled()


def test_the_summary_and_the_run_bar_count_the_same_while_streaming(qtbot, window):
    counts = []

    def compare(_status) -> None:
        window.mark_dirty()
        window.refresh_stats()
        bar = window.tickets.progress
        summary = window.results.stats.text()
        counts.append((bar.value(), bar.maximum(), summary))

    window.session.run_changed.connect(compare)
    window.session.paste(rows(120))
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=20_000)
    assert len(counts) > 3
    for value, maximum, summary in counts:
        if maximum > 1:
            assert f"<b>{value}</b> of {maximum} tickets labelled" in summary


def test_the_summary_counts_examples_and_descriptions_apart(qtbot, window):
    from triage_gui.gui.results.summary import learned_from

    profile = window.session.profile
    assert profile is not None
    examples = len(profile.examples)
    described = sum(1 for label in profile.labels if label.description.strip())
    text = learned_from(3, profile)
    assert f"{examples} prompt example" in text and f"{described} label description" in text
    assert text.startswith("Labels learned from 3 taught tickets, ")
    window.session.paste(rows(12))
    qtbot.waitUntil(lambda: window.session.teaching.status.state == "ready", timeout=10_000)
    window.mark_dirty()
    window.refresh_stats()
    assert f"{examples} prompt example" in window.results.stats.text()
    assert f"{examples + 2 * described} prompt examples" not in window.results.stats.text()


def test_the_taught_count_is_known_before_any_file(qtbot, tmp_path, monkeypatch, event_loop_qt):
    from triage_gui.engine.prompt import Example, default_profile

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config2"))
    from triage_gui.gui.settings import AppSettings

    path = AppSettings().default_prompt_path
    path.parent.mkdir(parents=True, exist_ok=True)
    profile = default_profile()
    profile.taught = [Example(f"taught {i}", profile.label_names[i % 3]) for i in range(14)]
    profile.save(path)
    win = fake_window(qtbot)
    try:
        assert "14" in win.editor.taught_count.text(), win.editor.taught_count.text()
    finally:
        close_fake(win)


def test_prompt_versions_are_listed_after_a_restart(qtbot, tmp_path, monkeypatch, event_loop_qt):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config3"))
    first = fake_window(qtbot)
    try:
        first.editor.instruction.setPlainText("Route each ticket to one team, version two.")
        assert first.prompt.save()
        qtbot.waitUntil(lambda: first.document.number(first.session.prompt_status.version) == 2, timeout=10_000)
        qtbot.waitUntil(lambda: first.results.versions.rowCount() == 2, timeout=10_000)
        qtbot.waitUntil(lambda: not first.document.busy, timeout=10_000)
    finally:
        close_fake(first)
    second = fake_window(qtbot)
    try:
        qtbot.waitUntil(lambda: second.results.versions.rowCount() == 2, timeout=10_000)
        table = second.results.versions
        assert [table.item(r, 0).text() for r in range(2)] == ["2", "1"]
        assert "version two" in table.item(0, 4).text()  # the prompt, after the Taught column
        assert second.prompt_status.text() == "Prompt ready (v2)"
        old = second.prompt._version(1)
        assert old is not None and "version two" not in old.instruction
    finally:
        close_fake(second)


def test_a_version_keeps_its_accuracy_against_gold_across_a_restart(qtbot, tmp_path, monkeypatch, event_loop_qt):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config4"))
    first = fake_window(qtbot)
    try:
        labels = first.session.table.labels or first.session.profile.label_names
        first.session.paste([NewRow({"text": f"t {i}", "team": labels[i % 3]}, f"t {i}") for i in range(30)])
        qtbot.waitUntil(lambda: first.session.run_status.state == "done", timeout=10_000)
        first.evaluation.choose("team")  # scored on the window's tick once the labels have settled
        qtbot.waitUntil(lambda: first.document.history[-1].accuracy is not None, timeout=10_000)
        qtbot.waitUntil(lambda: not first.session.busy and not first.document.busy, timeout=10_000)
        accuracy = first.document.history[-1].accuracy  # as the last refit left it
    finally:
        close_fake(first)
    second = fake_window(qtbot)
    try:
        qtbot.waitUntil(lambda: second.results.versions.rowCount() == 1, timeout=10_000)
        assert second.results.versions.item(0, 2).text() == f"{100 * accuracy:.1f}%"
    finally:
        close_fake(second)


def test_the_prompt_name_follows_the_labels_until_the_lead_names_it(qtbot, window):
    editor = window.editor
    assert editor.name.text() == "Support triage (billing / technical / account)"
    editor.labels.item(0, 0).setText("payments")
    assert editor.name.text() == "Support triage (payments / technical / account)"
    assert editor.profile().name == "Support triage (payments / technical / account)"
    editor.name.setFocus()
    editor.name.selectAll()
    qtbot.keyClicks(editor.name, "Desk routing")
    editor.labels.item(1, 0).setText("tech")
    assert editor.profile().name == "Desk routing"
    assert window.document.dirty


def test_enter_commits_a_multi_line_description(qtbot, window):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPlainTextEdit

    table = window.editor.labels
    table.setFocus()
    table.setCurrentCell(0, 1)
    table.editItem(table.item(0, 1))
    editor = table.findChild(QPlainTextEdit)
    assert editor is not None
    editor.selectAll()
    qtbot.keyClicks(editor, "Invoices and refunds")
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(editor, "and charges")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: table.item(0, 1).text() == "Invoices and refunds\nand charges", timeout=2000)


def test_a_gold_column_goes_with_the_file_it_came_from(qtbot, window, tmp_path):
    labels = window.session.profile.label_names
    first = tmp_path / "first.csv"
    first.write_text("text,queue\n" + "".join(f"ticket {i},{labels[i % 3]}\n" for i in range(20)), encoding="utf-8")
    second = tmp_path / "second.csv"
    second.write_text("id,text\n" + "".join(f"{i},other {i}\n" for i in range(20)), encoding="utf-8")
    window.session.open_file(first)
    qtbot.waitUntil(lambda: window.evaluation.gold is not None, timeout=10_000)
    assert window.tickets.gold_combo.currentText() == "queue"
    window.session.open_file(second, replace=True)

    def done():
        return window.session.run_status

    qtbot.waitUntil(lambda: done().state == "done" and len(window.session.table) == 20, timeout=10_000)
    assert window.evaluation.gold is None
    assert window.tickets.gold_combo.currentText() == "(none)"
    headers = [window.model.headerData(c, Qt.Orientation.Horizontal) for c in range(window.model.columnCount())]
    assert not any("queue" in str(h) for h in headers), headers


def sample_while_building(qtbot, tmp_path, monkeypatch):
    """The real window on the fake engine with the sample read while the prompt is still being built, as a
    second after launch; the caller opens the build gate (``fake.build_gate.set()``) and closes the window."""
    from triage_gui.gui.main_window import MainWindow
    from triage_gui.session.session import Session

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    fake = FakeEngine()
    fake.build_gate.clear()
    win = MainWindow(session=Session(fake.as_engine(), device="cpu", batch_size=8, encoder="none"))
    qtbot.addWidget(win, before_close_func=MainWindow.close_now)
    win.show()
    win.ticket_actions.open_sample()
    qtbot.waitUntil(lambda: not win.session.reading and len(win.session.table) > 0, timeout=10_000)
    return win, fake


def test_the_sample_opened_before_the_prompt_is_built_still_gets_its_gold(qtbot, tmp_path, monkeypatch, event_loop_qt):
    win, fake = sample_while_building(qtbot, tmp_path, monkeypatch)
    try:
        assert win.evaluation.gold is None  # no labels yet to match the column against
        fake.build_gate.set()
        qtbot.waitUntil(lambda: win.evaluation.gold is not None, timeout=10_000)
        assert win.tickets.gold_combo.currentText() == "team"
        win.evaluation.choose(None)  # the lead says: no gold
        win.editor.instruction.setPlainText("Another instruction.")
        assert win.prompt.save()
        qtbot.waitUntil(lambda: win.session.prompt_status.version == 1 and not win.session.busy, timeout=10_000)
        assert win.evaluation.gold is None  # not offered again over the lead's choice
    finally:
        close_fake(win)


def test_no_time_left_is_promised_until_this_run_has_measured_its_own_rate():
    """A rate carried over from the last run said 81 s for a re-label that took over 3 minutes; the first
    batch (small, slow per ticket, after the first pass) is not counted in the rate."""
    import time

    from triage_gui.session.labelling import Throughput

    throughput = Throughput()
    throughput.start()
    throughput.add(1)
    time.sleep(0.05)
    throughput.add(199)
    assert throughput.rate() is not None
    throughput.start()  # the re-label
    time.sleep(0.2)
    throughput.add(1)
    assert throughput.rate() is None  # nothing promised from the last run's rate
    time.sleep(0.1)
    throughput.add(100)
    assert throughput.rate() == pytest.approx(100 / 0.1, rel=0.5)  # this run's own, its first batch excluded


def test_the_guide_explains_label_sources_and_accuracy_figures_and_fits_the_screen(qtbot, window):
    window.trigger("guide")
    dialog = window.app_actions.guide_dialog
    assert dialog is not None and dialog.isVisible()
    from PySide6.QtWidgets import QTextBrowser

    text = dialog.findChild(QTextBrowser).toPlainText()
    for words in ("taught (✓)", "learned:", "prompt:", "Check a random sample", "Accuracy against gold", "Agreement"):
        assert words in text, words
    screen = window.screen().availableGeometry()
    assert dialog.width() <= screen.width() and dialog.height() <= screen.height()
    dialog.close()


def test_an_unreadable_history_entry_is_dropped_not_the_prompt():
    from triage_gui.engine.prompt import PromptProfile, default_profile

    data = default_profile().to_dict()
    good = {"number": 1, "saved_at": "2026-12-01 10:00", "content": "abc", "instruction": "x", "labels": []}
    scored = {**good, "number": 3, "accuracy": 0.8, "taught": 4, "gold_rows": 50}
    data["history"] = [good, "junk", {**good, "number": "2"}, {**good, "number": 1}, scored, {**scored, "number": 4,
                       "accuracy": float("nan")}]  # fmt: skip
    history = PromptProfile.from_dict(data).history
    assert [r.number for r in history] == [1, 3, 4]
    assert history[1].accuracy == 0.8 and history[2].accuracy is None
    again = PromptProfile.from_dict(PromptProfile.from_dict(data).to_dict()).history
    assert again == history


def test_clear_leaves_nothing_that_described_the_old_tickets(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)  # Clear asks
    labels = window.session.profile.label_names
    window.session.paste([NewRow({"text": f"t {i}", "team": labels[i % 3]}, f"t {i}") for i in range(40)], "text")
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)
    window.evaluation.choose("team")
    window.trigger("check")
    first = window.session.checks.queue[0]
    window.session.checks.record([first], None)
    window.teach([1, 2], labels[0])
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)
    window.refresh_stats()
    assert window.results.confusion.rowCount() and "check" in window.check_status.text()
    window.ticket_actions.clear()
    qtbot.waitUntil(lambda: len(window.session.table) == 0, timeout=10_000)
    qtbot.wait(300)  # two of the window's 200 ms ticks
    assert window.tickets.progress.text() in ("no tickets", "")
    assert window.tickets.rate_label.text() == "" and not window.tickets.stop_button.isEnabled()
    assert window.results.stats.text().startswith("No tickets yet")
    assert window.results.confusion.rowCount() == 0 and window.evaluation.gold is None
    assert not window.session.checks.queue  # the rows to check went; the verdict stays with the prompt
    assert window.check_status.text().startswith("~") and " on v1 with 0 taught" in window.check_status.text()
    assert not window.tickets.check_only.isChecked()  # the next file starts with every ticket shown
    assert window.detail.row == -1


def test_opening_a_prompt_writes_nothing_to_it(qtbot, tmp_path, monkeypatch, event_loop_qt):
    from triage_gui.engine.prompt import default_profile
    from triage_gui.gui.settings import AppSettings

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config6"))
    path = AppSettings().default_prompt_path
    path.parent.mkdir(parents=True, exist_ok=True)
    default_profile().save(path)  # a prompt from before versions were kept in the file
    before = path.read_bytes()
    win = fake_window(qtbot)
    try:
        win.session.paste(rows(12))
        qtbot.waitUntil(lambda: win.session.run_status.state == "done" and not win.session.busy, timeout=10_000)
        assert win.results.versions.rowCount() == 1
    finally:
        close_fake(win)
    assert path.read_bytes() == before


def test_undoing_a_checked_ticket_takes_its_verdict_back(qtbot, window):
    window.session.paste(rows(40))
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)
    window.trigger("check")
    checks = window.session.checks
    first, second = checks.queue[0], checks.queue[1]
    window.teaching.accept([first])  # Enter: right
    labels = window.session.table.labels
    wrong = next(label for label in labels if label != window.session.table.label(second))
    window.teaching.teach([second], wrong)  # 1-9: wrong, this is the label
    assert (checks.status.checked, checks.status.correct) == (2, 1)
    window.trigger("undo")  # the correction
    assert (checks.status.checked, checks.status.correct) == (1, 1)
    assert checks.queue[0] == second and "1 check" in window.check_status.text()
    window.trigger("undo")  # the accept
    assert checks.status.checked == 0 and checks.queue[:2] == [first, second]
    assert window.check_status.text() == "Accuracy: not estimated"
    window.trigger("redo")
    window.trigger("redo")
    assert (checks.status.checked, checks.status.correct) == (2, 1)
    assert first not in checks.queue and second not in checks.queue


def test_renaming_a_label_renames_it_in_the_examples(qtbot, window):
    editor = window.editor
    old = editor.labels.item(0, 0).text()
    using = [r for r in range(editor.examples.rowCount()) if editor.examples.item(r, 1).text() == old]
    assert using
    editor.labels.item(0, 0).setText("payments")
    assert all(editor.examples.item(r, 1).text() == "payments" for r in using)
    editor.profile().validate()  # Save is not refused for an example's old label
    editor.labels.item(1, 0).setText("payments")  # a duplicate name: the examples of label 2 stay
    assert any(editor.examples.item(r, 1).text() != "payments" for r in range(editor.examples.rowCount()))


def test_opening_another_prompt_file_leaves_it_as_it_is(qtbot, window, tmp_path):
    other = tmp_path / "other.json"
    other.write_text(window.document.saved.to_json().replace("support triage", "support routing"), encoding="utf-8")
    before = other.read_bytes()
    assert window.prompt.open(str(other))
    qtbot.waitUntil(lambda: not window.session.busy and not window.document.busy, timeout=10_000)
    assert window.document.path == other and other.read_bytes() == before
    window.session.paste(rows(5))
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)
    window.teach([0], window.session.table.labels[0])  # a change: now it is written, taught set and all
    qtbot.waitUntil(lambda: other.read_bytes() != before and not window.document.busy, timeout=10_000)
    assert '"taught"' in other.read_text(encoding="utf-8")


def test_the_stage_note_counts_the_language_models_labels_only_when_they_are_used():
    """Mid-run, "1,745 of these labels are the classifier's first pass; the language model has read 255" is
    said while the language model's reading is used for labels; while it is not (no evidence yet), every label
    is the first pass's and the note would read as 255 labels of the model's own, so it is not said."""
    from types import SimpleNamespace

    from triage_gui.gui.results.summary import stage_note

    def table(refined: bool) -> SimpleNamespace:
        return SimpleNamespace(
            count_scored=lambda: 255, count_scorable=lambda: 2000, count_current=lambda: 2000, refined=refined
        )

    assert stage_note(table(True)) == (
        "1,745 of these labels are the classifier's first pass; the language model has read 255."
    )
    assert stage_note(table(False)) == ""


def test_the_summary_says_no_time_per_ticket_while_the_prompt_is_built(qtbot, tmp_path, monkeypatch, event_loop_qt):
    """W11: a restart with the prompt and 300 tickets named showed "0 of 300 tickets labelled. Fast path (queue):
    median nan ms/ticket (p90 nan)." while the model loaded: every row counted as read by a prompt version not
    built yet (both "none"), each with no time."""
    win, fake = sample_while_building(qtbot, tmp_path, monkeypatch)
    try:
        win.summary.dirty = True
        win.summary.refresh()
        said = win.results.stats.text()
        assert "0</b> of 60 tickets labelled." in said and "nan" not in said and "Fast path" not in said, said
        assert len(win.session.table.latencies()) == 0
    finally:
        fake.build_gate.set()
        close_fake(win)
