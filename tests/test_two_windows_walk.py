"""Two windows on one prompt file with several fields, a seeded random walk of structural Saves and teaching in
each field (:mod:`two_windows_walk`), and the short tests its failing seeds were cut down to (W19)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from test_prompt_sharing_fields import PRIORITY, QUEUE
from two_windows_walk import KNOWN, walk

from triage_gui.engine.prompt import Example, Field, Label, PromptProfile
from triage_gui.session.prompt_document import PromptConflict, PromptDocument

SENTIMENT = Field("sentiment", "How does the customer feel?", [Label("calm", "fine"), Label("angry", "upset")])


def taught_by_field(path) -> dict[str, dict[str, str]]:
    return {f.name: {e.text: e.label for e in f.taught} for f in PromptProfile.load(path).fields}


def test_fields_renamed_and_moved_in_one_save_keep_their_own_taught_tickets(tmp_path):
    """Walk seed 285, cut down: the lead renamed the priority 'urgency', moved the queue after it and renamed it
    'team', and saved: no name matched and the first field was taken for renamed in place, so the queue's ticket
    ('billing') was written into the urgency and the priority's ticket was lost. Each is known by its labels now."""
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, replace(PRIORITY, taught=[Example("my card was stolen", "high")])], "t").save(path)

    async def body():
        doc = PromptDocument(path, tmp_path / "draft.json")
        doc.start()
        moved = []
        doc.fields_moved.connect(moved.append)
        edited = [replace(PRIORITY, name="urgency"), replace(QUEUE, name="team")]
        doc.save(PromptProfile.of_fields(edited, "t"), [("refund me", "billing")])
        doc.close()
        assert taught_by_field(path) == {"urgency": {"my card was stolen": "high"}, "team": {"refund me": "billing"}}
        assert moved == [[1, 0]]  # the window's first field's set follows: the urgency's now

    asyncio.run(body())


def test_a_new_first_field_where_the_queue_was_removed_takes_none_of_the_queue_tickets(tmp_path):
    """Walk seeds 121 and 144, cut down: the lead removed the queue and put a sentiment first in one Save (the
    priority where it was), and the sentiment took the queue's taught tickets ('billing', none of its labels), in
    the file and in the window's first column. It starts empty now, the queue's kept for an undo that puts it back."""
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, PRIORITY], "t").save(path)

    async def body():
        doc = PromptDocument(path, tmp_path / "draft.json")
        doc.start()
        moved = []
        doc.fields_moved.connect(moved.append)
        doc.save(PromptProfile.of_fields([QUEUE, PRIORITY], "t"), [("refund me", "billing")])
        doc.save(PromptProfile.of_fields([SENTIMENT, PRIORITY], "t"), [("refund me", "billing")])
        assert taught_by_field(path) == {"sentiment": {}, "priority": {}}
        assert moved == [[None, 1]] and doc.saved.taught == []  # the window's first field's set: the sentiment's
        doc.save(PromptProfile.of_fields([QUEUE, PRIORITY], "t"), [])  # Ctrl+Z in the editor, and Save
        doc.close()
        assert taught_by_field(path) == {"queue": {"refund me": "billing"}, "priority": {}}

    asyncio.run(body())


def test_a_move_saved_over_another_windows_removed_field_asks_and_never_writes_a_field_without_labels(tmp_path):
    """Walk seed 1, cut down: window B removed the queue and added a sentiment (saved); window A, its prompt read
    before, moved the priority first and saved. The file held the priority and a field with no name and no labels
    where A's queue stood ("Field 2 has no name"): neither window could read it again, the sentiment gone too. Both
    changed the fields, so A's Save asks first now (Keep mine writes A's fields, each with its own)."""
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, PRIORITY], "t").save(path)

    async def body():
        a, b = (PromptDocument(path, tmp_path / f"draft-{n}.json") for n in "ab")
        a.start(), b.start()
        b.save(PromptProfile.of_fields([PRIORITY, SENTIMENT], "t"), [])
        with pytest.raises(PromptConflict):
            a.save(PromptProfile.of_fields([PRIORITY, QUEUE], "t"), [])
        assert [f.name for f in PromptDocument.read(path).fields] == ["priority", "sentiment"]  # as B wrote it
        a.save(PromptProfile.of_fields([PRIORITY, QUEUE], "t"), [("refund me", "billing")], force=True)
        a.close(), b.close()
        assert taught_by_field(path) == {"priority": {}, "queue": {"refund me": "billing"}}

    asyncio.run(body())


