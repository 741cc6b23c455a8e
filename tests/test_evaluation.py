"""The evaluation document without a window: gold detected, mappings remembered per header, accuracy per
version compared like with like, flips."""

from __future__ import annotations

import asyncio

from test_session import idle, other, ready, run

from triage_gui.engine.table import NewRow
from triage_gui.session.evaluation import Evaluation


def tickets(n: int) -> list[NewRow]:
    names = ["billing", "technical", "account"]
    values = [{"text": f"ticket {i}", "team": names[i % 3], "queue": f"Q{i % 3}"} for i in range(n)]
    return [NewRow(v, v["text"]) for v in values]


@run
async def test_gold_is_detected_mapped_and_scored_per_version(session, fake):
    evaluation = Evaluation(session.table)
    changes = []
    evaluation.gold_changed.connect(changes.append)
    await ready(session)
    session.add_rows(tickets(30))
    await idle(session)
    assert evaluation.detect(session.text_column) and evaluation.gold.column == "team"
    assert evaluation.needs_mapping("queue") == (0, 30)
    evaluation.choose("queue", {"q0": "billing", "q1": "technical", "q2": ""})
    assert evaluation.needs_mapping("queue") is None  # remembered for this header
    assert evaluation.gold.label_for("Q1", session.table.labels) == "technical"
    evaluation.choose("team")
    first = evaluation.record(session.prompt_status.version, taught=0)
    assert first is not None and first.rows == 30 and [c.column for c in changes] == ["team", "queue", "team"]
    session.set_prompt(other("Second version."))
    await asyncio.sleep(0)
    await idle(session)
    evaluation.version_applied(session.prompt_status.version)
    assert evaluation.previous == first
    assert "since version 1 (same gold rows and taught set)" in evaluation.comparison(0.5, taught=0)
    assert "not comparable with version 1" in evaluation.comparison(0.5, taught=3)
    flips, count = evaluation.flips()
    assert count == len(flips) and all(old != new for _, _, old, new in flips)
    evaluation.cleared()
    assert evaluation.gold is None and evaluation.previous is None
