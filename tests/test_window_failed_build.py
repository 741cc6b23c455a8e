"""What the window says when the model cannot build the saved prompt (W20), on the fake session (its engine fails
to build an instruction starting "FAIL"): the prompt is in the file, only not in use, and at a start on such a
file no prompt is in use at all."""

from __future__ import annotations

import json
from dataclasses import replace

from fake_engine import FakeEngine
from test_session_fields import PRIORITY, QUEUE
from test_window_fields import open_two_fields

from triage_gui.engine.prompt import Example, Field, Label, PromptProfile
from triage_gui.gui.main_window import MainWindow
from triage_gui.session.session import Session


def test_a_failed_save_says_the_prompt_is_saved_but_not_in_use(qtbot, encoded_window, tmp_path):
    """The editor said "Not saved:" over the model's refusal while the line under it said "Saved: two.json" and
    the file held the new instruction: a lead went looking for a lost edit."""
    window = encoded_window
    path = open_two_fields(qtbot, window, tmp_path)
    window.editor.show_field(1)
    window.editor.instruction.setPlainText("FAIL: far too long")
    window.trigger("save")
    qtbot.waitUntil(lambda: window.session.prompt_status.state == "failed", timeout=20_000)
    said = "Saved, not in use:\n• The priority field cannot be built. The prompt uses 9000"  # which field, first
    assert window.editor.errors.text().startswith(said)
    assert json.loads(path.read_text())["fields"][1]["instruction"] == "FAIL: far too long"
    assert window.prompt_status.text() == "Prompt not updated: the previous prompt stays in use"


def test_a_start_on_a_prompt_the_model_cannot_build_says_no_prompt_is_in_use(
    qtbot, tmp_path, monkeypatch, event_loop_qt
):
    """Quit after a failed Save, started again: nothing was labelled and the status bar said "the previous
    prompt stays in use", of a prompt there was none of."""
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "config").mkdir()
    failing = PromptProfile.of_fields([QUEUE, replace(PRIORITY, instruction="FAIL: far too long")], "t")
    failing.save(tmp_path / "config" / "prompt.json")
    fake = FakeEngine()
    window = MainWindow(session=Session(fake.as_engine(), device="cpu", batch_size=8, encoder="none"))
    qtbot.addWidget(window, before_close_func=MainWindow.close_now)
    window.show()
    try:
        qtbot.waitUntil(lambda: window.session.prompt_status.state == "failed", timeout=20_000)
        assert window.session.prompt_in_use is None
        assert window.prompt_status.text() == "No prompt in use: fix it and Save"
        assert window.editor.errors.text().startswith("Saved, not in use:")
    finally:
        window.close_now()


def test_a_restored_draft_with_a_field_added_first_counts_it_none_taught_before_the_model_is_ready(
    qtbot, tmp_path, monkeypatch, event_loop_qt
):
    """Quit while a field added before the others was left out, started again: the draft came back with the
    sentiment first, and until the model was ready (for good where it never loaded) the line under the editor
    said "Taught tickets (sentiment): 2", the queue's two: the editor had no saved field names to match by."""
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "config").mkdir()
    saved = PromptProfile.of_fields([QUEUE, PRIORITY], "t")
    saved = replace(saved, taught=[Example("refund me", "billing"), Example("it crashes", "technical")])
    saved.save(tmp_path / "config" / "prompt.json")
    sentiment = Field("sentiment", "How does the customer feel?", [Label("calm", "fine"), Label("angry", "upset")])
    replace(PromptProfile.of_fields([sentiment, QUEUE, PRIORITY], "t"), taught=saved.taught).save(
        tmp_path / "config" / "prompt-draft.json"
    )
    fake = FakeEngine()
    fake.build_gate.clear()  # the model not ready yet
    window = MainWindow(session=Session(fake.as_engine(), device="cpu", batch_size=8, encoder="none"))
    qtbot.addWidget(window, before_close_func=MainWindow.close_now)
    window.show()
    try:
        line = window.editor.taught_count
        assert [f.name for f in window.editor.profile().fields] == ["sentiment", "queue", "priority"]
        qtbot.waitUntil(lambda: line.taught == 2, timeout=10_000)  # the queue's, as the session says them
        assert "Taught tickets (sentiment):</b> none yet" in line.text()
        window.editor.show_field(1)
        assert "Taught tickets (queue):</b> 2 " in line.text()
    finally:
        fake.build_gate.set()
        window.close_now()


def test_a_save_back_to_the_prompt_in_use_after_a_failed_build_says_it_is_ready(qtbot, encoded_window, tmp_path):
    """After a failed Save, the instruction put back as it was and saved: nothing to re-label, and the status bar
    said "Prompt not updated: the previous prompt stays in use" on, of the prompt now saved and in use."""
    window = encoded_window
    open_two_fields(qtbot, window, tmp_path)
    window.editor.show_field(1)
    before = window.editor.instruction.toPlainText()
    window.editor.instruction.setPlainText("FAIL: far too long")
    window.trigger("save")
    qtbot.waitUntil(lambda: window.session.prompt_status.state == "failed", timeout=20_000)
    window.editor.instruction.setPlainText(before)
    window.trigger("save")
    assert window.session.prompt_status.state == "ready"
    assert window.prompt_status.text().startswith("Prompt ready (queue v1, priority v")
    assert not window.editor.errors.isVisible()
