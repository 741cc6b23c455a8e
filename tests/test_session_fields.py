"""A prompt with several fields in the session (issue 34): every field gets its first pass, each exactly the
labels ``classify --fast`` gives that field (``classify.run_fields``, on the same rows with the same encoder),
the encoder embedding each ticket once for all fields; teaching one field leaves the other's labels as they
were. On the fake engine, in seconds."""

from __future__ import annotations

import argparse
import csv

from fake_engine import FakeEncoder, FakeEngine
from test_session import idle, ready, run
from test_session_learning import topical

from triage_gui.commands import classify
from triage_gui.engine.prompt import Example, Field, Label, PromptProfile
from triage_gui.engine.table import TicketTable, decide

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


def fast_labels(profile: PromptProfile, n: int, tmp_path, monkeypatch) -> list[dict[str, str]]:
    """What ``classify --fast`` writes for these rows, with the fake encoder in place of the bundled one."""
    table = TicketTable()
    table.add(topical(n))
    table.start_version(0, profile.label_names, [])
    monkeypatch.setattr(classify, "load_encoder_for", lambda args: FakeEncoder(FakeEngine()))
    args = argparse.Namespace(
        train=None, train_label=None, fast=True, no_learning=False, ray=None, batch_size=4, baseline=False,
        no_taught=False, encoder="bundled",
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
