"""One prompt file with several fields, two windows (two documents on one path): what either side taught,
checked or edited in a further field (the priority) is kept, as the first field's is (W18). The further
fields were merged as one whole, the last writer's winning: a ticket taught in the priority in window A was
gone from the file at window B's next write, and A's edited priority labels went back to B's."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from triage_gui.engine.prompt import Field, Label, PromptProfile
from triage_gui.session.prompt_document import PromptConflict, PromptDocument

QUEUE = Field("queue", "Route the ticket.", [Label("billing", "money"), Label("technical", "broken")])
PRIORITY = Field("priority", "How urgent is it?", [Label("low", "can wait"), Label("high", "now")], ordered=True)


def two_fields() -> PromptProfile:
    return PromptProfile.of_fields([replace(QUEUE), replace(PRIORITY)], "triage")


def window(folder, name: str) -> PromptDocument:
    doc = PromptDocument(folder / "prompt.json", folder / f"draft-{name}.json", delay=0.01, draft_delay=0.01)
    doc.start()
    return doc


def priority_taught(path) -> dict[str, str]:
    return {e.text: e.label for e in PromptProfile.load(path).more_fields[0].taught}


def run(body) -> None:
    async def main():
        body()

    asyncio.run(main())


def test_both_windows_teaching_the_priority_keeps_both_tickets(tmp_path):
    two_fields().save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        a.keep_field_taught([[("my card was stolen", "high")]])
        a.flush()
        b.keep_field_taught([[("how do I change my name", "low")]])
        b.flush()
        both = {"my card was stolen": "high", "how do I change my name": "low"}
        assert priority_taught(tmp_path / "prompt.json") == both  # B's write kept A's ticket
        a.keep_field_taught([[("my card was stolen", "high"), ("refund me", "low")]])
        a.flush()
        assert priority_taught(tmp_path / "prompt.json") == {**both, "refund me": "low"}
        b.keep_field_taught([[]])  # B forgets its own ticket: forgotten in the file, A's stay
        b.flush()
        assert priority_taught(tmp_path / "prompt.json") == {"my card was stolen": "high", "refund me": "low"}
        a.save(a.saved, [])  # a Save keeps them, and takes the file's set as the window's (set_prompt(saved))
        assert priority_taught(tmp_path / "prompt.json") == {"my card was stolen": "high", "refund me": "low"}
        assert {e.text for e in a.saved.more_fields[0].taught} == {"my card was stolen", "refund me"}

    run(body)


def test_a_saved_priority_edit_survives_the_other_window_teaching(tmp_path):
    two_fields().save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        edited = two_fields()
        edited.more_fields[0] = replace(PRIORITY, labels=[Label("low", "can wait a week"), Label("high", "now")])
        a.save(edited, [])
        taken = []
        b.merged.connect(lambda theirs, prompt: taken.append(prompt))
        b.keep_field_taught([[("my card was stolen", "high")]])
        b.flush()
        saved = PromptProfile.load(tmp_path / "prompt.json")
        assert saved.more_fields[0].labels[0].description == "can wait a week"
        assert priority_taught(tmp_path / "prompt.json") == {"my card was stolen": "high"}
        assert taken == [True]  # B was told, and takes A's prompt (it has no unsaved edits)

    run(body)


def test_edits_to_different_fields_in_both_windows_ask_before_saving(tmp_path):
    two_fields().save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        mine = two_fields()
        mine.more_fields[0] = replace(PRIORITY, instruction="How soon must it be answered?")
        a.save(mine, [])
        theirs = replace(two_fields(), instruction="Route the ticket to the team that fixes it.")
        before = (tmp_path / "prompt.json").read_bytes()
        with pytest.raises(PromptConflict):
            b.save(theirs, [])  # it wrote B's priority over A's without a word
        assert (tmp_path / "prompt.json").read_bytes() == before

    run(body)


def test_random_checks_of_the_priority_from_both_windows_are_kept(tmp_path):
    from triage_gui.engine.prompt import CheckRecord

    two_fields().save(tmp_path / "prompt.json")

    def check(text: str, at: float) -> CheckRecord:
        return CheckRecord(text, "high", "high", 1, 0, at)

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        a.keep_field_checks([[check("my card was stolen", 1.0)]])
        a.flush()
        b.keep_field_checks([[check("refund me", 2.0)]])
        b.flush()
        kept = PromptProfile.load(tmp_path / "prompt.json").more_fields[0].checks
        assert [c.text for c in kept] == ["my card was stolen", "refund me"]

    run(body)


SENTIMENT = Field("sentiment", "How does the customer feel?", [Label("calm", "fine"), Label("angry", "upset")])


def test_a_field_removed_and_another_added_in_the_other_window_gets_none_of_its_tickets(tmp_path):
    """Window B removed the priority and added a sentiment (two Saves); window A, on the priority still, taught
    a priority ticket: its write took the sentiment, at the priority's place, for the priority renamed, and put
    the priority's tickets ('high') into the sentiment, a label it does not have. A renamed field keeps a label."""
    two_fields().save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        b.save(PromptProfile(QUEUE.instruction, QUEUE.labels, name="triage"), [])
        b.save(PromptProfile.of_fields([replace(QUEUE), replace(SENTIMENT)], "triage"), [])
        a.keep_field_taught([[("my card was stolen", "high")]], ["queue", "priority"])
        a.flush()
        kept = {f.name: f.taught for f in PromptProfile.load(tmp_path / "prompt.json").fields}
        assert list(kept) == ["queue", "sentiment"] and kept["sentiment"] == []

    run(body)


