"""The language model's pass as a lead sees it: the least sure rows read first, a reopened file read from
the stored scores, a version scored on its final labels, and a Save after Stop reading again."""

from __future__ import annotations

import numpy as np
import pytest
from fake_engine import FakeEngine
from test_session import idle, other, ready, run, until
from test_session_learning import topical


def _rank_correlation(a: list[float], b: list[float]) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


@run
async def test_the_language_model_reads_the_least_sure_first_pass_labels_first(session, fake):
    await ready(session)
    session.add_rows(topical(90))
    await idle(session)
    fake.gate.clear()  # the new version's language-model pass waits until every row has its first pass
    try:
        session.set_prompt(other("Route it, second version."))
        await until(lambda: session.prompt_status.version == 1)
        table = session.table
        await until(lambda: table.head_active and all(table.first_pass_label(r) for r in range(90)), 10)
        confidence = {table.texts[r]: float(table.first_pass_confidence()[r]) for r in range(90)}
        fake.order.clear()
    finally:
        fake.gate.set()
    await idle(session)
    read = [t for t in fake.order if t in confidence][1:]  # the first was handed out before any first pass
    assert len(read) == 89
    position = list(range(len(read)))
    rho = _rank_correlation(position, [confidence[t] for t in read])
    assert rho > 0.8  # file order: about 0
    median = float(np.median(list(confidence.values())))
    assert all(confidence[t] <= median for t in read[:20])
    # The latency chart plots in reading order: one point per row read, the newest last.
    assert len(table.latencies()) == 90


@run
async def test_save_after_stop_restarts_the_language_models_pass(session, fake):
    await ready(session)
    fake.batch_seconds = 0.02
    session.add_rows(topical(60))
    await until(lambda: session.table.count_scored() >= 4)
    session.stop()
    await idle(session)
    assert session.run_status.state == "stopped"
    session.set_prompt(other("Route it, after the stop."))  # Save and re-label
    await until(lambda: session.prompt_status.version == 1)
    await idle(session)
    assert session.table.count_scored() == 60 and session.run_status.state == "done"


@run
async def test_saving_the_same_prompt_after_stop_resumes_the_pass(session, fake):
    await ready(session)
    fake.batch_seconds = 0.02
    session.add_rows(topical(40))
    await until(lambda: session.table.count_scored() >= 4)
    session.stop()
    await idle(session)
    assert session.set_prompt(session.requested) is True
    await idle(session)
    assert session.table.count_scored() == 40 and session.run_status.state == "done"


@run
async def test_a_versions_score_is_its_final_accuracy_taken_when_the_labels_settle(session, fake):
    """The Versions table kept a mid-run 96.4 % while the Accuracy tab said 98.4 % before and after: the
    session scores a version once the run has completed and every refit after it has ended."""
    from triage_gui.session.evaluation import Evaluation, VersionScoring
    from triage_gui.session.gold import gold_report

    evaluation = Evaluation(session.table)
    VersionScoring(session, evaluation)
    announced = []
    evaluation.scored.connect(lambda s: announced.append((s, session.run_status.state, session.busy)))
    await ready(session)
    fake.batch_seconds = 0.005
    session.add_rows(topical(90))
    evaluation.choose("queue")
    await idle(session)
    await until(lambda: announced)
    score, state, busy = announced[0]  # untaught: taken once the first pass labelled every row (see below)
    assert len(announced) == 1 and score.measure.taught == 0
    assert score.measure.accuracy == gold_report(session.table, evaluation.gold).accuracy
    session.teaching.teach([0, 1, 2, 3, 4, 5], None)  # nothing taught: no new score
    session.teaching.teach([0, 1, 2], "billing")  # a new taught set: its own score, once settled
    await idle(session)
    await until(lambda: len(announced) == 2)
    score, state, busy = announced[1]
    assert (state, busy, score.measure.taught) == ("done", False, 3)
    assert score.measure.accuracy == gold_report(session.table, evaluation.gold).accuracy


def _stored_engine(fake, folder):
    import dataclasses

    return dataclasses.replace(fake.as_engine(), score_key=lambda scorer: "fake|" + scorer.salt, scores_dir=folder)


async def _label_in_new_session(fake, folder, n=40):
    from triage_gui.session.session import Session

    session = Session(_stored_engine(fake, folder), device="cpu", batch_size=4)
    try:
        await ready(session)
        session.add_rows(topical(n))
        await idle(session)
        table = session.table
        assert table.count_scored() == n
        return [table.logprobs(r) for r in range(n)], table.features.get(np.arange(n)), session.run_status.state
    finally:
        await session.close()
        session.join_threads()


