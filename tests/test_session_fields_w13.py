"""A prompt with several fields where a one-field prompt was fine (W13's sweep): a change of sentence encoder
once the language model had read every ticket, a version's score without an encoder, Undo after a Save that
removed a field, a Stop without an encoder, a taught label a Save removed,
a Save removing a field while its fit runs, Enter right after a teach. On the fake engine."""

from __future__ import annotations

import asyncio

from fake_engine import FakeEngine
from test_session import idle, ready, run, until
from test_session_fields import PRIORITY, QUEUE, fast_labels, field_cells, two_fields
from test_session_learning import topical

from triage_gui.engine.prompt import Example, Field, Label, PromptProfile
from triage_gui.engine.table import decide
from triage_gui.session.evaluation import Evaluation
from triage_gui.session.field_scoring import FieldVersions
from triage_gui.session.session import Session


async def taught_in_both(session) -> None:
    """Two fields, 20 rows read, row 5 taught "low" in the priority and row 8 "technical" in the queue."""
    await ready(session, two_fields())
    session.add_rows(topical(20))
    await idle(session)
    session.teach_field(1, [5], "low")
    session.teach([8], "technical")
    await idle(session)


def test_choosing_no_encoder_after_the_reading_keeps_every_field_labelled(tmp_path, monkeypatch):
    """*Model › Choose model…* with no sentence encoder once every ticket was read: the queue kept its labels and
    the priority column went empty for good (its reading thrown away with the old encoder's embeddings, and no
    run left to read it again). Each field is now labelled as ``classify`` labels it without an encoder."""
    profile, n = two_fields(), 24
    expected = fast_labels(profile, n, tmp_path, monkeypatch, fast=False, encoder="none")

    @run
    async def body(session, fake):
        await ready(session, profile)
        session.add_rows(topical(n))
        await idle(session)
        assert session.set_encoder("none")
        await idle(session)
        second = session.fields.table_of(1)
        assert session.encoder is None and second is not None and second.count_scored() == n
        want = [(r["priority_label"], r["priority_confidence"], r["priority_source"]) for r in expected]
        assert field_cells(second, n) == want
        assert session.table.count_scored() == n  # the queue's reading kept, as the priority's now is

    body()


def test_another_encoder_after_the_reading_keeps_every_fields_reading(tmp_path, monkeypatch):
    """Another sentence encoder (or the first one arriving late) once every ticket was read: the queue kept the
    language model's reading and the priority fell back to its first pass for good, its scores dropped with the
    old embeddings. Each field now keeps its reading: its labels are those ``classify`` gives it."""
    profile, n = two_fields(), 24
    expected = fast_labels(profile, n, tmp_path, monkeypatch, fast=False)

    @run
    async def body(session, fake):
        await ready(session, profile)
        session.add_rows(topical(n))
        await idle(session)
        assert session.set_encoder("other")
        await until(lambda: session.encoder is not None)
        await idle(session)
        second = session.fields.table_of(1)
        assert second is not None and second.count_scored() == n and session.fields.settled
        want = [(r["priority_label"], r["priority_confidence"], r["priority_source"]) for r in expected]
        assert field_cells(second, n) == want

    body()


def test_a_late_encoder_keeps_the_further_fields_reading():
    @run
    async def body(session, fake):
        fake.encoder_gate.clear()  # the encoder's load waits until every ticket is read
        await ready(session, two_fields())
        session.add_rows(topical(20))
        await until(lambda: session.table.count_scored() == 20 and len(session.fields.read[0]) == 20)
        await idle(session)
        fake.encoder_gate.set()
        await until(lambda: session.encoder is not None)
        await idle(session)
        second = session.fields.table_of(1)
        assert second is not None and second.count_scored() == 20 and session.fields.settled

    body()


def test_without_an_encoder_a_further_fields_version_is_scored_against_its_gold():
    """``--encoder none``: the queue's version got its accuracy against its gold column, the priority's never
    (its labels never counted as final: they waited for embeddings that never come)."""

    async def body() -> None:
        session = Session(FakeEngine().as_engine(), device="cpu", batch_size=4, encoder="none")
        evaluation = Evaluation(session.table)
        versions = FieldVersions(session, evaluation)
        scored: list[int] = []
        evaluation.field_scored.connect(lambda index, profile, measure: scored.append(index))
        try:
            await ready(session, two_fields())
            rows = topical(24)
            for i, row in enumerate(rows):
                row.values["priority"] = ("low", "high")[i % 2]  # the priority's gold column
            session.add_rows(rows)
            await idle(session)
            evaluation.choose_for("priority", "priority")
            await until(lambda: not versions._waiting.active)
            assert session.fields.settled and scored == [1]
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 30))