def test_the_first_field_removed_in_the_other_window_gets_none_of_its_tickets_in_the_one_left(tmp_path):
    """Window B removed the queue, the first field, leaving the priority alone; window A, on the queue still,
    taught a queue ticket: its write put it into the one field left, the priority, by place."""
    two_fields().save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        b.save(PromptProfile(PRIORITY.instruction, PRIORITY.labels, name="triage", ordered=True), [])
        a.keep_taught([("my card was charged twice", "billing")])
        a.flush()
        kept = PromptProfile.load(tmp_path / "prompt.json")
        assert kept.label_names == ["low", "high"] and ("my card was charged twice", "billing") not in [
            (e.text, e.label) for e in kept.taught
        ]

    run(body)


def test_a_session_still_on_the_fields_before_a_move_writes_each_set_to_its_own_field(tmp_path):
    """The document's further fields matched to the session's by name: after a Save that moved the sentiment
    first, the session (taking the move in just after) still said [queue, sentiment]; its sentiment set went by
    place into the queue, second now."""
    PromptProfile.of_fields([replace(QUEUE), replace(SENTIMENT)], "triage").save(tmp_path / "prompt.json")

    def body():
        a = window(tmp_path, "a")
        a.save(PromptProfile.of_fields([replace(SENTIMENT), replace(QUEUE)], "triage"), [])
        a.keep_field_taught([[("I am furious", "angry")]], ["queue", "sentiment"])
        a.flush()
        kept = {f.name: f.taught for f in PromptProfile.load(tmp_path / "prompt.json").fields}
        assert kept["queue"] == []

    run(body)


def test_a_session_on_the_priority_writes_none_of_it_into_a_sentiment_put_in_its_place(tmp_path):
    """A Save over another window's prompt (Keep mine) that removed the priority and added a sentiment, the session
    taking it in after: its priority set, 'high', went by place into the sentiment (calm, angry)."""
    two_fields().save(tmp_path / "prompt.json")

    def body():
        a = window(tmp_path, "a")
        a.save(PromptProfile.of_fields([replace(QUEUE), replace(SENTIMENT)], "triage"), [])
        a.keep_field_taught([[("my card was stolen", "high")]], ["queue", "priority"])
        a.flush()
        kept = {f.name: f.taught for f in PromptProfile.load(tmp_path / "prompt.json").fields}
        assert kept["sentiment"] == []

    run(body)
