"""The language model's pass as a lead sees it: the least sure rows read first, a reopened file read from
the stored scores, a version scored on its final labels, and a Save after Stop reading again."""

from __future__ import annotations

import numpy as np
from fake_engine import FakeEngine  # noqa: F401  (the fixture's engine)
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
    assert _rank_correlation(position, [confidence[t] for t in read]) > 0.8  # file order: about 0
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
