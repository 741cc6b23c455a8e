"""What the window says when the model cannot build the saved prompt (W20), on the fake session (its engine fails
to build an instruction starting "FAIL"): the prompt is in the file, only not in use, and at a start on such a
file no prompt is in use at all."""

from __future__ import annotations

import json
from dataclasses import replace

from fake_engine import FakeEngine
from test_session_fields import PRIORITY, QUEUE
from test_window_fields import open_two_fields

from triage_gui.engine.prompt import PromptProfile
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
    assert window.editor.errors.text().startswith("Saved, not in use:\n• The prompt uses 9000")
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
