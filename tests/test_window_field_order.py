"""Reordering a prompt's fields in the window (issue 34): a field moved in the prompt editor is one undo step,
and after Save the new first field is the session's main one (its taught set, the language model's field)
while every field keeps its own taught tickets and versions, in the file and in the session; the labels per
field are those a window that opens the saved file from scratch gives. On the fake session, in seconds."""

from __future__ import annotations

import pytest
from fake_engine import FakeEngine
from PySide6.QtCore import Qt
from test_session_learning import topical
from test_window_fields import N, open_two_fields, press

from triage_gui.engine.prompt import PromptProfile
from triage_gui.engine.table import NewRow, decide
from triage_gui.gui.main_window import MainWindow
from triage_gui.gui.tickets.ticket_model import Col
from triage_gui.session.field_order import field_order
from triage_gui.session.session import Session


@pytest.fixture
def window(encoded_window):
    return encoded_window


def labels_by_field(session: Session) -> dict[str, list[str | None]]:
    out = {}
    for i, name in enumerate(session.field_names):
        table = session.field_table(i)
        assert table is not None
        out[name] = [decide(table, r).label for r in range(N)]
    return out


def taught_by_field(session: Session) -> dict[str, list[tuple[str, str]]]:
    return dict(zip(session.field_names, [session.taught_items(), *session.field_taught()], strict=True))


def settled(qtbot, window) -> None:
    session = window.session
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    qtbot.waitUntil(lambda: all(session.field_table(i) is not None for i in range(2)), timeout=10_000)
    qtbot.waitUntil(lambda: len(session.field_table(1)) == N and session.table.count_scored() == N, timeout=10_000)


def test_a_field_moved_first_is_the_main_one_after_save_and_keeps_its_taught_tickets(qtbot, window, tmp_path):
    path = open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    press(qtbot, window, 8, Col.LABEL, Qt.Key.Key_2)  # a queue ticket taught: the queue is the session's own
    assert window.statusBar().currentMessage() == "Taught 1 ticket 'technical' (queue): labels updating."
    taught = taught_by_field(session)
    assert taught["queue"] == [(session.table.texts[8], "technical")]
    assert taught["priority"] == [("refund problem number 0", "high")]
    queue_versions = [r.number for r in window.document.history]
    assert queue_versions

    editor.field_bar.combo.setCurrentIndex(1)
    assert not editor.field_bar.move_button.isHidden() and editor.field_bar.left_action.isEnabled()
    window._show_field_taught()  # the line under the editor counts each field's by its name
    assert "Taught tickets (priority):</b> 1 " in editor.taught_count.text()
    editor.field_bar.left_action.trigger()  # the priority, first
    assert "Taught tickets (priority):</b> 1 " in editor.taught_count.text()  # its own, not the queue's
    assert [f.name for f in editor.profile().fields] == ["priority", "queue"]
    assert editor.field_bar.combo.currentText() == "priority" and editor.label_names() == ["low", "high"]
    window.menu_actions.refresh()
    assert not window.menu_actions["field_left"].isEnabled() and window.menu_actions["field_right"].isEnabled()
    assert window.document.dirty
    # Edit › Undo names the field step (it said "Undo prompt edit" for an added, renamed, moved or removed field)
    assert editor.edit_steps() == ("move field 'priority'", "")
    editor.undo_edit()  # one step puts it back, the field moved still shown
    assert editor.edit_steps()[1] == "move field 'priority'"
    assert [f.name for f in editor.profile().fields] == ["queue", "priority"]
    assert editor.field_bar.combo.currentText() == "priority"
    editor.redo_edit()
    assert [f.name for f in editor.profile().fields] == ["priority", "queue"]
    assert editor.field_bar.combo.currentText() == "priority"
    editor.undo_edit()
    editor.field_bar.combo.setCurrentIndex(0)
    assert not window.document.dirty
    window.trigger("field_right")  # the menu's way: the shown field (the queue, shown again) one place right
    assert [f.name for f in editor.profile().fields] == ["priority", "queue"]

    assert window.prompt.save()
    settled(qtbot, window)
    assert session.field_names == ["priority", "queue"]
    assert window.model.columns()[1:5] == ["priority", "From (priority)", "queue", "From (queue)"]
    assert taught_by_field(session) == taught  # each field's taught tickets went with it
    assert session.labels == ["low", "high"]  # the language model's field is the priority now
    saved = PromptProfile.load(path)
    assert [f.name for f in saved.fields] == ["priority", "queue"]
    assert {f.name: [(e.text, e.label) for e in f.taught] for f in saved.fields} == taught
    assert [r.number for r in saved.more_fields[0].history] == queue_versions  # the queue's versions with it
    assert saved.history and saved.history[-1].prompt["labels"][0]["name"] == "low"  # the priority's, new
    shown = labels_by_field(session)

    other = MainWindow(session=Session(FakeEngine().as_engine(), device="cpu", batch_size=8, encoder="fake"))
    qtbot.addWidget(other, before_close_func=MainWindow.close_now)
    try:
        qtbot.waitUntil(lambda: other.session.prompt_status.state == "ready", timeout=10_000)
        assert other.prompt.open(str(path), ask=False)  # the saved file, opened from scratch
        other.session.paste([NewRow({"text": r.text}, r.text) for r in topical(N)])
        settled(qtbot, other)
        assert other.session.field_names == ["priority", "queue"]
        assert taught_by_field(other.session) == taught
        assert labels_by_field(other.session) == shown
    finally:
        other.close_now()


