"""The window on a prompt file another window shares (fake session): the lead is asked before either
prompt is lost, the other window's teaching is taken in, a file that cannot be read is kept."""

from __future__ import annotations

import json

from triage_gui.engine.prompt import PromptProfile
from triage_gui.gui.actions import prompt_actions


def settle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.session.busy and not window.document.busy, timeout=10_000)


def other_window_saves(path, instruction: str, taught: list[tuple[str, str]]) -> None:
    """Another window (another process) saving into the same file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["instruction"] = instruction
    data["taught"] = [*data.get("taught", []), *({"text": t, "label": label} for t, label in taught)]
    path.write_text(json.dumps(data), encoding="utf-8")


def test_saving_over_the_other_windows_prompt_asks_and_keeps_both_taught_sets(qtbot, window, monkeypatch):
    path = window.document.path
    window.trigger("save")
    label = window.session.table.labels[0] if window.session.table.labels else window.document.saved.label_names[0]
    other_window_saves(path, "The other window's instruction.", [("taught over there", label)])
    window.editor.instruction.setPlainText("This window's instruction.")
    asked = []
    monkeypatch.setattr(prompt_actions, "ask_conflict", lambda parent, exc: asked.append(exc) or None)
    assert not window.prompt.save()  # cancelled: nothing written
    assert asked and "changed outside this window" in str(asked[0])
    assert json.loads(path.read_text())["instruction"] == "The other window's instruction."
    monkeypatch.setattr(prompt_actions, "ask_conflict", lambda parent, exc: "mine")
    assert window.prompt.save()
    saved = PromptProfile.load(path)
    assert saved.instruction == "This window's instruction." and [e.text for e in saved.taught] == ["taught over there"]
    settle(qtbot, window)
    assert dict(window.session.teaching.items()) == {"taught over there": label}  # taken in here too


def test_loading_the_other_windows_prompt_drops_only_the_edits(qtbot, window, monkeypatch):
    path = window.document.path
    window.trigger("save")
    other_window_saves(path, "The other window's instruction.", [])
    window.editor.instruction.setPlainText("This window's instruction.")
    monkeypatch.setattr(prompt_actions, "ask_conflict", lambda parent, exc: "theirs")
    assert window.prompt.save()
    assert window.editor.instruction.toPlainText() == "The other window's instruction." and not window.document.dirty


def test_a_prompt_file_that_cannot_be_read_is_kept_and_named(qtbot, tmp_path, monkeypatch, event_loop_qt):
    from window_fakes import close_fake, fake_window

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    broken = tmp_path / "config" / "prompt.json"  # the window's own prompt file
    broken.parent.mkdir(parents=True)
    text = PromptProfile.load(_default()).to_json().replace('"schema_version": 2', '"schema_version": 9')
    broken.write_text(text, encoding="utf-8")
    win = fake_window(qtbot)
    try:
        assert "kept as it is" in win.statusBar().currentMessage()
        win.trigger("save")
        backups = [p for p in broken.parent.iterdir() if ".unreadable-" in p.name]
        assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == text
        assert backups[0].name in win.statusBar().currentMessage()
        assert PromptProfile.load(broken).instruction  # a readable prompt now, the old one beside it
    finally:
        close_fake(win)


def _default():
    from triage_gui.paths import resources_dir

    return resources_dir() / "default_prompt.json"
