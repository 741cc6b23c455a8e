"""Walkthrough W9, on the fake session: the sample tickets (gold ``team``: billing, technical, account) were
open under the two-field bank prompt, so no column was offered as gold; File › Open prompt… of the support
prompt, whose labels are the team column's values, left Gold at (none) and the Accuracy tab empty. A gold
column is looked for again with each new set of labels, unless the lead chose one (or none) by hand."""

from __future__ import annotations

from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.engine.table import NewRow

TEAMS = ["cards", "cash", "fees"]


def pasted(qtbot, window) -> None:
    rows = [NewRow({"text": f"ticket {i}", "team": TEAMS[i % 3]}, f"ticket {i}") for i in range(30)]
    window.session.paste(rows, "text")
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)
    assert not window.evaluation.detect(window.session.text_column)  # as when the file was read: none fits


def saved_with(qtbot, window, names: list[str]) -> None:
    labels = [Label(name, f"about {name}") for name in names]
    window.editor.set_profile(PromptProfile("Which team answers this ticket?", labels))
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.table.labels == names, timeout=10_000)
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)


def test_a_prompt_whose_labels_are_a_columns_values_offers_that_column_as_gold(qtbot, window):
    pasted(qtbot, window)
    assert window.evaluation.gold is None  # billing / technical / account: not the team column's values
    saved_with(qtbot, window, TEAMS)
    assert window.evaluation.gold is not None and window.evaluation.gold.column == "team"
    assert window.tickets.gold_combo.currentText() == "team"


def test_a_gold_column_the_lead_set_to_none_stays_none_under_a_new_prompt(qtbot, window):
    pasted(qtbot, window)
    window.evaluation.choose(None)  # the lead's (none)
    saved_with(qtbot, window, TEAMS)
    assert window.evaluation.gold is None


def test_a_gold_column_found_under_other_labels_goes_when_it_holds_none_of_the_new_ones(qtbot, window):
    """W11: the sample's team column, found as gold under the support prompt, stayed Gold under a prompt whose
    labels it holds none of, and the Accuracy tab said "no ticket with a gold label is labelled yet". Found (not
    chosen), it goes then; a label renamed keeps it (the column still holds the other labels)."""
    pasted(qtbot, window)
    saved_with(qtbot, window, TEAMS)
    assert window.evaluation.gold is not None and window.evaluation.gold.column == "team"
    saved_with(qtbot, window, ["cards", "cash", "charges"])  # one label renamed: the column still tells the rest
    assert window.evaluation.gold is not None and window.evaluation.gold.column == "team"
    saved_with(qtbot, window, ["urgent", "normal"])  # none of the team column's values
    assert window.evaluation.gold is None
    assert window.tickets.gold_combo.currentText() != "team"
    saved_with(qtbot, window, TEAMS)  # found again under labels it holds
    assert window.evaluation.gold is not None and window.evaluation.gold.column == "team"
