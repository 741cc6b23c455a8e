"""A prompt with several fields, events in hostile orders (W18's round six): a ticket taught in a further
field while a Save that renamed it is built, and the build fails. On the fake engine."""

from __future__ import annotations

from dataclasses import replace

from test_session import idle, ready, run, until
from test_session_fields import PRIORITY, QUEUE, two_fields
from test_session_learning import topical

from triage_gui.engine.prompt import PromptProfile


def test_a_ticket_taught_in_a_renamed_field_while_the_build_fails_is_kept():
    """The lead renamed the priority 'urgency' (and changed its instruction, so the model must build it), saved,
    and taught row 3 'low' in its column while it was built; the build failed. The fields went back to the prompt
    in use, matched by name, so the ticket taught under the new name was dropped: untaught in the column and, at
    the next teach, in the file. A field of another name at the same place (a rename) keeps it now."""

    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(20))
        await idle(session)
        urgency = replace(PRIORITY, name="urgency", instruction="FAIL: far too long")
        fake.build_gate.clear()
        assert session.set_prompt(PromptProfile.of_fields([QUEUE, urgency], "Queue and priority"))
        session.teach_field(1, [3], "low")
        fake.build_gate.set()
        await until(lambda: session.prompt_status.state == "failed")
        await idle(session)
        second = session.fields.table_of(1)
        assert second is not None
        text = second.texts[3].strip()
        assert session.fields.taught_of(1).get(text) == "low"
        assert dict(session.field_taught()[0]).get(text) == "low"  # what the window writes to the file next

    body()


def test_a_ticket_taught_in_the_priority_after_a_failed_save_that_added_a_field_is_written(
    qtbot, encoded_window, tmp_path
):
    """The lead added a 'sentiment' field the model could not build and saved: the session stayed on the queue and
    the priority (the prompt in use), the file had three fields. A ticket then taught in the priority was never
    written (the file's fields and the session's differed in number), and was gone at the next start."""
    from test_window_fields import open_two_fields

    from triage_gui.engine.prompt import Field, Label

    window = encoded_window
    path = open_two_fields(qtbot, window, tmp_path)
    session = window.session
    sentiment = Field("sentiment", "FAIL: far too long", [Label("calm", "no hurry"), Label("angry", "upset")])
    window.editor.set_profile(PromptProfile.of_fields([QUEUE, PRIORITY, sentiment], "Queue and priority"))
    assert window.prompt.save()
    qtbot.waitUntil(lambda: session.prompt_status.state == "failed", timeout=10_000)
    assert session.field_names == ["queue", "priority"]
    text = session.table.texts[4].strip()
    session.teach_field(1, [4], "low")
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    window.document.flush()
    kept = {f.name: {e.text: e.label for e in f.taught} for f in PromptProfile.load(path).more_fields}
    assert kept["priority"].get(text) == "low" and kept["sentiment"] == {}


def test_a_failed_build_after_moving_the_priority_first_keeps_each_field_its_own_tickets():
    """After a Save that moved the priority first and failed to build it, the session is on the new order (as the
    file and, in the window, each field's taught set are), the priority's part the one in use meanwhile
    (:func:`field_order.part_in_use`), and a ticket taught in the queue during the build stays taught."""

    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(20))
        await idle(session)
        fake.build_gate.clear()
        failing = replace(PRIORITY, instruction="FAIL: far too long")
        assert session.set_prompt(PromptProfile.of_fields([failing, QUEUE], "Queue and priority"))
        session.teach_field(1, [3], QUEUE.label_names[0])
        text = session.table.texts[3].strip()
        fake.build_gate.set()
        await until(lambda: session.prompt_status.state == "ready" and session.field_names[0] == "priority")
        await idle(session)
        assert session.field_names == ["priority", "queue"]
        assert session.fields.taught_of(1) == {text: QUEUE.label_names[0]}
        assert session.prompt_in_use is not None and session.prompt_in_use.fields[0].instruction == PRIORITY.instruction

    body()