def _reads_by_prompt(fake) -> dict[str, int]:
    """The tickets the fake language model read, by what it read them through (a field's prompt: its salt)."""
    out: dict[str, int] = {}
    for (salt, text), count in fake.scored.items():
        if "problem number" in text:
            out[salt] = out.get(salt, 0) + count
    return out


def _read_tickets(fake) -> int:
    return sum(count for (_, text), count in fake.scored.items() if "problem number" in text)


def test_reopening_a_file_reads_the_stored_scores_and_a_damaged_store_is_ignored(tmp_path, caplog):
    """Reopening the same file with the same prompt and model ran the language model over every row again
    (6 minutes in a walkthrough): the stored scores are read back, exactly, with no forward pass."""
    import asyncio
    import logging

    fake = FakeEngine()

    async def body():
        logprobs, features, _ = await _label_in_new_session(fake, tmp_path)
        assert _read_tickets(fake) == 40
        await until(lambda: list(tmp_path.glob("*.npz")), 10)  # written on the file thread as the run ended
        fake.scored.clear()
        again, again_features, state = await _label_in_new_session(fake, tmp_path)
        assert _read_tickets(fake) == 0 and state == "done"  # the fake scorer was not called for any ticket
        assert all(np.array_equal(a, b) for a, b in zip(logprobs, again)) and np.array_equal(features, again_features)
        store = next(tmp_path.glob("*.npz"))
        data = bytearray(store.read_bytes())
        data[len(data) // 2] ^= 0xFF  # one byte of the stored arrays damaged
        store.write_bytes(bytes(data))
        with caplog.at_level(logging.WARNING, logger="triage_gui.session.labelling_store"):
            third, _, _ = await _label_in_new_session(fake, tmp_path)
        assert _read_tickets(fake) == 40  # every ticket read again: the damaged store was not used
        assert any("ignored" in r.getMessage() for r in caplog.records)
        assert all(np.array_equal(a, b) for a, b in zip(logprobs, third))

    asyncio.run(asyncio.wait_for(body(), 60))


def test_reopening_a_file_with_a_prompt_of_two_fields_reads_every_fields_stored_scores(tmp_path):
    """A prompt with several fields: the further fields' scores were never stored, so a reopen read every ticket
    again for every field (minutes per field). Each field's scores are kept under its own key; a reopen reads
    every field's back, exactly, with no forward pass; a row short of one field's score is read for all."""
    import asyncio

    from test_session_fields import two_fields

    from triage_gui.session.session import Session

    fake, n = FakeEngine(), 24

    async def label(count: int):
        session = Session(_stored_engine(fake, tmp_path), device="cpu", batch_size=4)
        try:
            await ready(session, two_fields())
            session.add_rows(topical(count))
            await idle(session)
            await until(lambda: session.fields.settled)
            first = [session.table.logprobs(r) for r in range(count)]
            table = session.fields.table_of(1)
            assert table is not None
            second = [(table.logprobs(r), table.features.get(np.array([r]))) for r in range(count)]
            return first, second, session.run_status.state
        finally:
            await session.close()
            session.join_threads()

    async def body():
        first, second, _ = await label(n)
        assert sorted(_reads_by_prompt(fake).values()) == [n, n]  # each field read every ticket once
        await until(lambda: len(list(tmp_path.glob("*.npz"))) == 2, 10)  # a store per field
        fake.scored.clear()
        again, again_second, state = await label(n)
        assert _reads_by_prompt(fake) == {} and state == "done"  # no field read any ticket again
        assert all(np.array_equal(a, b) for a, b in zip(first, again))
        assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(second, again_second))
        fake.scored.clear()
        await label(n + 4)  # four more tickets: only those are read, for both fields
        assert sorted(_reads_by_prompt(fake).values()) == [4, 4]

    asyncio.run(asyncio.wait_for(body(), 60))


