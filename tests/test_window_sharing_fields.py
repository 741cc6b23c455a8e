"""The window on a two-field prompt file another window shares (fake session, W18): the other window moved the
priority first and saved; this window, with no unsaved edits, takes the file's prompt with each field's own taught
tickets. Its next teach put its queue ticket into the priority (the first field by place) and, taking the moved
prompt, kept the queue's taught set as the priority's, so its next write forgot the priority's in the file."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from test_window_fields import open_two_fields, press

from triage_gui.engine.prompt import PromptProfile
from triage_gui.gui.tickets.ticket_model import Col


@pytest.fixture
def window(encoded_window):
    return encoded_window


def by_field(path) -> dict[str, dict[str, str]]:
    return {f.name: {e.text: e.label for e in f.taught} for f in PromptProfile.load(path).fields}


def test_the_other_window_moving_the_priority_first_keeps_each_fields_taught_tickets(qtbot, window, tmp_path):
    path = open_two_fields(qtbot, window, tmp_path)
    session = window.session
    press(qtbot, window, 2, Col.LABEL, Qt.Key.Key_1)  # the queue's 'billing'
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    before = by_field(path)
    other = PromptProfile.load(path)  # the other window: the priority moved first, saved
    fields = {f.name: f for f in other.fields}
    PromptProfile.of_fields([fields["priority"], fields["queue"]], other.name).save(path)
    press(qtbot, window, 4, Col.LABEL, Qt.Key.Key_2)  # this window: the queue's 'technical' (first here still)
    qtbot.waitUntil(lambda: session.field_names == ["priority", "queue"], timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    texts = session.table.texts
    kept = by_field(path)
    assert kept["queue"] == {**before["queue"], texts[4]: "technical"}  # the queue's ticket in the queue
    assert kept["priority"] == before["priority"]  # the priority's kept
    assert dict(session.taught_items()) == before["priority"]  # the first field here is the priority now
    assert dict(session.fields.items(1)) == kept["queue"]
    press(qtbot, window, 6, Col.LABEL, Qt.Key.Key_2)  # the first column is the priority's: 'high'
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    window.document.flush()
    assert by_field(path) == {"priority": {**before["priority"], texts[6]: "high"}, "queue": kept["queue"]}


def test_a_field_replaced_in_the_other_window_gets_none_of_the_removed_fields_tickets(qtbot, window, tmp_path):
    """Another window removed the priority, added a sentiment and taught a queue ticket; this window, with no
    unsaved edits, taught a queue ticket: its write found the other's ticket and took it in before the sentiment,
    so the priority's taught set, still this session's second field, was written as the sentiment's."""
    from triage_gui.engine.prompt import Example, Field, Label

    path = open_two_fields(qtbot, window, tmp_path)
    session = window.session
    other = PromptProfile.load(path)
    queue = replace(other.fields[0], taught=[Example("refund problem number 99", "billing")])
    sentiment = Field("sentiment", "How does the customer feel?", [Label("calm", "fine"), Label("angry", "upset")])
    PromptProfile.of_fields([queue, sentiment], other.name).save(path)
    press(qtbot, window, 4, Col.LABEL, Qt.Key.Key_2)
    qtbot.waitUntil(lambda: session.field_names == ["queue", "sentiment"], timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    window.document.flush()
    kept = by_field(path)
    assert kept["sentiment"] == {} and kept["queue"]["refund problem number 99"] == "billing"


def test_a_save_without_edits_over_the_other_windows_move_keeps_each_fields_tickets(qtbot, window, tmp_path):
    """The other window moved the priority first and taught a queue ticket; this window, with no unsaved edits,
    pressed Save: the file's prompt came back (this one unchanged) and the other's queue ticket was taken into the
    first field here, the priority now, and written there ('billing' in the priority)."""
    from triage_gui.engine.prompt import Example

    path = open_two_fields(qtbot, window, tmp_path)
    session = window.session
    other = PromptProfile.load(path)
    fields = {f.name: f for f in other.fields}
    queue = replace(fields["queue"], taught=[Example("refund problem number 99", "billing")])
    PromptProfile.of_fields([fields["priority"], queue], other.name).save(path)
    assert window.prompt.save()
    qtbot.waitUntil(lambda: session.field_names == ["priority", "queue"], timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    window.document.flush()
    kept = by_field(path)
    assert set(kept["priority"].values()) <= {"low", "high"} and kept["queue"]["refund problem number 99"] == "billing"
    assert set(dict(session.taught_items()).values()) <= {"low", "high"}
