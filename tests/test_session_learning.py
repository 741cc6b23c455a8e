"""The session's learned labels with the sentence encoder: embeddings once per ticket, labels at once after a
prompt edit, "Teach next" suggestions and the random-check estimate, on the fake engine in milliseconds."""

from __future__ import annotations

import asyncio

from fake_engine import FakeEngine
from test_session import PROFILE, idle, other, ready, run, until

from triage_gui.engine.table import NewRow
from triage_gui.session.session import Session

WORDS = {
    "billing": ["refund", "invoice", "charged twice", "fee", "payment"],
    "technical": ["crash", "error", "freezes", "bug", "broken app"],
    "account": ["password", "login", "address", "close account", "verify"],
}


def topical(n: int) -> list[NewRow]:
    names = list(WORDS)
    out = []
    for i in range(n):
        label = names[i % 3]
        text = f"{WORDS[label][i % 5]} problem number {i}"
        out.append(NewRow({"text": text, "queue": label}, text))
    return out


@run
async def test_every_ticket_is_embedded_once_across_prompt_versions(session, fake):
    await ready(session)
    session.add_rows(topical(30))
    await idle(session)
    assert session.table.embedded_mask().all()
    session.set_prompt(other("Route it, second version."))
    await until(lambda: session.prompt_status.version == 1)
    await idle(session)
    tickets = {t: c for t, c in fake.encoded.items() if "problem number" in t}
    assert len(tickets) == 30 and set(tickets.values()) == {1}  # not again for the new prompt


@run
async def test_a_prompt_edit_relabels_from_the_encoder_before_the_llm_scores_again(session, fake):
    await ready(session)
    session.add_rows(topical(60))
    await idle(session)
    truth = [list(WORDS)[i % 3] for i in range(60)]
    for row in range(15):  # one ticket of every (label, word) pair
        session.teaching.teach([row], truth[row])
    await idle(session)
    fake.gate.clear()  # the LLM scoring of the new version waits
    try:
        session.set_prompt(other("Route it, clearer descriptions."))
        await until(lambda: session.prompt_status.version == 1)
        table = session.table
        await until(lambda: table.head_active and all(table.current(r) for r in range(60)), 10)
        assert table.count_scored() == 0  # no LLM score of the new version yet
        assert not any(table.stale(r) for r in range(60))  # labels are this version's, from the encoder heads
        assert {table.source(r) for r in range(15, 60)} == {"first pass"}  # the classifier before the LLM
        assert sum(table.label(r) == truth[r] for r in range(15, 60)) >= 40
    finally:
        fake.gate.set()
    await idle(session)
    assert session.table.count_scored() == 60


@run
async def test_teach_next_suggests_untaught_tickets(session, fake):
    await ready(session)
    got: list[list[int]] = []
    session.teaching.suggested.connect(got.append)
    session.add_rows(topical(45))
    await idle(session)
    assert got and got[-1]
    suggested = got[-1]
    assert len(set(suggested)) == len(suggested)
    session.teaching.teach(suggested[:2], "billing")
    await idle(session)
    assert not set(suggested[:2]) & set(session.teaching.suggestions)  # taught ones are no longer suggested


@run
async def test_random_checks_give_an_estimate_apart_from_corrections(session, fake):
    await ready(session)
    session.add_rows(topical(60))
    await idle(session)
    checks = session.checks
    assert checks.status.checked == 0 and checks.status.accuracy is None
    assert "not estimated" in checks.status.describe()
    session.teaching.teach([0, 1, 2], "billing")  # corrections alone never make an estimate
    await idle(session)
    assert checks.status.checked == 0
    drawn = checks.draw(10)
    assert len(drawn) == 10 and not set(drawn) & {0, 1, 2}  # only untaught tickets are drawn
    truth = [list(WORDS)[i % 3] for i in range(60)]
    table = session.table
    right_before = sum(table.label(r) == truth[r] for r in drawn)
    for row in drawn:
        shown = table.label(row)
        checks.record([row], None if shown == truth[row] else truth[row])
        session.teaching.teach([row], truth[row])
    await idle(session)
    status = checks.status
    assert status.checked == 10 and not status.to_check
    assert 0 <= status.low <= status.accuracy <= status.high <= 1
    assert status.correct == right_before  # exactly what the lead answered, teaching since changes nothing
    assert "random checks" in status.describe()
    session.clear()  # the verdicts are kept with the prompt (tests/test_checks.py); the rows to check go
    assert checks.status.checked == 10 and not checks.status.to_check


def test_without_an_encoder_the_session_still_learns():
    async def body():
        fake = FakeEngine(with_encoder=False)
        session = Session(fake.as_engine(), device="cpu", batch_size=4)
        try:
            await ready(session, PROFILE)
            session.add_rows(topical(30))
            await idle(session)
            assert session.encoder is None and not session.table.embedded_mask().any()
            session.teaching.teach([0], "billing")
            await idle(session)
            assert session.teaching.status.state == "ready"
            assert "encoder" not in session.teaching.status.weights
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 30))


@run
async def test_an_encoder_that_arrives_during_a_run_embeds_what_was_labelled_without_it(session, fake):
    fake.encoder_gate.clear()
    fake.batch_seconds = 0.01
    await ready(session)
    session.add_rows(topical(40))
    await until(lambda: session.table.count_scored() >= 8)
    assert session.encoder is None and not session.table.embedded_mask()[:8].any()
    fake.encoder_gate.set()
    await idle(session)
    assert session.encoder is not None
    assert session.table.embedded_mask().all() and session.table.count_scored() == 40
    assert session.run_status.state == "done"
    assert all(c == 1 for t, c in fake.encoded.items() if "problem number" in t)


def test_an_encoder_that_fails_to_load_is_said_and_labels_are_learned_without_it():
    async def body():
        fake = FakeEngine()
        session = Session(fake.as_engine(), device="cpu", batch_size=4, encoder="/nowhere/encoder")
        said: list[tuple[str, str]] = []
        session.message.connect(lambda title, text: said.append((title, text)))
        try:
            await ready(session, PROFILE)
            session.add_rows(topical(12))
            await idle(session)
            assert said and said[0][0] == "Sentence encoder not loaded" and "without it" in said[0][1]
            assert session.encoder is None and session.table.count_scored() == 12
            assert session.run_status.state == "done"
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 30))


@run
async def test_a_long_taught_ticket_outside_the_file_is_learned_from_its_beginning_as_classify_does(session, fake):
    """The window scored and embedded a taught ticket of any length whole (a 500 KB one held the engine
    thread for seconds) where ``classify`` cut it at MAX_TAUGHT_CHARS: one cut, ``taught.learned_text``."""
    from triage_gui.engine.prompt import MAX_TAUGHT_CHARS, learned_text

    await ready(session)
    long = "refund " * 1_000  # 7,000 characters, taught from another file: not a loaded row
    session.teaching.add_items([(long, "billing")])
    session.add_rows(topical(12))
    await until(lambda: any(text.startswith("refund refund") for _, text in fake.scored))
    await idle(session)
    seen = [t for t in [*fake.encoded, *(text for _, text in fake.scored)] if t.startswith("refund refund")]
    assert seen and all(t == learned_text(long) and len(t) <= MAX_TAUGHT_CHARS for t in seen)
    assert session.teaching.taught[long.strip()] == "billing"  # the taught set keeps the whole text
