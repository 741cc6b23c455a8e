"""A prompt with several fields in the session (issue 34): every field gets its first pass, each exactly the
labels ``classify --fast`` gives that field (``classify.run_fields``, on the same rows with the same encoder),
the encoder embedding each ticket once for all fields; the language model reads every field through its own
prefix, and once every row is read a field's labels are exactly those ``classify`` gives it; teaching one field
leaves the other's labels as they were. On the fake engine, in seconds."""

from __future__ import annotations

import argparse
import asyncio
import csv

from fake_engine import FakeEncoder, FakeEngine, FakeModel, FakeScorer
from test_session import idle, ready, run, until
from test_session_learning import topical

from triage_gui.commands import classify
from triage_gui.engine.prompt import Example, Field, Label, PromptProfile
from triage_gui.engine.table import TicketTable, decide
from triage_gui.session.session import Session

QUEUE = Field(
    "queue",
    "Route the ticket.",
    [Label("billing", "refund invoice fee payment"), Label("technical", "crash error bug"), Label("account", "login")],
    [Example("refund for the invoice", "billing"), Example("the app shows an error", "technical")],
)
PRIORITY = Field(
    "priority",
    "How urgent is it?",
    [Label("low", "a question"), Label("high", "broken, money lost")],
    [Example("the app crash lost my work", "high"), Example("how do I change my address", "low")],
    ordered=True,
    taught=[Example("refund problem number 0", "high")],
)


def two_fields() -> PromptProfile:
    return PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority")


def fast_labels(
    profile: PromptProfile, n: int, tmp_path, monkeypatch, fast: bool = True, encoder: str = "bundled"
) -> list[dict[str, str]]:
    """What ``classify --fast`` (or without ``fast``: ``classify`` with the fake language model) writes for
    these rows, with the fake encoder in place of the bundled one (``encoder`` "none": none)."""
    table = TicketTable()
    table.add(topical(n))
    table.start_version(0, profile.label_names, [])
    fake_encoder = None if encoder == "none" else FakeEncoder(FakeEngine())
    monkeypatch.setattr(classify, "load_encoder_for", lambda args, table=None: fake_encoder)
    monkeypatch.setattr(classify, "load_model_said", lambda args: FakeModel("fake-model"))
    monkeypatch.setattr(classify, "scorer_for", lambda args, loaded, single: FakeScorer(FakeEngine(), single))
    args = argparse.Namespace(
        train=None, train_label=None, fast=fast, no_learning=False, ray=None, batch_size=4, baseline=False,
        no_taught=False, encoder=encoder,
    )  # fmt: skip
    out = tmp_path / "fast.csv"
    assert classify.run_fields(args, profile, table, str(out)) == 0
    with open(out, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def field_cells(table: TicketTable, n: int) -> list[tuple[str | None, str, str]]:
    out = []
    for row in range(n):
        d = decide(table, row)
        out.append((d.written, "" if d.confidence is None else f"{d.confidence:.4f}", d.source.shown))
    return out


def test_every_field_gets_the_first_pass_classify_fast_gives_it(tmp_path, monkeypatch):
    profile, n = two_fields(), 40
    expected = fast_labels(profile, n, tmp_path, monkeypatch)

    @run
    async def body(session, fake):
        await ready(session, profile)
        session.add_rows(topical(n))
        await idle(session)
        second = session.fields.table_of(1)
        assert second is not None and len(second) == n and session.fields.names == ["priority"]
        got = field_cells(second, n)
        want = [(r["priority_label"], r["priority_confidence"], r["priority_source"]) for r in expected]
        assert got == want
        assert {label for label, _, _ in got} == {"low", "high"} and got[0][2] == "taught"
        tickets = {t: c for t, c in fake.encoded.items() if "problem number" in t}
        assert len(tickets) == n and set(tickets.values()) == {1}  # embedded once for both fields

    body()


def test_the_language_model_reads_every_field_and_gives_the_labels_classify_gives_it(tmp_path, monkeypatch):
    profile, n = two_fields(), 40
    expected = fast_labels(profile, n, tmp_path, monkeypatch, fast=False)

    @run
    async def body(session, fake):
        await ready(session, profile)
        session.add_rows(topical(n))
        await idle(session)
        salts = {profile.field_profile(0).content_hash(): "queue", profile.field_profile(1).content_hash(): "priority"}
        read = {name: sum(1 for (salt, text) in fake.scored if salts.get(salt) == name and "problem number" in text)
                for name in salts.values()}  # fmt: skip
        assert read == {"queue": n, "priority": n}  # each ticket read once through each field's own prefix
        second = session.fields.table_of(1)
        assert second is not None and second.count_scored() == n  # the priority's own scores, in its table
        assert len(session.fields.latencies(1)) == n
        want = [(r["priority_label"], r["priority_confidence"], r["priority_source"]) for r in expected]
        assert field_cells(second, n) == want

    body()


def test_without_a_sentence_encoder_every_field_is_labelled_from_the_language_models_reading(tmp_path, monkeypatch):
    """``--encoder none`` (or an encoder that failed to load): the queue column filled from the language model's
    reading and the priority column stayed empty for good, its fit waiting for embeddings that never come. Each
    further field is now labelled as ``classify`` labels it without an encoder."""
    profile, n = two_fields(), 24
    expected = fast_labels(profile, n, tmp_path, monkeypatch, fast=False, encoder="none")

    async def body() -> None:
        fake = FakeEngine()
        session = Session(fake.as_engine(), device="cpu", batch_size=4, encoder="none")
        try:
            await ready(session, profile)
            session.add_rows(topical(n))
            await idle(session)
            second = session.fields.table_of(1)
            assert session.encoder is None and second is not None and second.count_scored() == n
            want = [(r["priority_label"], r["priority_confidence"], r["priority_source"]) for r in expected]
            assert field_cells(second, n) == want
            assert {label for label, _, _ in want} == {"low", "high"}
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 30))


