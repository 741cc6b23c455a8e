"""Two passes: every loaded ticket is embedded and labelled by the classifier's prompt-free heads before the
language model reads any, on the fake engine (whose language model is held back by its gate)."""

from __future__ import annotations

import numpy as np
from fake_engine import FakeEncoder, FakeEngine
from test_session import PROFILE, idle, ready, run, until
from test_session_learning import WORDS, topical

from triage_gui.engine.learning import Teacher, embed_table, first_block
from triage_gui.engine.learning._first_pass import blocks
from triage_gui.engine.table import TicketTable
from triage_gui.session.labelling import Throughput


def tickets_scored(fake: FakeEngine) -> int:
    return sum(1 for _, text in fake.scored if "problem number" in text)


@run
async def test_every_row_has_a_learned_label_before_any_language_model_forward(session, fake):
    await ready(session)
    await idle(session)
    fake.gate.clear()  # the language model does not return
    try:
        session.add_rows(topical(300))
        table = session.table
        await until(lambda: all(table.source(r) == "first pass" for r in range(300)), 8)
        assert table.count_scored() == 0 and tickets_scored(fake) == 0
        assert session.run_status.classified == 300 and session.run_status.labelled == 0
        confidences = table.confidences()
        assert np.isfinite(confidences).all() and (confidences < 1).all()  # its own confidence, not 1.00
    finally:
        fake.gate.set()
    await idle(session)
    # read by the language model, whose heads weigh 0 untaught: the first pass's labels, and sources, stay
    assert table.count_scored() == 300 and {table.source(r) for r in range(300)} == {"first pass"}


@run
async def test_a_taught_prompt_labels_every_row_from_what_was_taught_at_once(session, fake):
    await ready(session)
    await idle(session)
    fake.gate.clear()
    try:
        # Taught tickets from another file (not loaded): their encoder features join the fit at once.
        taught = [(f"{w} problem", label) for label, ws in WORDS.items() for i, w in enumerate(ws)]
        session.teaching.restore(taught)
        session.add_rows(topical(60))
        table = session.table
        truth = [list(WORDS)[i % 3] for i in range(60)]
        await until(lambda: all(table.source(r) == "first pass" for r in range(60)), 8)
        await until(lambda: session.teaching.status.state == "ready" and session.teaching.last_fit is not None, 8)
        assert session.teaching.last_fit.taught == len(taught)  # every outside ticket in the fit, no LLM yet
        assert table.count_scored() == 0
        accuracy = np.mean([table.label(r) == truth[r] for r in range(60)])
        assert accuracy >= 0.8, accuracy
    finally:
        fake.gate.set()
    await idle(session)


@run
async def test_stop_stops_the_language_model_never_the_first_pass(session, fake):
    await ready(session)
    await idle(session)
    fake.batch_seconds = 0.2  # a slow language model
    session.add_rows(topical(40))
    await until(lambda: session.table.count_current() == 40, 8)
    session.stop()
    added = session.add_rows(topical(100)[40:])  # rows arriving after Stop still get the first pass
    table = session.table
    await until(lambda: all(table.source(r) == "first pass" for r in added), 8)
    await idle(session)
    assert session.run_status.state == "stopped"
    assert table.count_scored() < 100  # the language model did not go on
    assert all(table.current(r) for r in range(100))


def test_embedding_blocks_are_aligned_to_the_row_index():
    rows = np.array([3, 5, 63, 64, 65, 200, 255, 256])
    assert first_block(rows).tolist() == [3, 5, 63]
    assert [b.tolist() for b in blocks(rows)] == [[3, 5, 63], [64, 65], [200, 255], [256]]