def test_keep_mine_keeps_the_priority_tickets_taught_since_the_last_write(tmp_path):
    """Walk seed 12, cut down: window A taught a priority ticket (its write not landed yet) and saved an edit over
    window B's edit; the Save asked first, and Keep mine wrote the priority without the ticket: the Save that asked
    had taken the waiting further-field sets with it, and the window then took the file's priority as its own, the
    ticket gone from its column too."""
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, PRIORITY], "t").save(path)

    async def body():
        a, b = (PromptDocument(path, tmp_path / f"draft-{n}.json", delay=100) for n in "ab")
        a.start(), b.start()
        b.save(PromptProfile.of_fields([QUEUE, replace(PRIORITY, instruction="How soon?")], "t"), [])
        a.keep_field_taught([[("my card was stolen", "high")]], ["queue", "priority"])
        mine = PromptProfile.of_fields([replace(QUEUE, instruction="Route it."), PRIORITY], "t")
        with pytest.raises(PromptConflict):
            a.save(mine, [])
        a.save(mine, [], force=True)  # Keep mine
        assert {e.text for e in a.saved.more_fields[0].taught} == {"my card was stolen"}  # the window's set next
        a.close(), b.close()
        assert taught_by_field(path)["priority"] == {"my card was stolen": "high"}

    asyncio.run(body())


def test_keep_mine_over_a_field_renamed_there_keeps_its_tickets_taught_there(tmp_path):
    """Walk seeds 290 and 380, cut down: window B renamed the priority 'urgency' and taught 'my card was stolen' in
    it; window A, its prompt read before, renamed the priority's label 'low' to 'later' and saved over it (Keep
    mine): A's priority matched no field of the file (another name, other labels), and B's ticket was gone. A field
    renamed on one side and relabelled on the other is the one field there sharing a label with it."""
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, PRIORITY], "t").save(path)

    async def body():
        a, b = (PromptDocument(path, tmp_path / f"draft-{n}.json") for n in "ab")
        a.start(), b.start()
        b.save(PromptProfile.of_fields([QUEUE, replace(PRIORITY, name="urgency")], "t"), [])
        b.keep_field_taught([[("my card was stolen", "high")]], ["queue", "urgency"])
        b.flush()
        later = replace(PRIORITY, labels=[Label("later", "can wait"), Label("high", "now")])
        with pytest.raises(PromptConflict):
            a.save(PromptProfile.of_fields([QUEUE, later], "t"), [])
        a.save(PromptProfile.of_fields([QUEUE, later], "t"), [], force=True)  # Keep mine
        a.close(), b.close()
        assert taught_by_field(path) == {"queue": {}, "priority": {"my card was stolen": "high"}}

    asyncio.run(body())


def test_a_save_that_takes_in_the_other_windows_queue_ticket_keeps_its_priority_tickets(tmp_path):
    """Walk seed 124, cut down: window A taught a queue ticket and a priority ticket (written); window B saved (a
    field added), and its Save took A's queue ticket in; the window writes its taught sets at once, the priority's
    as its session held it before the Save (without A's ticket, which the Save's prompt brings in just after), and
    that write forgot A's priority ticket in the file. The further fields' sets wait for the Save's prompt now."""
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, PRIORITY], "t").save(path)

    async def body():
        a, b = (PromptDocument(path, tmp_path / f"draft-{n}.json", delay=100) for n in "ab")
        a.start(), b.start()
        a.keep_taught([("refund me", "billing")])
        a.keep_field_taught([[("my card was stolen", "high")]], ["queue", "priority"])
        a.flush()

        def took_in(theirs, prompt_changed):  # as the window does (add_taught, then its taught sets written)
            b.keep_taught(theirs)
            b.keep_field_taught([[]], ["queue", "priority"])  # the session's priority: before the Save's prompt

        b.merged.connect(took_in)
        b.save(PromptProfile.of_fields([QUEUE, PRIORITY, SENTIMENT], "t"), [])
        # the window then puts the Save's prompt in use, its priority set the file's (no write: nothing changed)
        b.flush()
        a.close(), b.close()
        assert taught_by_field(path) == {
            "queue": {"refund me": "billing"},
            "priority": {"my card was stolen": "high"},
            "sentiment": {},
        }

    asyncio.run(body())