def test_the_baseline_compares_every_field_with_its_full_re_encode():
    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.set_baseline(True)
        session.add_rows(topical(12))
        await idle(session)
        assert session.fields.agreement(1) == (12, 12)
        salt = two_fields().field_profile(1).content_hash()
        assert sum(1 for (s, text) in fake.full if s == salt and "problem number" in text) == 12
        second = session.fields.table_of(1)
        assert second is not None and second.agree(3) is True

    body()


def test_stop_stops_every_field_and_resume_reads_on():
    @run
    async def body(session, fake):
        await ready(session, two_fields())
        fake.batch_seconds = 0.05
        session.add_rows(topical(40))
        await until(lambda: session.table.count_scored() >= 4)
        session.stop()
        await idle(session)
        read = len(session.fields.read[0])
        assert read == session.table.count_scored() < 40  # the further field read what the first read
        fake.batch_seconds = 0.0
        session.resume()
        await idle(session)
        assert len(session.fields.read[0]) == session.table.count_scored() == 40

    body()


def test_teaching_one_field_leaves_the_others_labels_as_they_were():
    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(30))
        await idle(session)
        queue = [session.table.label(r) for r in range(30)]
        second = session.fields.table_of(1)
        assert second is not None
        session.fields.teach(1, [session.table.texts[5]], "low")
        await idle(session)
        second = session.fields.table_of(1)
        assert second is not None and second.label(5) == "low" and decide(second, 5).taught
        assert [session.table.label(r) for r in range(30)] == queue  # the first field as it was
        labels = [second.label(r) for r in range(30)]
        session.teaching.teach([7], "billing")
        await idle(session)
        assert session.table.label(7) == "billing"
        after = session.fields.table_of(1)
        assert after is second and [after.label(r) for r in range(30)] == labels  # the priority as it was

    body()


def test_a_one_field_prompt_has_no_further_fields():
    @run
    async def body(session, fake):
        await ready(session)
        session.add_rows(topical(20))
        await idle(session)
        assert session.fields.names == [] and session.fields.table_of(1) is None

    body()


def test_a_fit_of_the_old_reading_landing_after_a_new_version_does_not_count_its_rows_as_read():
    """A Save's rebuild can bring the new scorers while a fit of the old reading waits on the engine thread:
    landing after, it counted every row as read for the new version, so the field never refitted on the new
    reading and its version was scored on the old one."""

    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(20))
        await idle(session)
        fields = session.fields
        assert fields.settled and len(fields.read[0]) == 20
        fields.refit()  # a fit of this reading on its way to the engine thread
        await asyncio.sleep(0)  # it captured the reading and waits for the thread
        fields.new_version(list(fields.scorers))  # the new version's scorers arrive before it lands
        await idle(session)
        assert not fields.settled  # nothing of the new version is read yet

    body()


def test_a_further_fields_teach_shows_at_once_before_its_refit_lands():
    """With the language model reading, a further field's refit waits for the engine thread (3-8 s on a busy
    CPU): the taught label and its ✓ show at once (the table's cell and the detail pane read this), and a
    forgotten one loses its ✓ at once; the field's shown table is left as it was (the flips' base)."""

    @run
    async def body(session, fake):
        await ready(session, two_fields())
        session.add_rows(topical(30))
        await idle(session)
        shown = session.fields.table_of(1)
        assert shown is not None
        before = session.field_decision(1, 5, 0.5)
        assert before is not None and not before.taught
        other = next(label for label in ("low", "high") if label != before.label)
        session.teach_field(1, [5], other)  # no await: the refit has not landed
        now = session.field_decision(1, 5, 0.5)
        assert now is not None and (now.label, now.taught, now.source.shown) == (other, True, "taught")
        assert session.fields.table_of(1) is shown and not decide(shown, 5).taught  # not written
        assert session.field_decision(1, 6, 0.5) == decide(shown, 6, 0.5)  # the other rows as they were
        await idle(session)
        landed = session.fields.table_of(1)
        assert landed is not None and decide(landed, 5).taught and landed.label(5) == other
        assert session.field_decision(1, 5, 0.5) == decide(landed, 5, 0.5)  # the refit agrees
        session.teach_field(1, [5], None)  # Forget
        gone = session.field_decision(1, 5, 0.5)
        assert gone is not None and not gone.taught and gone.stale
        await idle(session)
        final = session.fields.table_of(1)
        assert final is not None and session.field_decision(1, 5, 0.5) == decide(final, 5, 0.5)
        assert not decide(final, 5).taught

    body()
