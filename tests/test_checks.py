"""An accuracy a lead can believe: random checks, their 95 % interval, and the window's "Check a random
sample" with the status it shows."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from triage_gui.engine.scoring import wilson_interval
from triage_gui.engine.table import NewRow, TicketTable
from triage_gui.session.checks import CheckStatus, RandomChecks


def test_the_interval_of_30_random_checks_covers_the_true_accuracy_at_least_90_percent_of_the_time():
    """Draw 30 tickets at random from a file labelled with a known accuracy, many times: the 95 % interval
    must contain the file's true accuracy in at least 90 % of the draws, at every accuracy a lead sees."""
    rng = np.random.default_rng(0)
    for accuracy in (0.5, 0.7, 0.85, 0.95):
        right = rng.random(2000) < accuracy  # the file: which tickets' labels are right
        truth = right.mean()
        covered = 0
        draws = 2000
        for _ in range(draws):
            sample = rng.choice(len(right), 30, replace=False)
            low, high = wilson_interval(int(right[sample].sum()), 30)
            covered += low <= truth <= high
        assert covered / draws >= 0.90, (accuracy, covered / draws)


def test_the_interval_is_inside_zero_and_one_and_narrows_with_more_checks():
    assert wilson_interval(30, 30)[1] == 1.0 and wilson_interval(0, 30)[0] == 0.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    wide, narrow = wilson_interval(24, 30), wilson_interval(240, 300)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]


def labelled_table(n: int, wrong: set[int]) -> TicketTable:
    table = TicketTable()
    table.add([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(n)])
    table.start_version(0, ["a", "b"], [0, 0])
    from triage_gui.engine.table import TicketScore

    scores = [TicketScore("a", 0.9, [0.9, 0.1], [-0.1, -2.3], 1.0) for _ in range(n)]
    table.apply(list(range(n)), scores, 0)
    return table


def test_checks_draw_only_untaught_tickets_and_count_verdicts():
    table = labelled_table(50, set())
    table.teach([0, 1], "b")
    checks = RandomChecks(table, seed=1)
    drawn = checks.draw(10)
    assert len(drawn) == 10 and not {0, 1} & set(drawn)
    assert "not estimated yet" in checks.status.describe()
    checks.record(drawn[:6], None)  # the shown label "a" is right
    checks.record(drawn[6:], "b")  # wrong: the lead picked "b"
    checks.record([2 if 2 not in drawn else 3], "b")  # not in the sample: does not count
    status = checks.status
    assert (status.checked, status.correct) == (10, 6)
    assert status.low < 0.6 < status.high
    assert "from 10 random checks" in status.describe()
    again = checks.draw(100)
    assert again and not set(again) & set(drawn)  # a checked ticket is never drawn twice


def test_the_estimate_says_what_it_describes_and_what_may_have_changed_it_since():
    """ "~40% (22–61%), 20 checks on v3 with 40 taught, 2 h ago", and, once a newer prompt version or more
    teaching is in use, that it may have changed (the checks' own teaching does not count)."""
    table = labelled_table(60, set())
    made = {"version": 3, "taught": 40}
    checks = RandomChecks(table, seed=2)
    checks.context = lambda: (made["version"], made["taught"])
    drawn = checks.draw(20)
    for i, row in enumerate(drawn):
        checks.record([row], None if i < 8 else "b")  # 8 of 20 right
        made["taught"] += 1  # the check taught its ticket
    status = checks.status
    assert status.short(now=status.newest + 2 * 3600) == "~40% (22–61%), 20 checks on v3 with 40 taught, 2 h ago"
    assert not status.since and "from 20 random checks" in status.describe()
    made["version"] = 4
    checks.refresh()
    assert checks.status.since == "prompt version 4 is in use" and "(may have changed)" in checks.status.short()
    made["version"], made["taught"] = 3, 65
    checks.refresh()
    assert checks.status.since == "5 more tickets were taught"
    assert "Since then 5 more tickets were taught, which may have changed it" in checks.status.describe()


def test_another_sentence_encoder_since_the_checks_may_have_changed_the_estimate():
    """Restarted with the multilingual encoder, the first pass's labels were another encoder's (gold 78.3 % ->
    75.7 %) and the estimate still read "~80 % … on v1" with no "(may have changed)" (W11). Each check keeps the
    encoder it was made with, in the prompt file too; a check from before it was kept says nothing of it."""
    import json
    from dataclasses import replace

    from triage_gui.engine.prompt import PromptProfile, default_profile

    def kept_in_a_file(records):
        text = replace(default_profile(), checks=records).to_json()
        return PromptProfile.from_dict(json.loads(text)).checks

    table = labelled_table(60, set())
    encoder = {"name": "all-MiniLM-L6-v2"}
    checks = RandomChecks(table, seed=2)
    checks.encoder = lambda: encoder["name"]
    checks.context = lambda: (1, 0)
    checks.record(checks.draw(5), None)
    assert not checks.status.since
    encoder["name"] = "multilingual-e5-small"
    checks.refresh()
    said = "the sentence encoder is multilingual-e5-small (the last check was made with all-MiniLM-L6-v2)"
    assert checks.status.since == said and "(may have changed)" in checks.status.short()
    kept = kept_in_a_file(checks.records())
    assert {c.encoder for c in kept} == {"all-MiniLM-L6-v2"}
    encoder["name"] = ""  # none loaded yet (a start): nothing said until it is
    checks.refresh()
    assert not checks.status.since
    older = RandomChecks(table, seed=2)
    older.encoder = lambda: "multilingual-e5-small"
    older.restore([replace(c, encoder="") for c in kept_in_a_file(kept)])
    assert not older.status.since  # a file written before checks kept their encoder: not known, not said


