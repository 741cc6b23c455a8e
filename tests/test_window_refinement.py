"""What the language model's reading adds, as the window says it: the Accuracy tab and the run bar count the
labels it changed (and against gold, how many now right and now wrong), the detail pane shows its own label
beside the final one, and where its heads carry no weight the app says it was read and not used."""

from __future__ import annotations

import numpy as np
import pytest
from fake_engine import FakeEngine
from test_session_learning import WORDS, topical

from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.gui.main_window import MainWindow
from triage_gui.session.session import Session

PROFILE = PromptProfile(
    "Route the ticket.", [Label(name, f"{name} problems: {', '.join(w)}") for name, w in WORDS.items()]
)


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, event_loop_qt):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    fake = FakeEngine()
    win = MainWindow(session=Session(fake.as_engine(), device="cpu", batch_size=8, encoder="fake"))
    win.fake = fake  # type: ignore[attr-defined]
    qtbot.addWidget(win, before_close_func=MainWindow.close_now)
    win.show()
    qtbot.waitUntil(lambda: win.session.prompt_status.state == "ready", timeout=10_000)
    win.session.set_prompt(PROFILE)
    qtbot.waitUntil(lambda: win.session.table.labels == list(WORDS), timeout=10_000)
    yield win
    win.close_now()


def _label_all(qtbot, window, n: int = 90) -> None:
    session = window.session
    session.paste(topical(n))
    qtbot.waitUntil(lambda: session.table.count_scored() == n and not session.busy, timeout=20_000)
    window.evaluation.choose("queue")
    window.summary.dirty = True
    window.summary.refresh()


def _expected(table) -> tuple[int, int, int]:
    changed = fixed = broken = 0
    for row in range(len(table)):
        first, final, truth = table.first_pass_label(row), table.label(row), table.value(row, "queue")
        if first is None or final is None or first == final:
            continue
        changed += 1
        fixed += final == truth
        broken += first == truth
    return changed, fixed, broken


def test_the_accuracy_tab_and_run_bar_say_how_many_labels_the_language_model_changed(qtbot, window, monkeypatch):
    from triage_gui.engine.learning import _heads

    # the language model's heads weighted as before the gate (untaught they weigh 0 now): changes to count
    monkeypatch.setattr(_heads, "default_weights", _heads.measured_weights)
    _label_all(qtbot, window)
    table = window.session.table
    changed, fixed, broken = _expected(table)
    assert changed > 0  # the fake language model disagrees with the first pass on some tickets
    labels = f"{changed} label{'s' if changed != 1 else ''}"
    said = f"The language model changed {labels}: {fixed} now right, {broken} now wrong against gold."
    assert said in window.results.accuracy.text()
    short = said.replace(" against gold", "")
    assert window.tickets.rate_label.text() == f"All labelled · {short}"
    row = next(r for r in range(len(table)) if table.first_pass_label(r) != table.label(r))
    window.detail.show_row(row)
    own = table.llm_label(row)
    shown = window.detail.origin.text()
    assert own is not None and "The language model alone says" in shown
    assert (f"<b>{own}</b>" in shown) or (own == table.label(row) and "says the same" in shown)
    assert f"The first pass said {table.first_pass_label(row)}." in shown


def test_a_refinement_not_used_for_labels_is_said_in_one_line_and_the_pass_still_runs(qtbot, window):
    from triage_gui.engine.learning import llm_heads

    _label_all(qtbot, window)
    session = window.session
    head = session.teaching.head
    assert head is not None
    for name in llm_heads():  # what a verdict of "no evidence it helps" leaves: no weight on its heads
        head.weights[name] = 0.0
    window.summary.dirty = True
    window.summary.refresh()
    line = "Language model: read 90 tickets; not used for labels yet — no evidence it helps on these tickets."
    assert line in window.results.accuracy.text()
    assert "not used for labels yet" in window.tickets.rate_label.text()
    assert np.all(session.table.scored_mask())  # every ticket was read all the same


def test_the_language_models_verdict_is_marked_provisional_while_the_first_pass_runs(qtbot, window, monkeypatch):
    """After a restart the first pass runs again (up to a minute): the tab said "on 6 taught tickets, it fixed 0
    and broke 1", then "changed none of 6" once the pass ended, the first not marked as provisional (W11)."""
    from dataclasses import replace

    _label_all(qtbot, window)
    session = window.session
    done = session.run_status
    said = window.summary.refinement()
    assert said.startswith(("The language model", "Language model")) and "So far" not in said
    monkeypatch.setattr(session, "run_status", replace(done, state="running", first_pass_left=30))
    window.summary.dirty = True
    window.summary.refresh()
    note = "So far: the classifier's first pass is still running, and this may change when it ends."
    assert f"{said} {note}" in window.results.accuracy.text()
    assert note not in window.tickets.rate_label.text()  # the run bar says the first pass runs in its own words


def _label_tooltip(window, row: int) -> str:
    from PySide6.QtCore import Qt

    from triage_gui.gui.tickets.ticket_model import Col

    model = window.model
    column = next(c for c in range(model.columnCount()) if model._columns[c] == Col.LABEL)
    return model.index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def test_a_label_the_language_model_read_but_does_not_weigh_says_the_first_pass_decided_it(qtbot, window):
    """The detail pane said "From: learned" for a row while the language model's weight was 0: the label was the
    first pass's. Untaught its heads weigh 0: a row it read says first pass, in the table and the pane."""
    _label_all(qtbot, window)
    table = window.session.table
    assert table.count_scored() == 90 and not window.session.refinement().used
    row = 7
    assert table.llm_label(row) is not None and table.label(row) == table.first_pass_label(row)
    assert table.source(row) == "first pass"
    assert _label_tooltip(window, row).startswith("From: first pass\n")
    window.detail.show_row(row)
    shown = window.detail.origin.text()
    assert "the classifier's first pass" in shown and "the language model has read this ticket" in shown
    assert "learned from" not in shown and "has not read" not in shown