def test_a_save_that_changes_only_the_priority_reads_only_the_priority_again(tmp_path):
    """A Save of a prompt with several fields read every ticket again for every field, though the queue's part
    was unchanged: the language model's time after an edit was the sum of the fields'. The queue's scores are
    kept (this session's, not yet written, and the store's); only the priority is read, and every field's labels
    are those of a session that opens the new prompt from scratch."""
    import asyncio
    from dataclasses import replace

    from test_session_fields import two_fields

    from triage_gui.engine.prompt import PromptProfile
    from triage_gui.engine.table import decide
    from triage_gui.session.session import Session

    fake, n = FakeEngine(), 24
    queue, priority = two_fields().fields
    edited = PromptProfile.of_fields([queue, replace(priority, instruction="How soon must a person act?")], "Q and P")

    async def settle(session) -> list[list[str | None]]:
        await idle(session)
        await until(lambda: session.fields.settled and session.table.count_scored() == n)
        tables = [session.table, session.fields.table_of(1)]
        return [[decide(t, r).label for r in range(n)] for t in tables]

    async def body():
        session = Session(_stored_engine(fake, tmp_path / "one"), device="cpu", batch_size=4)
        try:
            await ready(session, two_fields())
            session.add_rows(topical(n))
            await settle(session)
            before = _reads_by_prompt(fake)
            assert sorted(before.values()) == [n, n]
            fake.scored.clear()
            session.set_prompt(edited)
            await until(lambda: session.prompt_status.version == 1)
            labels = await settle(session)
            after = _reads_by_prompt(fake)
            assert len(after) == 1 and list(after.values()) == [n]  # the priority alone, every ticket once
            assert next(iter(after)) not in before  # through its new prefix
            fake.scored.clear()
            session.set_prompt(PromptProfile.of_fields(edited.fields[::-1], "P and Q"))  # a Save that moved a field
            await until(lambda: session.prompt_status.version == 2)
            await settle(session)
            assert _reads_by_prompt(fake) == {}  # each field's scores are its own, wherever it stands
        finally:
            await session.close()
            session.join_threads()
        fresh = Session(_stored_engine(FakeEngine(), tmp_path / "two"), device="cpu", batch_size=4)
        try:
            await ready(fresh, edited)
            fresh.add_rows(topical(n))
            assert await settle(fresh) == labels
        finally:
            await fresh.close()
            fresh.join_threads()

    asyncio.run(asyncio.wait_for(body(), 60))


def test_a_save_that_changes_only_the_priority_leaves_the_queue_read_while_the_priority_is_read(tmp_path):
    """W17: after a Save that changed only the tone, the queue looked unread for minutes ("Language model: read 7
    tickets", "not read this ticket yet") and, the language model's reading used for labels, its labels went back
    to the first pass's until the tone's reading passed each row: the queue's kept scores were applied only as the
    run reached the row. They are applied with the new version; the run reads the priority of every row, and the
    run is done only once it has."""
    import asyncio
    from dataclasses import replace

    from test_session_fields import two_fields

    from triage_gui.engine.prompt import PromptProfile
    from triage_gui.engine.table import decide
    from triage_gui.session.session import Session

    fake, n = FakeEngine(), 24
    queue, priority = two_fields().fields
    edited = PromptProfile.of_fields([queue, replace(priority, instruction="How soon must a person act?")], "Q and P")

    async def body():
        session = Session(_stored_engine(fake, tmp_path / "one"), device="cpu", batch_size=4)
        try:
            await ready(session, two_fields())
            session.add_rows(topical(n))
            await idle(session)
            await until(lambda: session.fields.settled and session.table.count_scored() == n)
            table = session.table
            before = [decide(table, r) for r in range(n)]
            assert all(d.source != "first pass" and not d.stale for d in before), before  # the model's labels
            fake.scored.clear()
            fake.gate.clear()  # the language model reads nothing more for now
            session.set_prompt(edited)
            await until(lambda: session.prompt_status.version == 1 and session.running)
            await asyncio.sleep(0.2)
            now = [decide(table, r) for r in range(n)]
            assert all(table.scored(r) for r in range(n))  # the queue's, kept, at once
            assert [(d.label, d.source, d.stale) for d in now] == [(d.label, d.source, d.stale) for d in before]
            assert session.run_status.labelled == 0  # every row still waits for its priority
            fake.gate.set()
            await idle(session)
            await until(lambda: session.fields.settled)
            assert _reads_by_prompt(fake) and list(_reads_by_prompt(fake).values()) == [n]  # the priority, once each
            assert session.run_status.state == "done" and session.run_status.labelled == n
            assert all(len(read) == n for read in session.fields.read)
        finally:
            fake.gate.set()
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 60))