def test_undo_after_a_save_removed_the_last_field_skips_that_fields_steps():
    """The priority removed in the prompt editor and saved: Edit › Undo offered "Undo teach 1 ticket 'low'
    (priority)", and taking it raised IndexError in the window's event loop (the field is gone) and emptied the
    undo menu. A step of a field a Save removed is dropped, as a move drops it (:meth:`TaughtHistory.moved`)."""

    @run
    async def body(session, fake):
        await taught_in_both(session)
        session.set_prompt(PromptProfile.of_fields([QUEUE], "Queue"))  # the priority removed, saved
        await idle(session)
        history = session.history
        assert history.undo_text == "teach 1 ticket 'technical' (queue)"
        history.undo()
        await idle(session)
        assert session.table.taught_label(8) is None
        assert history.undo_text == "" and history.undo() is None  # the priority's step went with it
        assert history.redo() is not None and session.table.taught_label(8) == "technical"

    body()


def test_a_stop_without_an_encoder_leaves_every_field_labelled_on_the_tickets_read():
    """``--encoder none``, Stop before the language model had read 16 tickets: the queue showed a label on each
    ticket read and the priority column stayed empty until Resume (its fit waited for 16 rows read, or all);
    with more read, the priority lagged the queue by the tickets read since its last fit. A run's end now fits
    each field on every ticket read."""

    async def body() -> None:
        fake = FakeEngine()
        session = Session(fake.as_engine(), device="cpu", batch_size=4, encoder="none")
        try:
            await ready(session, two_fields())
            fake.batch_seconds = 0.05
            session.add_rows(topical(40))
            await until(lambda: session.table.count_scored() >= 3)
            session.stop()
            await idle(session)
            read = session.table.count_scored()
            assert 3 <= read < 16 and len(session.fields.read[0]) == read
            second = session.fields.table_of(1)
            assert second is not None and second.count_scored() == read
            assert sum(decide(second, r).label is not None for r in range(40)) == read  # as the queue's
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 30))


def test_a_taught_label_a_save_removed_is_not_shown_as_taught_in_a_further_field():
    """A ticket taught "low" in the priority, then "low" removed from the priority and saved: the priority column
    still showed "low" ✓ taught, a label the field no longer has, while a queue ticket whose label was removed
    showed its learned label, untaught (the taught ticket set aside, kept in the file)."""

    @run
    async def body(session, fake):
        await taught_in_both(session)
        queue = Field("queue", QUEUE.instruction, [QUEUE.labels[0], QUEUE.labels[2]], QUEUE.examples[:1])
        taught = [*PRIORITY.taught, Example(session.table.texts[5], "low")]  # as the prompt file keeps it
        priority = Field("priority", "How urgent?", [Label("medium", "some"), Label("high", "broken")],
                         PRIORITY.examples[:1], ordered=True, taught=taught)  # fmt: skip
        session.set_prompt(PromptProfile.of_fields([queue, priority], "Queue and priority"))
        await idle(session)
        first = decide(session.table, 8, 0.5)
        assert first.label in ("billing", "account") and not first.taught  # the first field's
        second = session.field_decision(1, 5, 0.5)
        assert second is not None and second.label in ("medium", "high") and not second.taught
        assert session.field_taught()[0][-1] == (session.table.texts[5], "low")  # kept for the file
        # set aside, as the queue's: offered by Teach next and drawn for a random check again (it was in neither)
        assert 8 in session.teaching.suggestions and 5 in session.field_suggestions(1)
        assert 8 in session.draw_checks(0) and 5 in session.draw_checks(1)

    body()


def test_a_save_that_removes_the_further_field_while_its_fit_runs_raises_nothing():
    """The priority removed and saved while its refit was on its way (a teach a moment before; the fit waits
    3-8 s for the engine thread): the refit the Save restarted ran with no further field and raised IndexError
    ("Task exception was never retrieved" in the log)."""

    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(20))
        await idle(session)
        session.teach_field(1, [5], "low")  # the priority's refit on its way
        session.set_prompt(PromptProfile.of_fields([QUEUE], "Queue"))
        await idle(session)
        task = session.fields._fitting.task
        assert task is not None and (task.cancelled() or task.exception() is None)
        assert session.field_names == [] and session.fields.table_of(1) is None

    body()


