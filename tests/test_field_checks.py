"""Random checks per field (issue 34), in the session on the fake engine: a check on a further field is a
verdict on that field's label, counted in that field's estimate alone, named by it, and brought back from what
the prompt file keeps for that field; a one-field prompt's estimate reads as it always has."""

from __future__ import annotations

from dataclasses import replace

from test_session import idle, ready, run
from test_session_fields import two_fields
from test_session_learning import topical

from triage_gui.engine.prompt import CheckRecord
from triage_gui.engine.table import decide
from triage_gui.session.checks import NO_CHECKS, NOT_ESTIMATED, CheckStatus


def test_a_check_on_the_priority_counts_in_its_estimate_alone():
    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(30))
        await idle(session)
        drawn = session.draw_checks(1)
        assert len(drawn) == 20 and session.next_to_check(1) == drawn[0] and session.next_to_check() is None
        second = session.field_table(1)
        assert all(not decide(second, r).taught for r in drawn)
        shown = decide(second, drawn[0]).label
        other = "low" if shown == "high" else "high"
        assert session.teach_field(1, [drawn[0]], other) == [drawn[0]]  # counted, then taught
        assert session.accept_field(1, [drawn[1]])[1] == [drawn[1]]
        priority, queue = session.field_check_status(1), session.check_status
        assert (priority.checked, priority.correct, priority.field) == (2, 1, "priority")
        assert (queue.checked, queue.field) == (0, "queue") and session.field_check_status(0) is queue
        assert session.table.taught_label(drawn[0]) is None  # the queue was not taught
        [records] = session.field_check_records()
        assert [(c.text, c.shown, c.right) for c in records] == [
            (session.table.texts[drawn[0]], shown, other),
            (session.table.texts[drawn[1]], decide(second, drawn[1]).label, decide(second, drawn[1]).label),
        ]
        assert session.check_records() == []
        session.teach([drawn[2]], session.table.labels[0])  # a priority sample row taught in the queue: no verdict
        assert session.field_check_status(1).checked == 2 and session.check_status.checked == 0

    body()


def test_a_fields_checks_come_back_from_the_prompt_file_and_only_on_its_labels():
    profile = two_fields()
    kept = [
        CheckRecord("refund problem number 3", "high", "high", 1, 1, 1.0e9),
        CheckRecord("refund problem number 4", "low", "high", 1, 1, 1.0e9),
        CheckRecord("refund problem number 5", "billing", "account", 1, 1, 1.0e9),  # the queue's labels: not counted
    ]
    profile.more_fields[0] = replace(profile.more_fields[0], checks=kept)

    @run
    async def body(session, fake):
        await ready(session, profile)
        status = session.field_check_status(1)
        assert (status.checked, status.correct) == (2, 1) and status.short(now=1.0e9).startswith("priority ~50% (")
        assert session.check_status.checked == 0
        assert session.field_check_records() == [kept]  # kept as read, the unreadable-for-it one too
        session.add_rows(topical(20))
        await idle(session)
        assert not {session.table.texts[r] for r in session.draw_checks(1)} & {c.text for c in kept}

    body()


def test_the_estimate_names_its_field_and_a_one_field_estimate_reads_as_always():
    assert CheckStatus().short() == NOT_ESTIMATED and CheckStatus().short(gold=True) == NO_CHECKS
    assert CheckStatus(field="priority").short() == "Accuracy of priority: not estimated"
    assert CheckStatus(field="priority").short(gold=True) == "Random checks of priority: none yet"
    assert CheckStatus().describe() == "Accuracy not estimated yet: check a random sample (Teach menu)."
    assert CheckStatus(field="priority").describe().startswith("Accuracy of priority not estimated yet")
    done = CheckStatus((), 10, 8, 0.49, 0.94, (3, 3), (4, 4), 100.0)
    assert done.short(now=100.0) == "~80% (49–94%), 10 checks on v3 with 4 taught, just now"
    assert replace(done, field="priority").short(now=100.0) == "priority " + done.short(now=100.0)
    assert done.describe(now=100.0).startswith("Accuracy 80% (95% interval 49–94%), from 10 random checks: 8 labels")
    assert (
        replace(done, field="priority")
        .describe(now=100.0)
        .startswith("Accuracy of priority 80% (95% interval 49–94%), from 10 random checks: 8 priority labels right")
    )
