"""Teaching is undoable: each teach, forget, forget-all, import and learning from gold is one step that
puts back exactly the taught labels it changed (a re-teach from A to B undoes to A), and the relabel
follows as after any teach. Qt-free: the session's history on the fake engine, in milliseconds."""

from __future__ import annotations

from test_session import idle, ready, rows, run

from triage_gui.engine.table import NewRow
from triage_gui.session.gold import GoldColumn
from triage_gui.session.undo import TaughtHistory, describe, diff


def test_a_step_keeps_only_what_changed_and_names_it():
    before = {"a": "billing", "b": "technical", "c": "account"}
    after = {"a": "technical", "c": "account", "d": "billing"}
    assert diff(before, after) == {"a": ("billing", "technical"), "b": ("technical", None), "d": (None, "billing")}
    three = {t: (None, "billing") for t in "xyz"}
    assert describe("teach", three) == "teach 3 tickets 'billing'"
    assert describe("teach", {"x": ("billing", None)}) == "forget 1 ticket"
    assert describe("accept", three) == "accept 'billing' for 3 tickets"
    assert describe("gold", three) == "learn 3 tickets from the gold column"
    applied = []
    history = TaughtHistory(applied.append)
    history.record("teach", {})  # nothing changed: nothing to undo
    assert not history.done and history.undo() is None


def taught(session) -> dict[str, str]:
    return dict(session.teaching.taught)


@run
async def test_each_teach_is_one_step_and_undo_restores_the_label_before(session, fake):
    await ready(session)
    session.add_rows(rows(9))
    await idle(session)
    teaching, table = session.teaching, session.table
    teaching.teach([0], "account")
    first = taught(session)
    teaching.teach([0, 1, 2], "billing")  # a multi-row teach, ticket 0 re-taught from account
    assert teaching.history.undo_text == "teach 3 tickets 'billing'" and len(teaching.history.done) == 2
    saved = []
    session.save_taught.connect(lambda: saved.append(1))
    teaching.history.undo()
    assert taught(session) == first  # back to account, not to untaught
    assert table.taught_label(0) == "account" and table.taught_label(1) is None and table.taught_label(2) is None
    assert saved  # kept with the prompt, as after any teach
    await idle(session)
    assert teaching.status.state == "ready" and teaching.status.taught == 1  # the refit followed
    teaching.history.redo()
    assert [table.taught_label(r) for r in range(3)] == ["billing"] * 3
    teaching.history.undo()
    teaching.history.undo()
    assert taught(session) == {} and table.taught_label(0) is None
    assert teaching.history.undo() is None  # nothing more
    teaching.history.redo()
    teaching.teach([5], "technical")  # a new step drops what could be redone
    assert not teaching.history.undone and teaching.history.redo() is None
    await idle(session)


@run
async def test_forget_forget_all_accept_import_and_gold_each_undo_as_one_step(session, fake):
    await ready(session)
    gold = ["account", "billing", "", "technical", "nonsense", "account"]
    session.add_rows([NewRow({"text": f"ticket {i}", "gold": g}, f"ticket {i}") for i, g in enumerate(gold)])
    await idle(session)
    teaching, table = session.teaching, session.table
    teaching.teach([0, 1], "billing")
    teaching.teach([2], "technical")
    start = taught(session)
    steps = [
        ("teach", lambda: teaching.teach([0], None), "forget 1 ticket"),
        ("forget all", teaching.forget_all, "forget all 3 tickets"),
        ("accept", lambda: teaching.accept([3, 4]), None),
        (
            "import",
            lambda: teaching.add_items([("not loaded", "account"), (table.texts[2], "billing")]),
            "import 2 tickets",
        ),
    ]
    for name, operation, text in steps:
        done = len(teaching.history.done)
        operation()
        assert len(teaching.history.done) == done + 1, name
        if text is not None:
            assert teaching.history.undo_text == text
        after = taught(session)
        teaching.history.undo()
        assert taught(session) == start, name
        assert [table.taught_label(r) for r in range(6)] == [start.get(t) for t in table.texts[:6]], name
        teaching.history.redo()
        assert taught(session) == after, name
        teaching.history.undo()
    shown = {table.label(3), table.label(4)}
    accepted = teaching.accept([3, 4])
    assert sum(accepted.values()) == 2 and set(accepted) == shown
    teaching.history.undo()
    assert teaching.learn_from(GoldColumn("gold")) == 4  # rows 0, 1, 3 and 5 map to a label
    assert teaching.history.undo_text == "learn 3 tickets from the gold column"  # 1 was taught billing already
    teaching.history.undo()
    assert taught(session) == start
    await idle(session)


@run
async def test_a_teach_that_answers_random_checks_says_its_undo_takes_them_back(session, fake):
    """W9: "Undo teach 1 ticket 'technical'" also took a random check back (the estimate went from 5 checks to 4)
    without a word; the step names the checks it answered, and a teach outside the sample names none."""
    await ready(session)
    session.add_rows(rows(30))
    await idle(session)
    drawn = session.draw_checks(0)
    outside = next(r for r in range(30) if r not in drawn and session.table.taught_label(r) is None)
    session.teach([outside], "billing")
    assert session.history.undo_text == "teach 1 ticket 'billing'"
    session.teach(drawn[:1], "billing")
    assert session.history.undo_text == "teach 1 ticket 'billing' with its random check"
    session.accept(drawn[1:4])
    assert session.history.undo_text.endswith(" with 3 random checks")
    assert session.check_status.checked == 4
    session.history.undo()
    assert session.check_status.checked == 1  # what the step said it would take back