def test_checks_outlive_the_tickets_and_come_back_by_text():
    """Dropping the tickets (File › Open with Replace, Clear) keeps the verdicts; a new session given the
    records the prompt file kept has the same estimate, and never draws a checked ticket again."""
    table = labelled_table(30, set())
    checks = RandomChecks(table, seed=3)
    drawn = checks.draw(10)
    checks.record(drawn[:4], None)
    checks.record(drawn[4:7], "b")
    before = checks.status
    table.clear()
    checks.clear()
    assert (checks.status.checked, checks.status.correct, checks.status.to_check) == (7, 4, ())
    again = RandomChecks(labelled_table(30, set()), seed=3)
    again.restore(checks.records())  # as read back from the prompt file
    assert (again.status.checked, again.status.correct, again.status.low) == (7, 4, before.low)
    redrawn = again.draw(100)
    assert len(redrawn) == 23 and not set(redrawn) & set(drawn[:7])


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, loaded, event_loop_qt):
    from helpers import SAMPLE
    from qt_helpers import close, drop_files, open_window, wait_all_labelled

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    win = open_window(qtbot)
    drop_files(win, [SAMPLE])
    wait_all_labelled(qtbot, win, 60)
    qtbot.waitUntil(lambda: win.session.teaching.status.state == "ready" and not win.session.busy, timeout=60_000)
    yield win
    close(win)


def test_check_a_random_sample_in_the_window(qtbot, window):
    """Teach › Check a random sample: the sample is listed, Enter confirms, a number key corrects, and the
    status bar and the editor show the estimate with its interval and the number of checks."""
    table = window.session.table
    assert window.check_status.text() == "Random checks: none yet"  # the sample's team column is gold
    assert "No random-check estimate yet" in window.editor.taught_count.text()
    teach_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Teach")
    check = next(a for a in teach_menu.actions() if a.text().startswith("&Check a random sample"))
    check.trigger()
    sample = list(window.session.checks.queue)
    assert len(sample) == 20 and window.tickets.check_only.isChecked()
    assert window.tickets.proxy.rowCount() == 20  # the table lists the sample only
    view = window.tickets.table
    window.activateWindow()  # Enter accepts only in the focused table (check_sample focuses it)
    qtbot.waitUntil(view.hasFocus, timeout=2_000)
    right = 0
    for row in sample:  # each next ticket is selected in the order drawn: the keys answer it directly
        assert window.tickets.proxy.mapToSource(view.currentIndex()).row() == row
        gold = table.value(row, "team")
        if table.label(row) == gold:
            right += 1
            qtbot.keyClick(view, Qt.Key.Key_Return)
        else:
            qtbot.keyClick(view, Qt.Key(Qt.Key.Key_1 + table.labels.index(gold)))
    qtbot.waitUntil(lambda: not window.session.busy and window.session.checks.status.checked == 20, timeout=60_000)
    status = window.session.checks.status
    assert not status.to_check and status.correct == right  # what the lead answered
    assert "20 checks" in window.check_status.text() and "%" in window.check_status.text()
    assert "from 20 random checks" in window.editor.taught_count.text()
    assert all(table.taught_label(r) == table.value(r, "team") for r in sample)  # the checks also taught


def test_teach_next_lists_the_suggestions_and_n_goes_to_the_next(qtbot, window):
    """The Teach next filter shows the suggested tickets; N selects the best one not taught yet, and once
    it is taught, N moves on to another."""
    session = window.session
    qtbot.waitUntil(lambda: bool(session.teaching.suggestions), timeout=60_000)
    window.tickets.next_only.setChecked(True)
    shown = window.tickets.proxy.rowCount()
    assert 0 < shown <= len(session.teaching.suggestions)
    view = window.tickets.table
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_N)
    first = window.tickets.proxy.mapToSource(view.currentIndex()).row()
    assert first == session.teaching.suggestions[0]
    table = session.table
    window.teach([first], table.value(first, "team"))
    qtbot.waitUntil(lambda: not session.busy and first not in session.teaching.suggestions, timeout=60_000)
    qtbot.keyClick(view, Qt.Key.Key_N)
    second = window.tickets.proxy.mapToSource(view.currentIndex()).row()
    assert second != first and table.taught_label(second) is None
    # N again without teaching it goes past it to the next suggestion (it stayed on the same ticket, W15)
    rows = session.field_suggestions(0)
    qtbot.keyClick(view, Qt.Key.Key_N)
    third = window.tickets.proxy.mapToSource(view.currentIndex()).row()
    assert third == rows[rows.index(second) + 1] and table.taught_label(third) is None