def test_fields_are_matched_by_name_and_renamed_ones_in_place():
    from triage_gui.engine.prompt import Field

    def fs(*names: str) -> list[Field]:
        return [Field(n, "x", []) for n in names]

    assert field_order(fs("b", "a"), fs("a", "b")) == [1, 0]
    assert field_order(fs("c", "a"), fs("a", "b")) == [1, 0]  # b renamed c and moved first
    assert field_order(fs("a", "c"), fs("a", "b", "d")) == [0, None]  # b and d removed, c added
    assert field_order(fs("c", "field 1"), fs("")) == [None, 0]  # a one-field prompt's field, moved


def test_the_document_keeps_each_fields_taught_tickets_checks_and_versions_where_it_moved(tmp_path):
    """Qt-free: a Save of the fields in another order (and one renamed) writes each field's kept lists with
    it, merged against the file as it is, and says so (``fields_moved``); an unmoved Save says nothing."""
    from dataclasses import replace

    from test_session_fields import PRIORITY, QUEUE

    from triage_gui.engine.prompt import CheckRecord, Example
    from triage_gui.session.prompt_document import PromptDocument

    def check(text: str, label: str) -> CheckRecord:
        return CheckRecord(text, label, label, 1, 0, 1_800_000_000.0)

    queue = replace(QUEUE, taught=[Example("card lost", "account")], checks=[check("refund late", "billing")])
    priority = replace(PRIORITY, checks=[check("site down", "high")])
    path = tmp_path / "two.json"
    PromptProfile.of_fields([queue, priority], "Two").save(path)
    doc = PromptDocument(path, tmp_path / "draft.json")
    saved, _, _ = doc.start()
    doc.applied(0, saved)  # the queue's first version, in use
    moved: list[bool] = []
    doc.fields_moved.connect(lambda order: moved.append(True))
    editor = PromptProfile.of_fields([replace(PRIORITY, name="urgency", taught=[]), replace(QUEUE, taught=[])], "Two")
    doc.save(editor, [("card lost", "account"), ("new one", "billing")])  # the session's: the queue's
    written = PromptProfile.load(path)
    assert moved == [True] and [f.name for f in written.fields] == ["urgency", "queue"]
    urgency, kept = written.fields
    assert [(e.text, e.label) for e in urgency.taught] == [("refund problem number 0", "high")]
    assert [(e.text, e.label) for e in kept.taught] == [("card lost", "account"), ("new one", "billing")]
    assert [c.text for c in urgency.checks] == ["site down"] and [c.text for c in kept.checks] == ["refund late"]
    assert [r.prompt["labels"][0]["name"] for r in kept.history] == ["billing"]  # the queue's version with it
    assert [r.prompt["labels"][0]["name"] for r in urgency.history] == ["low"]  # the new first field's, new
    assert doc.saved.taught == urgency.taught and doc.checks == urgency.checks  # what the session takes
    doc.save(PromptProfile.of_fields([replace(f, taught=[]) for f in written.fields], "Two, renamed"), [])
    assert moved == [True]
    doc.close()


def test_a_field_moved_first_keeps_its_sample_still_to_check_and_the_other_field_its_own(qtbot, window, tmp_path):
    """Walkthrough W4: a priority sample half checked, the priority moved first and saved: the table's *To check*
    went empty and the status bar said "Sample checked" with 16 of 20 unanswered (the first field's sample
    stayed with the first place). Each field's rows still to check now go with the field."""
    open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    settled(qtbot, window)
    queue_rows = session.draw_checks(0)[:5]
    session.checks.queue = list(queue_rows)  # the queue's sample: five still to check
    priority_rows = session.draw_checks(1)
    assert len(priority_rows) >= 6
    for row in priority_rows[:2]:  # two answered ("right"), the rest still to check
        session.accept_field(1, [row])
    left = session.field_check_status(1).to_check
    assert len(left) == len(priority_rows) - 2 and session.field_check_status(1).checked == 2
    editor.field_bar.combo.setCurrentIndex(1)
    editor.field_bar.left_action.trigger()  # the priority, first
    assert window.prompt.save()
    settled(qtbot, window)
    assert session.field_names == ["priority", "queue"]
    status = session.check_status  # the first field's: the priority's now
    assert status.to_check == left and status.checked == 2
    assert session.field_check_status(1).to_check == tuple(queue_rows)  # the queue's, second now
    assert "Sample checked" not in window.statusBar().currentMessage()


