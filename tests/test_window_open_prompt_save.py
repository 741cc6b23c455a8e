"""Walkthrough W9, on the fake session: an unsaved edit in the prompt editor, then File › Open prompt… of
another prompt asked "Open other.json and discard them?" with Discard and Cancel only, where New prompt and
Quit offer Save: the lead who wanted the edit kept had to cancel, save and open again."""

from __future__ import annotations

from triage_gui.engine.prompt import PromptProfile


def test_open_prompt_over_unsaved_edits_offers_save_first(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    buttons = QMessageBox.StandardButton
    current = window.document.path
    other = tmp_path / "other.json"
    other.write_text(window.document.saved.to_json().replace("support triage", "support routing"), encoding="utf-8")
    window.editor.instruction.setPlainText("An unsaved instruction.")
    asked: list[tuple] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or buttons.Save)
    assert window.prompt.open(str(other))
    assert asked and asked[0][3] & buttons.Save and asked[0][3] & buttons.Discard and asked[0][3] & buttons.Cancel
    assert "other.json" in asked[0][2]
    qtbot.waitUntil(lambda: not window.session.busy and not window.document.busy, timeout=10_000)
    assert PromptProfile.load(current).instruction == "An unsaved instruction."  # saved, not lost
    assert window.document.path == other and "support routing" in window.editor.instruction.toPlainText()
