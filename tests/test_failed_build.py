"""What a prompt with several fields does when the model cannot build a field a Save changed or added
(:mod:`session.failed_build`): where the fields stand decides whether the session can go back to the prompt in use."""

from __future__ import annotations

from dataclasses import replace

from test_session_fields import PRIORITY, QUEUE

from triage_gui.engine.prompt import Field, Label, PromptProfile
from triage_gui.session.failed_build import failed_build

IN_USE = PromptProfile.of_fields([QUEUE, PRIORITY], "t")
SENTIMENT = Field("sentiment", "How does the customer feel?", [Label("calm", "fine"), Label("angry", "upset")])


def test_a_save_that_moved_nothing_goes_back_to_the_prompt_in_use():
    one = PromptProfile.of_fields([QUEUE], "t")
    assert failed_build(one, one, 0, [], "Too long.").message == "Too long."  # a one-field prompt's, as it was
    failing = replace(PRIORITY, instruction="too long")
    then = failed_build(PromptProfile.of_fields([QUEUE, failing], "t"), IN_USE, 1, [{}], "Too long.")
    assert (then.message, then.retry, then.left_out) == ("The priority field cannot be built. Too long.", None, "")
    added = PromptProfile.of_fields([QUEUE, PRIORITY, SENTIMENT], "t")  # after the others: nothing moved
    assert failed_build(added, IN_USE, 2, [{}, {}], "Too long.").left_out == ""


def test_a_moved_field_that_failed_keeps_the_new_order_with_its_part_in_use_and_the_taught_sets_now():
    failing = replace(PRIORITY, instruction="too long", labels=[Label("low", "a"), Label("urgent", "b")])
    then = failed_build(PromptProfile.of_fields([failing, QUEUE], "t"), IN_USE, 0, [{"my card": "billing"}], "No.")
    assert then.retry is not None and then.left_out == ""
    assert [f.name for f in then.retry.fields] == ["priority", "queue"]
    assert then.retry.fields[0].instruction == PRIORITY.instruction
    assert then.retry.fields[0].label_names == ["low", "high"]
    assert [(e.text, e.label) for e in then.retry.fields[1].taught] == [("my card", "billing")]
    assert then.message == "The priority labels with its prompt in use meanwhile. No."


def test_a_field_added_before_the_others_that_failed_is_left_out():
    then = failed_build(PromptProfile.of_fields([SENTIMENT, QUEUE, PRIORITY], "t"), IN_USE, 0, [{}, {}], "Bad.")
    assert then.retry is None and then.left_out == "sentiment"
    assert "left out of the saved prompt" in then.message


def test_a_new_first_field_where_the_queue_was_removed_that_failed_is_left_out():
    """The queue removed and a sentiment put first: the Save gave each field what it keeps, as a move does (W19),
    so the session is on the new fields; going back to the queue first left it under the sentiment's name."""
    then = failed_build(PromptProfile.of_fields([SENTIMENT, PRIORITY], "t"), IN_USE, 0, [{}], "Bad.")
    assert then.left_out == "sentiment"