def test_a_label_the_language_model_weighs_in_says_learned(qtbot, window, monkeypatch):
    from triage_gui.engine.learning import _heads

    monkeypatch.setattr(_heads, "default_weights", _heads.measured_weights)  # its heads carry weight
    _label_all(qtbot, window)
    table = window.session.table
    assert window.session.refinement().used and {table.source(r) for r in range(90)} == {"learned"}
    assert _label_tooltip(window, 7).startswith("From: learned\n")
    window.detail.show_row(7)
    assert "first pass" not in window.detail.origin.text().split(".")[0]


def test_every_row_with_a_gold_label_is_counted_or_the_tab_says_why_not(qtbot, window):
    """The gold count read 1,999/2,000 after All labelled: a ticket taught once (a teach or one random check) had
    no label from a model that did not see it, nor did a second row with the same text. Both count now; a row
    without ticket text is said."""
    from triage_gui.engine.table import NewRow
    from triage_gui.session.gold import gold_report

    session = window.session
    rows = [*topical(90), NewRow({"text": topical(11)[10].text, "queue": topical(11)[10].values["queue"]},
                                 topical(11)[10].text)]  # fmt: skip
    rows.append(NewRow({"text": "", "queue": "billing"}, "", problem="blank ticket text"))
    session.paste(rows)
    qtbot.waitUntil(lambda: session.table.count_scored() == 91 and not session.busy, timeout=20_000)
    window.evaluation.choose("queue")
    table = session.table
    session.teaching.teach([10], table.value(10, "queue"))  # one teach: the ticket and its twin (row 91)
    qtbot.waitUntil(lambda: not session.busy, timeout=20_000)  # the refit the teach started, out of fold too
    assert table.taught_label(90) == table.taught_label(10) and {10, 90} <= set(table.out_of_fold)
    window.summary.dirty = True
    window.summary.refresh()
    assert gold_report(table, window.evaluation.gold).total == 91
    text = window.results.accuracy.text()
    assert "/91 with a gold label" in text and "Not counted: 1 row without ticket text." in text
    assert "fold" not in text and "each judged by a model that did not see it" not in text  # one ticket: singular
    assert "1 taught ticket, judged by a model that did not see it" in text


def test_the_versions_table_scores_an_untaught_version_before_the_language_model_has_read_it(qtbot, window):
    """The Versions table kept no score for an untaught version whose reading had not ended (saved over, or
    stopped): untaught, its labels are final once the first pass has labelled every gold row."""
    session, document = window.session, window.document
    qtbot.waitUntil(lambda: not session.busy, timeout=20_000)  # the prompt's examples learned from
    window.fake.gate.clear()  # the language model reads nothing more
    try:
        session.paste(topical(90))
        window.evaluation.choose("queue")
        qtbot.waitUntil(lambda: document.history[-1].accuracy is not None, timeout=9_000)
        assert session.table.count_scored() == 0 and session.running
        window.prompt.refresh_versions()
        accuracy = document.history[-1].accuracy
        assert window.results.versions.item(0, 2).text() == f"{100 * accuracy:.1f}%"
        assert window.results.versions.item(0, 3).text() == "0"
    finally:
        window.fake.gate.set()
    qtbot.waitUntil(lambda: session.run_status.state == "done" and not session.busy, timeout=20_000)
    window.summary.dirty = True
    window.summary.refresh()
    assert f"Accuracy against gold <b>{100 * accuracy:.1f}%</b>" in window.results.accuracy.text()  # after All labelled


def test_the_run_bar_and_accuracy_tab_say_out_of_fold_in_a_leads_words(qtbot, window, monkeypatch):
    """The words "out of fold" were jargon in the Accuracy tab and the run bar: the taught tickets' evidence is
    said as "taught tickets, each judged by a model that did not see it"."""
    import numpy as np

    from triage_gui.engine.learning import _heads, refinement_verdict

    monkeypatch.setattr(_heads, "default_weights", _heads.measured_weights)  # its heads carry weight
    session = window.session
    session.paste(topical(90))
    qtbot.waitUntil(lambda: session.table.count_scored() == 90 and not session.busy, timeout=20_000)
    truth = np.zeros(40, np.int64)
    first = np.where(np.arange(40) < 9, 1, 0)  # nine the first pass got wrong and the reading fixed
    refined = np.where((np.arange(40) >= 9) & (np.arange(40) < 12), 2, 0)  # three it broke
    session.teaching.verdict = refinement_verdict(refined, first, truth)  # what a refit out of fold finds
    window.evaluation.choose(None)  # no gold column: the taught tickets are the evidence said
    window.summary.dirty = True
    window.summary.refresh()
    said = "on 40 tickets you taught or checked, each judged by a model that did not see it, its reading made 9 right"
    bar, tab = window.tickets.rate_label.text(), window.results.accuracy.text()
    assert said in bar and said in tab and "fold" not in bar + tab