@run
async def test_an_untaught_version_is_scored_once_the_first_pass_has_labelled_every_gold_row(session, fake):
    """Untaught, the language model's heads weigh 0, so the first pass's labels are final: the Versions table kept
    no score for a version saved over (or stopped) before the reading ended. The score is taken while the model
    still reads, and it is the accuracy the lead sees after "All labelled"."""
    from triage_gui.session.evaluation import Evaluation, VersionScoring
    from triage_gui.session.gold import gold_report

    evaluation = Evaluation(session.table)
    VersionScoring(session, evaluation)
    announced = []
    evaluation.scored.connect(lambda s: announced.append((s, session.table.count_scored())))
    await ready(session)
    await idle(session)
    table = session.table
    fake.gate.clear()  # the language model reads nothing more
    try:
        session.add_rows(topical(90))
        evaluation.choose("queue")
        await until(lambda: announced, 8)
        score, read = announced[0]
        assert read == 0 and session.running and score.measure.taught == 0 and score.measure.gold_rows == 90
        assert score.measure.accuracy == gold_report(table, evaluation.gold).accuracy
    finally:
        fake.gate.set()
    await idle(session)
    assert session.run_status.state == "done" and table.count_scored() == 90 and len(announced) == 1
    assert gold_report(table, evaluation.gold).accuracy == score.measure.accuracy  # what "All labelled" shows


@run
async def test_a_taught_version_is_scored_only_once_the_language_model_has_read_every_row(session, fake):
    """Taught, the reading may change labels (its heads join where the taught tickets show they help): the
    first pass is no final label, and a Stop before the reading ends leaves the version unscored."""
    from triage_gui.session.evaluation import Evaluation, VersionScoring

    evaluation = Evaluation(session.table)
    VersionScoring(session, evaluation)
    announced = []
    evaluation.scored.connect(announced.append)
    await ready(session)
    fake.batch_seconds = 0.02
    session.add_rows(topical(60))
    evaluation.choose("queue")
    session.teaching.teach([0, 1, 2], "billing")
    await until(lambda: session.table.count_scored() >= 8)
    session.stop()
    await idle(session)
    assert session.run_status.state == "stopped" and session.table.count_current() == 60
    assert evaluation.coverage() == (session.table.count_scored(), 60) and not announced
    session.resume()
    await idle(session)
    await until(lambda: announced)
    assert announced[0].measure.taught == 3 and session.run_status.state == "done"


def _wrong_engine():
    """The fake engine with a language model that is confidently wrong on every ticket: its prompt puts 0.999 on
    a label that is never the ticket's (one of the other two, by a hash of the text), its hidden state is noise."""
    import hashlib

    from fake_engine import DIM, FakeScorer
    from test_session_learning import WORDS

    from triage_gui.engine.table import TicketScore

    class WrongScorer(FakeScorer):
        def _score(self, text: str) -> TicketScore:
            last = text.rsplit(" ", 1)[-1]
            truth = int(last) % 3 if last.isdigit() else 0
            digest = hashlib.sha256(text.encode()).digest()
            wrong = (truth + 1 + digest[0] % 2) % 3
            names = list(WORDS)
            probs = np.full(3, 0.0005)
            probs[wrong] = 0.999
            probs = probs[[names.index(n) for n in self.labels]] if set(self.labels) == set(names) else probs
            noise = (np.frombuffer(digest[:DIM], np.uint8).astype(np.float32) - 128) / 64
            label = self.labels[int(np.argmax(probs))]
            return TicketScore(label, 0.999, probs.tolist(), np.log(probs).tolist(), 1.0, features=noise)

    fake = FakeEngine()
    build = fake.build
    fake.build = lambda loaded, profile, calibrate=True: WrongScorer(fake, build(loaded, profile, calibrate).profile)
    return fake


@pytest.mark.parametrize("per_label", [0, 10])
def test_a_confidently_wrong_language_model_leaves_the_sessions_labels_no_worse_than_the_first_pass(per_label):
    """The window's path (the session, its refits and out-of-fold weights): after "All labelled" the accuracy
    against gold is at least the first pass's, untaught and with 10 taught per label."""
    import asyncio

    from test_window_refinement import PROFILE

    from triage_gui.session.session import Session

    async def body():
        fake = _wrong_engine()
        session = Session(fake.as_engine(), device="cpu", batch_size=8)
        try:
            await ready(session, PROFILE)
            session.add_rows(topical(150))
            await idle(session)
            table = session.table
            for row in range(3 * per_label):  # rows 0, 1, 2 ... are billing, technical, account in turn
                session.teaching.teach([row], table.value(row, "queue"))
            await idle(session)
            rest = range(3 * per_label, 150)
            truth = [table.value(r, "queue") for r in rest]
            assert table.count_scored() == 150 and not session.running
            llm = np.mean([table.llm_label(r) == t for r, t in zip(rest, truth)])
            first = np.mean([table.first_pass_label(r) == t for r, t in zip(rest, truth)])
            final = np.mean([table.label(r) == t for r, t in zip(rest, truth)])
            assert llm == 0 and first > 0.6  # the language model is always wrong, the first pass a classifier
            assert final >= first
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 60))
