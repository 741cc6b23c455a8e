"""The refinement's words, Qt-free: counted against the first pass and gold, the verdict's own evidence
where there is no gold, and the one line when its heads carry no weight."""

from __future__ import annotations

from test_session import idle, ready, run
from test_session_learning import topical

from triage_gui.engine.learning import RefinementVerdict
from triage_gui.session.gold import GoldColumn
from triage_gui.session.refinement import NOT_USED, refinement_changes, refinement_verdict

JUDGED = "each judged by a model that did not see it"  # "out of fold", in a lead's words


def test_the_verdict_follows_the_language_model_heads_weights():
    from triage_gui.engine.learning import llm_heads

    heads = llm_heads()
    assert refinement_verdict({h: 0.0 for h in heads} | {"words": 1.0}, True).used is False
    assert refinement_verdict({heads[0]: 0.1, "words": 0.9}, True).used is True
    assert refinement_verdict(None, False).used is True  # the prompt's own labels
    # the last refit's out-of-fold verdict gives the evidence and the reason the window says
    doubt = f"not used: on 40 taught tickets, {JUDGED}, it fixed 6 and broke 2, not clearly more fixed than broken"
    judged = refinement_verdict({h: 0.0 for h in heads}, True, RefinementVerdict(False, 6, 2, 40, doubt))
    assert (judged.fixed, judged.broken, judged.evidence) == (6, 2, 40)
    from triage_gui.session.refinement import Changes

    assert Changes(100, 0, verdict=judged).words() == (
        f"Language model: read 100 tickets; not used for labels yet — on 40 taught tickets, {JUDGED}, it fixed 6"
        " and broke 2, not clearly more fixed than broken."
    )


@run
async def test_changes_are_counted_against_the_first_pass_and_gold(session, fake):
    import pytest

    from triage_gui.engine.learning import _heads

    def weights(train):  # the language model's heads weighed in (before the gate, and more): changes to count
        return {**_heads.measured_weights(train), "hidden": 0.5}  # (its fake state is noise: it moves labels)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_heads, "default_weights", weights)
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
    judged = RefinementVerdict(True, 4, 1, 7, f"used: on 7 taught tickets, {JUDGED}, it fixed 4 and broke 1")
    no_gold = refinement_changes(table, judged, None)
    said = f"; on 7 tickets you taught or checked, {JUDGED}, its reading made 4 right and 1 wrong."
    assert no_gold.words().endswith(said) and no_gold.words(short=True).endswith(said)  # the run bar says it too
    unused = refinement_changes(table, RefinementVerdict(False, 0, 0, 0, NOT_USED), gold)
    assert unused.words() == (
        "Language model: read 90 tickets; not used for labels yet — no evidence it helps on these tickets."
    )