def test_a_move_and_save_keeps_the_teaching_undo_history_each_step_with_its_field(qtbot, window, tmp_path):
    """Walkthrough W4: moving a field and saving emptied Edit › Undo, so a ticket taught a minute before
    could no longer be undone. Each step now goes with its field: undone after the move, it changes the
    field it was made on, now in its new place."""
    teach_one_each(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    four, eight = session.table.texts[4], session.table.texts[8]
    assert session.history.undo_text == "teach 1 ticket 'technical' (queue)"
    editor.field_bar.combo.setCurrentIndex(1)
    editor.field_bar.left_action.trigger()  # the priority, first
    assert window.prompt.save()
    settled(qtbot, window)
    assert session.field_names == ["priority", "queue"]
    assert session.history.undo_text == "teach 1 ticket 'technical' (queue)"  # not emptied by the move
    window.trigger("undo")
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert eight not in dict(session.fields.items(1))  # the queue's ticket left the queue, second now
    assert dict(session.taught_items())[four] == "low"  # the priority's (first now) untouched
    assert session.history.undo_text == "teach 1 ticket 'low' (priority)"
    window.trigger("undo")
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert four not in dict(session.taught_items())
    window.trigger("redo")
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert dict(session.taught_items())[four] == "low" and eight not in dict(session.fields.items(1))


def test_removing_the_first_field_and_saving_keeps_the_field_lefts_undo_steps(qtbot, window, tmp_path):
    """The queue removed and saved: the priority left alone (unnamed now, the classic prompt) lost every undo
    step, so a ticket taught on it a minute before could no longer be undone; the queue's steps go with it."""
    teach_one_each(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    four = session.table.texts[4]
    before = dict(session.field_taught()[0])  # the priority's, the file's included
    editor.field_bar.combo.setCurrentIndex(0)
    editor.remove_field()  # the queue: the priority is the prompt now
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    assert not session.field_names  # one field now
    assert dict(session.taught_items()) == before
    assert session.history.undo_text.startswith("teach 1 ticket 'low'")  # the queue's step went with the queue
    window.trigger("undo")
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert dict(session.taught_items()) == {k: v for k, v in before.items() if k != four}
    assert not session.history.undo_text
    window.trigger("redo")
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert dict(session.taught_items()) == before


def teach_one_each(qtbot, window, tmp_path) -> None:
    """Two fields open and labelled; row 4 taught the priority "low", then row 8 the queue "technical"."""
    from test_window_fields import FieldCol

    open_two_fields(qtbot, window, tmp_path)
    settled(qtbot, window)
    press(qtbot, window, 4, FieldCol(1, "priority"), Qt.Key.Key_1)
    press(qtbot, window, 8, Col.LABEL, Qt.Key.Key_2)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)


def test_a_new_field_moved_before_a_saved_one_says_its_own_taught_tickets_and_estimate(qtbot, window, tmp_path):
    """W11: *Add field…* "mood", then *Move › left* (before the priority, unsaved): the line under the editor
    said "Taught tickets (mood): 5 … Accuracy of priority 75% …", the priority's count and checks, for a field
    with no label yet; it was matched to a saved field by its place. A field renamed in place keeps its own."""
    open_two_fields(qtbot, window, tmp_path)
    editor = window.editor
    window._show_field_taught()
    editor.field_bar.combo.setCurrentIndex(1)
    assert "Taught tickets (priority):</b> 1 " in editor.taught_count.text()
    editor.add_field("mood")
    assert "Taught tickets (mood):</b> none yet" in editor.taught_count.text()
    assert editor.edit_steps()[0] == "add field 'mood'"
    editor.field_bar.left_action.trigger()  # before the priority
    assert [f.name for f in editor.profile().fields] == ["queue", "mood", "priority"]
    shown = editor.taught_count.text()
    assert "Taught tickets (mood):</b> none yet" in shown and "priority" not in shown, shown
    assert "Accuracy of mood not estimated yet" in shown
    editor.field_bar.combo.setCurrentIndex(2)
    assert "Taught tickets (priority):</b> 1 " in editor.taught_count.text()  # its own, at its new place
    editor.undo_edit()
    editor.undo_edit()  # the two fields as saved
    editor.field_bar.combo.setCurrentIndex(1)
    editor.rename_field("urgency")  # renamed in place: still the priority's
    assert "Taught tickets (urgency):</b> 1 " in editor.taught_count.text()
    assert editor.edit_steps()[0] == "rename 'priority' to 'urgency'"
    editor.remove_field()
    assert editor.edit_steps()[0] == "remove field 'urgency'"