def test_an_estimate_from_checks_of_other_tickets_says_so():
    """File › Open with Replace: the estimate stays with the prompt, but its checks were drawn from the other
    file; shown bare over these tickets it read as their accuracy (W9: "~100% (51–100%), 4 checks")."""
    table = labelled_table(30, set())
    checks = RandomChecks(table, seed=3)
    checks.record(checks.draw(4), None)
    assert not checks.status.elsewhere and "other tickets" not in checks.status.short()
    table.clear()
    checks.clear()
    assert not checks.status.elsewhere  # no tickets loaded: the prompt's estimate, as after a restart
    table.add([NewRow({"text": f"another {i}"}, f"another {i}") for i in range(5)])
    checks.refresh()
    assert checks.status.elsewhere and checks.status.short().startswith("~100% (51–100%) of other tickets, 4 checks")
    assert "from 4 random checks of tickets not loaded now" in checks.status.describe()
    table.add([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(30)])
    checks.refresh()  # the checked file added to these: the estimate is of loaded tickets again
    assert not checks.status.elsewhere and "other tickets" not in checks.status.short()


def test_the_status_bar_says_an_estimate_is_of_other_tickets_after_replace(qtbot, tmp_path, monkeypatch, event_loop_qt):
    from fake_engine import FakeEngine
    from helpers import SAMPLE, banking_tickets, write_tickets
    from window_fakes import close_fake, fake_window

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    window = fake_window(qtbot, FakeEngine(batch_seconds=0.01))
    try:
        session = window.session
        session.open_file(SAMPLE)
        qtbot.waitUntil(lambda: len(session.table) == 60 and session.run_status.state == "done", timeout=20_000)
        window.teaching.accept(session.draw_checks(0)[:1], 0)  # one check answered: the label is right
        qtbot.waitUntil(lambda: window.check_status.text().startswith("~100%"), timeout=5_000)
        assert "other tickets" not in window.check_status.text()
        # none loaded (so none checked); banking_tickets() is the sample's texts again in a clone without ../shared
        week_2 = [text for text in banking_tickets(80) if text not in session.table.texts][:20]
        session.open_file(write_tickets(tmp_path / "week-2.csv", week_2), replace=True)
        qtbot.waitUntil(lambda: "of other tickets" in window.check_status.text(), timeout=20_000)
        assert "tickets not loaded now" in window.check_status.toolTip()
    finally:
        close_fake(window)


def test_a_further_fields_estimate_holds_on_a_version_that_is_the_checked_one_again():
    """A priority's part reverted to its v1 is saved as its v3: checks made on v1 still describe it (no "(may
    have changed)"), while its v2, another prompt, did change it."""
    from triage_gui.engine.prompt import Field, Label, VersionRecord
    from triage_gui.session.checks import FieldChecks

    table = labelled_table(40, set())
    checks = FieldChecks(lambda i: table, lambda i: {})
    history = [VersionRecord(n, "2026-12-04 10:00", {}, content) for n, content in ((1, "x"), (2, "y"), (3, "x"))]
    checks.history = lambda i: history
    checks.set_fields([Field("priority", "How urgent?", [Label("a", ""), Label("b", "")])])
    field = checks.of(1)
    assert field is not None
    in_use = {"number": 1}
    checks.number = lambda i: in_use["number"]
    field.record(field.draw(5), None)
    assert field.status.checked == 5 and not field.status.since
    in_use["number"] = 2
    field.refresh()
    assert field.status.since == "priority version 2 is in use"
    in_use["number"] = 3
    field.refresh()
    assert not field.status.since and "(may have changed)" not in field.status.short()


def test_checks_made_on_other_labels_are_said_to_be_kept_and_not_counted():
    """Suggest labels, then Save: "~100%, 6 checks" became "not estimated" without a word; the checks are kept
    with the prompt (they count again if those labels come back), and the estimate says so."""
    table = labelled_table(40, set())
    checks = RandomChecks(table, seed=3)
    checks.record(checks.draw(6), None)
    assert checks.status.checked == 6
    checks.labels_of = lambda version: ["billing", "access"]  # the version checked had other labels
    checks.refresh()
    assert checks.status.checked == 0
    told = checks.status.describe()
    assert told.startswith("Accuracy not estimated yet (6 checks were made on other labels")
    assert "do not count" in told and "check a random sample" in told
    assert (
        "(1 check was made on other labels: kept with the prompt, it does not" in CheckStatus(other_labels=1).describe()
    )
    assert len(checks.records()) == 6  # still kept with the prompt