def test_a_queue_ticket_taught_after_a_failed_save_that_moved_the_priority_first_is_written_to_the_queue(
    qtbot, encoded_window, tmp_path
):
    """The lead moved the priority first and gave it an instruction the model could not build, and saved: the file
    had the fields moved, the session went back to the queue first, and its names became ['priority', 'priority'].
    A ticket then taught 'billing' in the first column was written into the priority in the file. The Save's order
    stays now (the priority labelled with its part in use, and the lead told), and each field's tickets go to it."""
    from test_window_fields import open_two_fields

    window = encoded_window
    path = open_two_fields(qtbot, window, tmp_path)
    session, said = window.session, []
    session.prompt_changed.connect(lambda status: said.append(status.message) if status.state == "failed" else None)
    failing = replace(PRIORITY, instruction="FAIL: far too long")
    window.editor.set_profile(PromptProfile.of_fields([failing, QUEUE], "Queue and priority"))
    assert window.prompt.save()
    moved = lambda: session.prompt_status.state == "ready" and session.field_names[0] == "priority"  # noqa: E731
    qtbot.waitUntil(moved, timeout=10_000)
    assert said and "priority labels with its prompt in use" in said[0]
    assert session.field_names == ["priority", "queue"] == [f.name for f in PromptProfile.load(path).fields]
    text, label = session.table.texts[4].strip(), QUEUE.label_names[0]
    session.teach_field(1, [4], label)  # the queue, second now
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    window.document.flush()
    taught = {f.name: {e.text: e.label for e in f.taught} for f in PromptProfile.load(path).fields}
    assert taught["queue"].get(text) == label and text not in taught["priority"]


def test_a_field_removed_and_another_added_in_one_save_starts_empty_and_an_undo_brings_the_first_back(tmp_path):
    """The lead removed the priority and added a sentiment in one Save (the number of fields unchanged): read as
    the priority renamed, the sentiment took its taught tickets ('high', none of its labels). A rename keeps a
    label; the priority's are kept for an undo that puts it back, as for any field a Save removed."""
    import asyncio

    from triage_gui.engine.prompt import Example, Field, Label
    from triage_gui.session.field_order import field_order
    from triage_gui.session.prompt_document import PromptDocument

    sentiment = Field("sentiment", "How does the customer feel?", [Label("calm", "fine"), Label("angry", "upset")])
    assert field_order([QUEUE, sentiment], [QUEUE, PRIORITY]) == [0, None]
    assert field_order([QUEUE, replace(PRIORITY, name="urgency")], [QUEUE, PRIORITY]) == [0, 1]  # a rename
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, replace(PRIORITY, taught=[Example("my card was stolen", "high")])], "t").save(path)

    async def body():
        doc = PromptDocument(path, tmp_path / "draft.json")
        doc.start()
        doc.save(PromptProfile.of_fields([QUEUE, sentiment], "t"), [])
        assert PromptProfile.load(path).more_fields[0].taught == []
        doc.save(PromptProfile.of_fields([QUEUE, PRIORITY], "t"), [])  # the editor's undo, saved
        assert [e.label for e in PromptProfile.load(path).more_fields[0].taught] == ["high"]
        doc.close()

    asyncio.run(body())


def test_a_field_added_before_the_others_that_the_model_cannot_build_is_left_out_and_each_field_keeps_its_tickets(
    qtbot, encoded_window, tmp_path
):
    """The lead added a 'sentiment' field, moved it first and saved; the model could not build it. The file had
    [sentiment, queue, priority] while the session went back to [queue, priority] named ['sentiment', 'priority'],
    and a queue ticket then taught was written into the sentiment. The sentiment is left out of the saved prompt now
    (the editor keeps it, unsaved), and each field's tickets go to it."""
    from test_window_fields import open_two_fields

    from triage_gui.engine.prompt import Field, Label

    window = encoded_window
    path = open_two_fields(qtbot, window, tmp_path)
    session = window.session
    priority_before = dict(session.fields.taught_of(1))
    sentiment = Field("sentiment", "FAIL: far too long", [Label("calm", "no hurry"), Label("angry", "upset")])
    window.editor.set_profile(PromptProfile.of_fields([sentiment, QUEUE, PRIORITY], "Queue and priority"))
    assert window.prompt.save()
    back = lambda: session.prompt_status.state == "ready" and session.field_names == ["queue", "priority"]  # noqa: E731
    qtbot.waitUntil(back, timeout=10_000)
    assert [f.name for f in PromptProfile.load(path).fields] == ["queue", "priority"]
    assert [f.name for f in window.editor.profile().fields] == ["sentiment", "queue", "priority"]
    assert window.document.dirty  # the editor keeps the sentiment for the next Save
    assert session.fields.taught_of(1) == priority_before
    text, label = session.table.texts[4].strip(), QUEUE.label_names[0]
    session.teach_field(0, [4], label)
    session.teach_field(1, [5], "low")
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    window.document.flush()
    taught = {f.name: {e.text: e.label for e in f.taught} for f in PromptProfile.load(path).fields}
    assert taught["queue"].get(text) == label and text not in taught["priority"]
    assert taught["priority"].get(session.table.texts[5].strip()) == "low"