@run
async def test_first_pass_labels_equal_the_one_call_first_pass(session, fake):
    """The window's first-pass labels are those of ``classify --fast``'s path (Teacher without a scorer)."""
    taught = [(topical(60)[r].text, list(WORDS)[r % 3]) for r in (1, 2, 3, 7, 8)]
    taught += [("invoice trouble from the old file", "billing"), ("crash trouble from the old file", "technical")]
    await ready(session)
    await idle(session)
    fake.gate.clear()
    try:
        session.teaching.restore(taught)
        session.add_rows(topical(150))
        table = session.table
        await until(lambda: all(table.current(r) for r in range(150)), 8)
        teaching = session.teaching  # the last fit saw every row and every taught ticket (no LLM feature)

        def fitted() -> bool:
            fit = teaching.last_fit
            return fit is not None and len(fit.probs) == 150 and fit.taught == len(taught)

        await until(lambda: fitted() and teaching.status.state == "ready" and not teaching._refitting.active, 8)
        window = [table.label(r) for r in range(150)]
        assert table.count_scored() == 0
    finally:
        fake.gate.set()
    await idle(session)

    alone = TicketTable()
    alone.add(topical(150))
    alone.start_version(0, PROFILE.label_names, [])
    encoder = FakeEncoder(FakeEngine())
    embed_table(encoder, alone)
    Teacher(None, PROFILE, encoder).fit_table(alone, taught)
    assert [alone.label(r) for r in range(150)] == window
    assert {alone.source(r) for r in range(150) if alone.taught_label(r) is None} == {"first pass"}


def test_no_time_left_before_this_run_has_scored_its_own_tickets():
    throughput = Throughput()
    throughput.start()
    throughput.add(8)
    throughput.add(16)
    assert throughput.rate() is None  # 24 tickets: too few to promise a time
    throughput.start()  # a new run promises nothing from the last one
    assert throughput.rate() is None
    for _ in range(5):
        throughput.add(16)
    assert throughput.done == 80 and throughput.rate() is not None


@run
async def test_a_random_check_on_a_first_pass_label_says_so(session, fake):
    await ready(session)
    await idle(session)
    fake.gate.clear()
    try:
        session.add_rows(topical(60))
        table = session.table
        await until(lambda: all(table.source(r) == "first pass" for r in range(60)), 8)
        drawn = session.checks.draw(3)
        session.checks.record(drawn, None)
        status = session.checks.status
        assert status.checked == 3 and status.first_pass == 3
        assert "3 checks (3 on first-pass labels)" in status.what()
        assert {c.stage for c in session.checks.records()} == {"first pass"}
    finally:
        fake.gate.set()
    await idle(session)


@run
async def test_resume_while_the_first_pass_runs_after_a_stop_brings_the_language_model_back(session, fake):
    await ready(session)
    await idle(session)
    fake.batch_seconds = 0.2
    session.add_rows(topical(20))
    await until(lambda: session.table.count_current() == 20, 8)
    session.stop()
    session.add_rows(topical(2000)[20:])  # a long first pass, stopped
    await until(lambda: session.running, 8)
    session.resume()
    fake.batch_seconds = 0.0
    await idle(session)
    table = session.table
    assert table.count_scored() == 2000 and session.run_status.state == "done"


def test_the_run_counts_the_rows_the_first_pass_has_still_to_embed():
    """With every ticket's language-model score kept from an earlier run, embedding the rows for the classifier is
    what a run does: the run status counts them (the run line said "0.0 tickets/s" beside 154 / 154 labelled)."""
    from triage_gui.session.labelling import run_status

    table = TicketTable()
    table.add(topical(150))
    table.start_version(0, PROFILE.label_names, [])
    encoder = FakeEncoder(FakeEngine())
    assert run_status(table, "running", False, Throughput(), embedding=True).first_pass_left == 150
    texts = [table.texts[r] for r in range(64)]
    table.apply_embeddings(list(range(64)), encoder.encode(texts), "fake")
    assert run_status(table, "running", False, Throughput(), embedding=True).first_pass_left == 86
    assert run_status(table, "running", False, Throughput()).first_pass_left == 0  # no sentence encoder in use
    assert run_status(table, "done", False, Throughput(), embedding=True).first_pass_left == 0