def test_enter_right_after_a_teach_in_a_further_field_keeps_the_label_taught():
    """A priority ticket taught "high", then Enter (accept what it shows) before the field's refit landed (3-8 s
    on a busy CPU): the cell showed "high" ✓, and Enter taught the label the fit before showed, "low", in its
    place; the queue's Enter keeps what was just taught. It accepts what the cell shows now."""

    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(20))
        await idle(session)
        before = session.field_decision(1, 5, 0.5)
        assert before is not None
        other = "low" if before.label == "high" else "high"
        fake.gate.clear()  # the refit waits for the engine thread
        session.teach_field(1, [5], other)
        shown = session.field_decision(1, 5, 0.5)
        assert shown is not None and shown.label == other and shown.taught
        assert session.accept_field(1, [5]) == ({other: 1}, [])
        fake.gate.set()
        await idle(session)
        assert session.fields.taught_of(1)[session.table.texts[5]] == other

    body()


def test_the_window_keeps_the_priority_column_filled_when_no_encoder_is_chosen(qtbot, encoded_window, tmp_path):
    """*Model › Choose model…*, sentence encoder "none", once every ticket was read (the window's own path):
    the priority column went blank for good while the queue's kept its labels."""
    from test_window_fields import N, cell, open_two_fields

    from triage_gui.gui.tickets.ticket_model import Col, FieldCol

    window = encoded_window
    open_two_fields(qtbot, window, tmp_path)
    session = window.session
    window.app_actions.use_encoder("none")
    qtbot.waitUntil(lambda: not session.busy and session.fields.settled, timeout=15_000)
    assert session.encoder is None
    assert all(cell(window, r, Col.LABEL) for r in range(N))
    assert all(cell(window, r, FieldCol(1, "priority")).lstrip("✓⚠ ") in ("low", "high") for r in range(N))


def test_a_failed_build_leaves_every_field_on_the_prompt_in_use():
    """A Save whose priority the model cannot build (too long for it): the queue stayed on the prompt in use and
    the priority switched to the failed one's labels, its reading thrown away, so its column went stale with a
    label the prompt in use does not have. Every field now stays on the prompt in use, labelled as before."""

    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(20))
        await idle(session)
        second = session.fields.table_of(1)
        assert second is not None
        urgent = Field("priority", "FAIL: far too long", [*PRIORITY.labels, Label("urgent", "down for everyone")],
                       PRIORITY.examples, ordered=True, taught=PRIORITY.taught)  # fmt: skip
        fake.build_gate.clear()  # a ticket taught while the model builds it is kept
        assert session.set_prompt(PromptProfile.of_fields([QUEUE, urgent], "Queue and priority"))
        session.teach_field(1, [3], "low")
        fake.build_gate.set()
        await until(lambda: session.prompt_status.state == "failed")
        await idle(session)
        second = session.fields.table_of(1)
        assert second is not None and second.labels == ["low", "high"]
        assert session.fields.taught_of(1)[second.texts[3].strip()] == "low"
        assert field_cells(second, 20)[3] == ("low", "1.0000", "taught")
        assert session.fields.settled and {c[0] for c in field_cells(second, 20)} <= {"low", "high"}
        session.add_rows(topical(4))  # and the further field reads on with its scorer in use
        await idle(session)
        assert session.fields.table_of(1).count_scored() == 24

    body()


def test_two_saves_before_a_build_then_a_failure_leave_the_fields_on_the_prompt_in_use():
    """Two Saves that each change the priority, the second before the first is built, and the second fails:
    the fields go back to the prompt in use, not to the first Save's, which was never built."""

    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(12))
        await idle(session)
        fake.build_gate.clear()
        medium = Field("priority", "How urgent?", [*PRIORITY.labels, Label("medium", "soon")], PRIORITY.examples,
                       ordered=True, taught=PRIORITY.taught)  # fmt: skip
        session.set_prompt(PromptProfile.of_fields([QUEUE, medium], "Queue and priority"))
        failing = Field("priority", "FAIL: far too long", [*PRIORITY.labels, Label("urgent", "down")],
                        PRIORITY.examples, ordered=True, taught=PRIORITY.taught)  # fmt: skip
        session.set_prompt(PromptProfile.of_fields([QUEUE, failing], "Queue and priority"))
        fake.build_gate.set()
        await until(lambda: session.prompt_status.state == "failed")
        await idle(session)
        second = session.fields.table_of(1)
        assert second is not None and second.labels == ["low", "high"] and session.fields.settled

    body()
