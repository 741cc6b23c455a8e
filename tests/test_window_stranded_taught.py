"""Walkthrough W9, on the fake session with the fake sentence encoder: the lead taught 8 tickets, then took
*Edit › Suggest labels…* (labels of their own, none of the taught ones) and saved. The status bar said
"Learned from 8 taught tickets" and the selected ticket "learned from the 8 tickets you taught", though
the classifier leaves out a taught ticket whose label the prompt no longer has: it learned from none."""

from __future__ import annotations

from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.engine.table import NewRow

N = 24


def labelled(qtbot, window) -> None:
    labels = window.session.profile.label_names
    window.session.paste([NewRow({"text": f"ticket {i} {labels[i % 3]}"}, f"ticket {i}") for i in range(N)], "text")
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)
    qtbot.waitUntil(lambda: window.session.teaching.status.state == "ready", timeout=10_000)


def settled(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.session.busy and window.session.teaching.status.state == "ready", timeout=15_000)


def test_taught_tickets_whose_labels_the_prompt_lost_are_not_said_to_be_learned_from(qtbot, encoded_window):
    window, session = encoded_window, encoded_window.session
    labelled(qtbot, window)
    window.teach([0, 1], session.table.labels[0])
    window.teach([2], session.table.labels[1])
    settled(qtbot, window)
    assert window.learn_status.text() == "Learned from 3 taught tickets"
    assert window.detail.taught_count == 3

    suggested = [Label(name, f"tickets about {name}") for name in ("Card / lost", "Cash / charged", "Top-up")]
    window.editor.replace_undoably(PromptProfile(session.profile.instruction, suggested))
    assert window.prompt.save()
    qtbot.waitUntil(lambda: session.table.labels == ["Card / lost", "Cash / charged", "Top-up"], timeout=10_000)
    settled(qtbot, window)
    assert len(session.taught_items()) == 3  # kept with the prompt, not lost
    assert "3" in window.editor.taught_count.text()
    assert window.learn_status.text() == "Learned from the label descriptions"  # not "from 3 taught tickets"
    assert window.detail.taught_count == 0  # the pane: not "learned from the 3 tickets you taught"
    assert "3 taught tickets have a label this prompt does not have" in window.learn_status.toolTip()

    window.teach([3], "Top-up")  # one of this prompt's: learned from
    settled(qtbot, window)
    assert window.learn_status.text() == "Learned from 1 taught ticket"
    assert window.detail.taught_count == 1
