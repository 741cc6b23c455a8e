"""The refinement's words, Qt-free: counted against the first pass and gold, the verdict's own evidence
where there is no gold, and the one line when its heads carry no weight."""

from __future__ import annotations

from test_session import idle, ready, run
from test_session_learning import topical

from triage_gui.session.gold import GoldColumn
from triage_gui.session.refinement import Verdict, refinement_changes, refinement_verdict


def test_the_verdict_follows_the_language_model_heads_weights():
    from triage_gui.engine.learning import llm_heads

    heads = llm_heads()
    assert refinement_verdict({h: 0.0 for h in heads} | {"words": 1.0}, True).used is False
    assert refinement_verdict({heads[0]: 0.1, "words": 0.9}, True).used is True
    assert refinement_verdict(None, False).used is True  # the prompt's own labels


@run
async def test_changes_are_counted_against_the_first_pass_and_gold(session, fake):
    await ready(session)
    session.add_rows(topical(90))
    await idle(session)
    table = session.table
    gold = GoldColumn("queue")
    changes = refinement_changes(table, session.refinement(), gold)
    pairs = [(table.first_pass_label(r), table.label(r), table.value(r, "queue")) for r in range(90)]
    moved = [(first, final, truth) for first, final, truth in pairs if first and final and first != final]
    assert changes.read == 90 and changes.changed == len(moved) > 0
    assert changes.fixed == sum(final == truth for _, final, truth in moved)
    assert changes.broken == sum(first == truth for first, _, truth in moved)
    no_gold = refinement_changes(table, Verdict(True, fixed=4, broken=1, evidence=7), None)
    assert no_gold.words().endswith("; on 7 tickets you checked or taught, its reading made 4 right and 1 wrong.")
    unused = refinement_changes(table, Verdict(False, reason="no evidence it helps on these tickets"), gold)
    assert unused.words() == (
        "Language model: read 90 tickets; not used for labels yet — no evidence it helps on these tickets."
    )
