"""The window's session reads a further field through that field's own cached prefix with the real model (issue
34): once every row is read, the priority's labels, confidences and sources are those ``classify`` gives the
one-field prompt holding the priority alone (the same tickets, the same taught ticket); with the baseline on,
every field's cached label is its full re-encode's. The bundled model and encoder, 6 tickets."""

from __future__ import annotations

import argparse
import asyncio

from helpers import banking_tickets
from test_classify_fields import PRIORITY, QUEUES
from test_session import until
from test_session_fields import field_cells

from triage_gui.engine.prompt import Example, Field, PromptProfile
from triage_gui.engine.table import NewRow, TicketTable
from triage_gui.session.engine import Engine
from triage_gui.session.session import Session

N = 6


def classify_alone(single: PromptProfile, texts: list[str], loaded) -> list[tuple[str | None, str, str]]:
    """What ``classify`` gives the one-field prompt ``single`` on these tickets (its own path, in this process:
    a subprocess cost a model load)."""
    from triage_gui.commands import classify
    from triage_gui.engine.model import load_encoder
    from triage_gui.engine.scoring import Scorer

    table = TicketTable()
    table.add([NewRow({"id": f"T{i}", "text": t}, t) for i, t in enumerate(texts)])
    args = argparse.Namespace(ray=None, batch_size=4, baseline=False, no_learning=False, train=None, no_taught=False)
    taught = classify.taught_tickets(args, single)
    classify.label_table(args, table, single, taught, Scorer(loaded, single), load_encoder("bundled", "cpu"))
    return field_cells(table, len(texts))


def test_a_further_field_read_by_the_language_model_gets_classifys_labels(loaded):
    texts = banking_tickets(N)
    queue = PromptProfile.load(QUEUES).fields[0]
    queue.name = "queue"
    priority = Field(**{**vars(PRIORITY), "taught": [Example(texts[0], "high")]})
    two = PromptProfile.of_fields([queue, priority], "Queue and priority")
    alone = classify_alone(two.field_profile(1), texts, loaded)
    real = Engine.real()
    engine = Engine(lambda spec, device, progress: loaded, real.build, real.load_encoder)

    async def body() -> None:
        session = Session(engine, device="cpu", batch_size=4)
        try:
            session.set_baseline(True)
            session.set_prompt(two)
            session.load_model("bundled")
            await until(lambda: session.prompt_status.state == "ready", 120)
            session.add_rows([NewRow({"id": f"T{i}", "text": t}, t) for i, t in enumerate(texts)])
            await until(lambda: session.run_status.state == "done" and not session.busy, 240)
            second = session.fields.table_of(1)
            assert second is not None and second.count_scored() == N  # read through the priority's own prefix
            assert field_cells(second, N) == alone
            assert session.fields.agreement(1) == (N, N)  # the priority's cached labels: its full re-encode's
            assert all(session.table.agree(r) for r in range(N))  # and the queue's
            assert len(session.fields.latencies(1)) == N and min(session.fields.latencies(1)) > 0
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 400))