def test_a_field_renamed_as_another_is_removed_in_one_save_keeps_its_taught_tickets(tmp_path):
    """Walk seed 242, cut down: the lead removed the sentiment and renamed the priority 'urgency' in one Save: the
    priority was matched by name, else by place only where the number of further fields was unchanged, so the
    urgency started with none of the priority's taught tickets, in the file and in its column. It is the field its
    labels say now, as in the rest of the Save."""
    path = tmp_path / "prompt.json"
    priority = replace(PRIORITY, taught=[Example("my card was stolen", "high")])
    PromptProfile.of_fields([QUEUE, priority, SENTIMENT], "t").save(path)

    async def body():
        doc = PromptDocument(path, tmp_path / "draft.json")
        doc.start()
        doc.save(PromptProfile.of_fields([QUEUE, replace(PRIORITY, name="urgency")], "t"), [])
        doc.close()
        assert taught_by_field(path) == {"queue": {}, "urgency": {"my card was stolen": "high"}}

    asyncio.run(body())


def test_the_first_field_renamed_and_relabelled_as_a_field_is_added_keeps_its_taught_tickets(tmp_path):
    """Walk seed 862, cut down: the lead renamed the queue 'team', its label 'technical' 'tech', and added a
    sentiment, in one Save: no name nor the same labels matched the queue, and with a field more none was paired
    by place, so the team was read as a new first field and started with none of the queue's tickets. A field is
    also known by the one field of the other side it shares a label with."""
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, PRIORITY], "t").save(path)

    async def body():
        doc = PromptDocument(path, tmp_path / "draft.json")
        doc.start()
        doc.save(PromptProfile.of_fields([QUEUE, PRIORITY], "t"), [("refund me", "billing")])
        team = replace(QUEUE, name="team", labels=[Label("billing", "money"), Label("tech", "broken")])
        doc.save(PromptProfile.of_fields([team, PRIORITY, SENTIMENT], "t"), [("refund me", "billing")])
        doc.close()
        assert taught_by_field(path) == {"team": {"refund me": "billing"}, "priority": {}, "sentiment": {}}

    asyncio.run(body())


def test_two_windows_random_walk_keeps_every_ticket_in_its_field(tmp_path):
    """The walk (:mod:`two_windows_walk`): 150 seeds of 40 steps, every one passing (1,000 seeds passed when this
    was written, and 24 of the first 400 of 12 steps failed before this round's fixes)."""
    for seed in range(150):
        folder = tmp_path / str(seed)
        folder.mkdir()
        walk(folder, seed, 40)


@pytest.mark.xfail(strict=True, reason=KNOWN)
def test_a_field_renamed_with_every_label_in_one_window_keeps_the_others_stale_tickets(tmp_path):
    """The walk's known failure (``any_label``; 14 of 600 seeds of 40 steps): window B renamed the priority
    'urgency' and both its labels; window A, not having read the file since, taught 'my card was stolen' in the
    priority: its write found no field of that name or with one of its labels, took B's prompt and dropped the
    ticket, as a removed field's."""
    path = tmp_path / "prompt.json"
    PromptProfile.of_fields([QUEUE, PRIORITY], "t").save(path)

    async def body():
        a, b = (PromptDocument(path, tmp_path / f"draft-{n}.json") for n in "ab")
        a.start(), b.start()
        urgency = Field("urgency", PRIORITY.instruction, [Label("later", "can wait"), Label("now", "now")])
        b.save(PromptProfile.of_fields([QUEUE, urgency], "t"), [])
        a.keep_field_taught([[("my card was stolen", "high")]], ["queue", "priority"])
        a.flush()
        a.close(), b.close()
        assert "my card was stolen" in taught_by_field(path)["urgency"]

    asyncio.run(body())
