"""Versions and Flipped per field (issue 34), on the window with the fake session and its fake encoder and the
two-field file of ``test_window_field_gold`` (a ``queue`` and a ``priority`` column): one *Field:* selector at the
results area's tab bar chooses whose Accuracy, Flipped and Versions are shown; a Save that changed only the
priority's part lists the priority's changed labels and no queue change; the priority's version is scored against
the priority's gold column (a hand count) and kept in the prompt file with the field, across a reopen; a
one-field prompt's tabs are as they were."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTextBrowser
from test_session_fields import QUEUE
from test_window_field_gold import PRIORITY, N, hand_count, settled, shown, write_file
from window_fakes import fake_window

from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.gui.main_window import MainWindow
from triage_gui.gui.results.results_area import NO_FLIPS, NO_FLIPS_YET

FLIPPED, VERSIONS = 2, 3  # the results area's tabs (Summary, Accuracy, Flipped, Versions)


@pytest.fixture
def window(encoded_window):
    encoded_window.resize(1366, 768)
    return encoded_window


def new_window(qtbot) -> MainWindow:
    """Another window, as a lead who reopens the app (the settings are the fixture's)."""
    win = fake_window(qtbot, encoder="fake")
    win.resize(1366, 768)
    return win


def open_prompt(qtbot, window, tmp_path, profile: PromptProfile) -> tuple:
    path = tmp_path / "prompt.json"
    profile.save(path)
    assert window.prompt.open(str(path))
    names = [f.name for f in profile.fields] if len(profile.fields) > 1 else []
    qtbot.waitUntil(lambda: window.session.field_names[1:] == names[1:], timeout=10_000)
    rows = write_file(tmp_path / "tickets.csv")
    window.session.open_file(tmp_path / "tickets.csv")
    if names:
        settled(qtbot, window)
    else:
        qtbot.waitUntil(lambda: not window.session.busy and window.session.run_status.state == "done", timeout=15_000)
    return path, rows


def choose(window, tab: int, field: int) -> None:
    """Open ``tab`` and choose ``field`` in the results area's field selector, as the lead would."""
    results = window.results
    results.setCurrentIndex(tab)
    results.field_choice.setCurrentIndex(field)
    results.field_choice.activated.emit(field)
    window.summary.redraw()


def listed_flips(window) -> list[tuple[int, str]]:
    """The Flipped tab's list as the lead reads it: (ticket row, "old → new")."""
    flips = window.results.flips
    out = []
    for i in range(flips.count()):
        item = flips.item(i)
        out.append((item.data(Qt.ItemDataRole.UserRole), item.text().split(":  ")[0].split("  ", 1)[1]))
    return out


def versions_shown(window) -> list[tuple[str, str, str]]:
    """The Versions tab's rows: (version, accuracy, taught)."""
    table = window.results.versions
    return [tuple(table.item(r, c).text() for c in (0, 2, 3)) for r in range(table.rowCount())]


def priority_swapped() -> PromptProfile:
    """The two-field prompt with only the priority's part changed: low's and high's descriptions swapped."""
    low, medium, high = PRIORITY.labels
    swapped = replace(PRIORITY, labels=[Label("low", high.description), medium, Label("high", low.description)])
    return PromptProfile.of_fields([QUEUE, swapped], "Queue and priority")


def save_in_editor(qtbot, window, profile: PromptProfile) -> None:
    """The lead edits the prompt to ``profile`` and saves; waits for the new labels of every field."""
    before, second = window.session.prompt_status.version, window.session.field_table(1)
    window.editor.set_profile(profile, clear_undo=False)
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.prompt_status.version > before, timeout=10_000)
    qtbot.waitUntil(lambda: window.session.field_table(1) not in (None, second), timeout=10_000)
    settled(qtbot, window)


def test_changing_only_the_priority_lists_the_priority_flips_and_no_queue_change(qtbot, window, tmp_path):
    open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    session, results = window.session, window.results
    choose(window, FLIPPED, 1)
    assert results.field_row.isVisible() and results.field_choice.currentText() == "priority"
    assert results.flips_note.text().startswith("No earlier priority labels to compare with yet")
    queue_before = [session.table.label(r) for r in range(N)]
    before = session.field_table(1)
    priority_before = [before.label(r) for r in range(N)]

    save_in_editor(qtbot, window, priority_swapped())
    after = session.field_table(1)
    changed = [
        (r, f"{priority_before[r]} → {after.label(r)}") for r in range(N) if after.label(r) != priority_before[r]
    ]
    assert 0 < len(changed) < N  # the swap moved some priorities, not all: the list can be told from a wrong one
    assert [session.table.label(r) for r in range(N)] == queue_before  # the queue's part was not changed

    choose(window, FLIPPED, 1)
    assert listed_flips(window) == changed  # the priority's labels, each from its old to its new one
    assert results.tabText(FLIPPED) == f"Flipped ({len(changed)})"
    choose(window, FLIPPED, 0)  # the queue: re-labelled by the new version, no label changed
    assert listed_flips(window) == [] and results.tabText(FLIPPED) == "Flipped"
    assert results.flips_note.text() == NO_FLIPS
    results.setCurrentIndex(0)
    assert not results.field_row.isVisible()  # the Summary is the run's, not a field's


def test_each_fields_versions_are_scored_against_its_own_gold_and_kept_after_reopen(qtbot, window, tmp_path):
    path, rows = open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    session, document = window.session, window.document

    def scored(field: int, count: int) -> bool:
        history = document.field_history(field)
        return len(history) == count and history[-1].accuracy is not None

    qtbot.waitUntil(lambda: scored(0, 1) and scored(1, 1), timeout=10_000)
    right, total, _ = hand_count(session.field_table(1), [r["priority"] for r in rows])
    assert total == N and right < N
    priority = document.field_history(1)[-1]
    assert priority.accuracy == pytest.approx(right / total) and priority.gold_rows == N
    assert priority.prompt["labels"] == [{"name": x.name, "description": x.description} for x in PRIORITY.labels]
    queue_right, _, _ = hand_count(session.table, [r["queue"] for r in rows])
    queue = document.field_history(0)[-1]
    assert queue.accuracy == pytest.approx(queue_right / N)
    assert queue.scores[-1].gold != priority.scores[-1].gold  # each against its own gold column (both may be 26 of 36)

    choose(window, VERSIONS, 1)
    assert versions_shown(window) == [("1", f"{100 * right / N:.1f}%", "0")]
    assert window.results.versions.accessibleName() == "Versions of priority"

    save_in_editor(qtbot, window, priority_swapped())  # only the priority's part: a priority version, no queue one
    qtbot.waitUntil(lambda: scored(1, 2), timeout=10_000)
    assert len(document.field_history(0)) == 1
    right2, _, _ = hand_count(session.field_table(1), [r["priority"] for r in rows])
    assert document.field_history(1)[-1].accuracy == pytest.approx(right2 / N)
    choose(window, VERSIONS, 1)
    assert [v[:2] for v in versions_shown(window)] == [
        ("2", f"{100 * right2 / N:.1f}%"),
        ("1", f"{100 * right / N:.1f}%"),
    ]
    window.results.versions.selectAll()  # the priority's two versions compared: what changed, each one's accuracy
    window.results.compare_button.click()
    dialog = window.prompt.diff_dialog
    assert dialog is not None and dialog.windowTitle() == "priority: version 1 and version 2"
    compared = dialog.findChild(QTextBrowser).toPlainText()
    assert "Description of low" in compared and f"accuracy {100 * right2 / N:.1f}%" in compared
    dialog.close()
    choose(window, VERSIONS, 0)
    assert [v[:2] for v in versions_shown(window)] == [("1", f"{100 * queue_right / N:.1f}%")]

    def on_disk() -> PromptProfile:
        return PromptProfile.load(path)

    def kept(records) -> list[tuple[int, float | None]]:
        return [(r.number, r.accuracy) for r in records]

    written = [(1, round(right / N, 6)), (2, round(right2 / N, 6))]  # the file keeps six decimals
    qtbot.waitUntil(lambda: kept(on_disk().more_fields[0].history) == written, timeout=5_000)
    assert kept(on_disk().history) == [(1, round(queue_right / N, 6))]

    window.close_now()
    other = new_window(qtbot)  # a restart: the same file, each field's versions as saved
    assert other.prompt.open(str(path))
    choose(other, VERSIONS, 1)
    assert [v[:2] for v in versions_shown(other)] == [
        ("2", f"{100 * right2 / N:.1f}%"),
        ("1", f"{100 * right / N:.1f}%"),
    ]
    choose(other, VERSIONS, 0)
    assert [v[:2] for v in versions_shown(other)] == [("1", f"{100 * queue_right / N:.1f}%")]
    other.close_now()


def test_going_back_to_a_priority_version_keeps_the_queue(qtbot, window, tmp_path):
    path, _ = open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    save_in_editor(qtbot, window, priority_swapped())
    choose(window, VERSIONS, 1)
    window.results.versions.selectRow(1)  # version 1, the older
    window.results.revert_button.click()
    qtbot.waitUntil(lambda: len(window.document.field_history(1)) == 3, timeout=10_000)
    profile = window.editor.profile()
    assert [f.name for f in profile.fields] == ["queue", "priority"]  # the whole editor once became the priority
    assert profile.fields[0].labels == QUEUE.labels and profile.fields[1].labels == PRIORITY.labels
    assert [f.name for f in PromptProfile.load(path).fields] == ["queue", "priority"]


def test_a_one_field_prompts_flipped_and_versions_tabs_are_as_they_were(qtbot, window, tmp_path):
    path, _ = open_prompt(qtbot, window, tmp_path, PromptProfile(QUEUE.instruction, QUEUE.labels, QUEUE.examples))
    results, session = window.results, window.session
    results.setCurrentIndex(FLIPPED)
    assert not results.field_row.isVisible()
    assert results.flips_note.text() == NO_FLIPS_YET and results.tabText(FLIPPED) == "Flipped"
    one = PromptProfile("Which team should take it? Read closely.", QUEUE.labels, QUEUE.examples)
    window.editor.set_profile(one, clear_undo=False)
    assert window.prompt.save()
    qtbot.waitUntil(lambda: session.prompt_status.version >= 1 and session.run_status.state == "done", timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    window.summary.redraw()
    flips, count = window.evaluation.flips()
    assert [row for row, _ in listed_flips(window)] == [f[0] for f in flips]
    assert results.tabText(FLIPPED) == (f"Flipped ({count})" if count else "Flipped")
    results.setCurrentIndex(VERSIONS)
    assert not results.field_row.isVisible()
    assert [int(v[0]) for v in versions_shown(window)] == [r.number for r in reversed(window.document.history)]
    assert len(window.document.history) == 2 and results.versions.accessibleName() == "Prompt versions"
    text = path.read_text(encoding="utf-8")
    assert '"field"' not in text and '"fields"' not in text  # the one-field file as every release wrote it


def test_wrong_against_gold_judges_the_field_shown_and_names_it(qtbot, window, tmp_path):
    _, rows = open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    session, tickets = window.session, window.tickets
    proxy = tickets.proxy

    def listed() -> list[int]:
        return sorted(proxy.mapToSource(proxy.index(i, 0)).row() for i in range(proxy.rowCount()))

    tickets.wrong_only.setChecked(True)
    queue_wrong = [r for r in range(N) if session.table.evaluated_label(r) != rows[r]["queue"]]
    assert listed() == queue_wrong and tickets.wrong_only.text() == "Wrong against gold"
    choose(window, 1, 1)  # the priority's accuracy: the filter follows, and says whose
    second = session.field_table(1)
    priority_wrong = [r for r in range(N) if second.evaluated_label(r) != rows[r]["priority"]]
    assert priority_wrong != queue_wrong  # the test can tell the two fields apart
    assert listed() == priority_wrong and tickets.wrong_only.text() == "Wrong against gold (priority)"
    choose(window, 1, 0)
    assert listed() == queue_wrong and tickets.wrong_only.text() == "Wrong against gold"


def test_the_queues_accuracy_after_a_priority_only_save_compares_with_its_earlier_run(qtbot, window, tmp_path):
    """The queue's version is its own part of the prompt: a Save that changed only the priority's re-runs queue
    version 1, and its Accuracy tab said "+0.0 points since version 1" while on version 1."""
    open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    qtbot.waitUntil(lambda: window.document.field_history(0)[-1].accuracy is not None, timeout=10_000)
    save_in_editor(qtbot, window, priority_swapped())
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)
    assert [r.number for r in window.document.field_history(0)] == [1]
    choose(window, 1, 0)
    assert "+0.0 points since version 1's earlier run (same gold rows and taught set)" in shown(window)


def test_teaching_a_priority_ticket_lists_what_the_teaching_changed_in_the_priority(qtbot, window, tmp_path):
    """A further field's previous labels are those before its taught set last changed, too (the brief's rule: its
    part of the prompt or its taught tickets); the queue's Flipped stays the queue's prompt versions'."""
    _, rows = open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    session = window.session
    before = session.field_table(1)
    row = next(r for r in range(N) if before.label(r) != rows[r]["priority"])
    labels = [before.label(r) for r in range(N)]
    session.teach_field(1, [row], rows[row]["priority"])
    qtbot.waitUntil(lambda: session.field_table(1) not in (None, before), timeout=10_000)
    settled(qtbot, window)
    after = session.field_table(1)
    changed = [(r, f"{labels[r]} → {after.label(r)}") for r in range(N) if after.label(r) != labels[r]]
    assert (row, f"{labels[row]} → {rows[row]['priority']}") in changed  # the taught ticket shows its taught label
    choose(window, FLIPPED, 1)
    assert listed_flips(window) == changed
    choose(window, FLIPPED, 0)
    assert listed_flips(window) == [] and window.results.flips_note.text() == NO_FLIPS_YET  # no queue version yet


def test_the_field_chosen_keeps_its_own_versions_after_a_move_and_save(qtbot, window, tmp_path):
    """A walkthrough (W3): the queue's versions shown, the priority moved first in the editor and saved: the
    selector still said "queue" but the Versions tab listed the priority's versions (its index had become the
    queue's), until the lead chose a field again."""
    open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    choose(window, VERSIONS, 0)
    assert [window.results.versions.item(r, 4).text()[:8] for r in range(window.results.versions.rowCount())] == [
        "3 labels"
    ]  # the queue: billing, technical, account
    editor = window.editor
    editor.field_bar.combo.setCurrentIndex(1)
    editor.field_bar.left_action.trigger()  # the priority, first
    before = window.session.prompt_status.version
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.field_names == ["priority", "queue"], timeout=10_000)
    qtbot.waitUntil(lambda: window.session.prompt_status.state == "ready", timeout=10_000)
    assert window.session.prompt_status.version >= before
    results = window.results

    def queues_shown() -> None:  # while the language model reads again (minutes on 150 real tickets) and after
        assert results.field_choice.currentText() == "queue"  # the lead's choice, kept by name
        summaries = [results.versions.item(r, 4).text() for r in range(results.versions.rowCount())]
        assert summaries and all(s.startswith("3 labels: billing") for s in summaries), summaries
        assert results.versions.accessibleName() == "Versions of queue"

    queues_shown()
    settled(qtbot, window)
    queues_shown()


def test_the_summarys_fast_path_time_names_the_field_it_is_of(qtbot, window, tmp_path):
    """A walkthrough (W3) read "Fast path: median 105 ms/ticket" as what a ticket costs, beside "all 2 fields
    346 ms": the fast path's figure is the first field's, and says so; a one-field prompt's reads as it did."""
    open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    window.summary.redraw()
    text = window.results.stats.text()
    assert "Fast path (queue): median <b>" in text and "Fast path: median" not in text
    assert "Language model a ticket, per field: queue median " in text and "; all 2 fields " in text
    window.close_now()
    other = new_window(qtbot)
    open_prompt(qtbot, other, tmp_path, PromptProfile.of_fields([QUEUE], "Queue"))
    other.summary.redraw()
    assert "Fast path: median <b>" in other.results.stats.text()
    other.close_now()


def test_a_save_leaves_the_results_tab_the_lead_is_on(qtbot, window, tmp_path):
    """Walkthrough W3: a Save that moved a field switched the results area to the Accuracy tab, from Versions
    too (the gold columns follow their fields, and each is announced again); a gold column found when the
    results area shows the Summary still opens Accuracy."""
    open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    assert window.results.currentIndex() == 1  # the gold column found: its accuracy shown
    choose(window, VERSIONS, 0)
    editor = window.editor
    editor.field_bar.combo.setCurrentIndex(1)
    editor.field_bar.left_action.trigger()  # the priority, first
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.field_names == ["priority", "queue"], timeout=10_000)
    settled(qtbot, window)
    assert window.results.currentIndex() == VERSIONS


def test_a_save_that_changes_only_the_priority_says_its_new_version_and_that_its_checks_are_older(
    qtbot, window, tmp_path
):
    """The status bar said "Prompt ready (v1)" after a Save that changed only the priority (the queue's number),
    and the priority's checks "on v1" with nothing changed since: each field's own version now, as its Versions
    tab numbers it."""
    from test_window_fields import press

    from triage_gui.gui.tickets.ticket_model import FieldCol

    open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    assert window.prompt_status.text() == "Prompt ready (queue v1, priority v1)"
    press(qtbot, window, 0, FieldCol(1, "priority"), Qt.Key.Key_Right)
    window.trigger("check")
    qtbot.waitUntil(window.tickets.table.hasFocus, timeout=2_000)
    qtbot.keyClick(window.tickets.table, Qt.Key.Key_Return)  # a check on the priority, under its v1
    qtbot.waitUntil(lambda: window.check_status.text().startswith("priority ~"), timeout=5_000)
    assert " on v1 " in window.check_status.text() and "may have changed" not in window.check_status.text()

    save_in_editor(qtbot, window, priority_swapped())
    assert window.prompt_status.text() == "Prompt ready (queue v1, priority v2)"
    assert "Versions (queue v1, priority v2)" in window.prompt_status.toolTip()
    choose(window, VERSIONS, 1)
    assert [row[0] for row in versions_shown(window)] == ["2", "1"]  # the numbers the status bar gives
    column = window.model.column_ids().index(FieldCol(1, "priority"))  # a priority cell the current one again
    window.tickets.table.setCurrentIndex(window.tickets.proxy.index(0, column))  # (the first row shown)
    assert window.tickets.field_in_use == 1
    window.teaching.follow_field()
    line = window.check_status
    qtbot.waitUntil(lambda: line.text().startswith("priority ~") and "(may have changed)" in line.text(), timeout=5_000)
    assert " on v1 " in line.text() and "Since then priority version 2 is in use" in line.toolTip()
    queue = window.session.field_check_status(0)
    assert not queue.checked and not queue.since  # the queue's part is as it was: nothing said of it


def test_reopened_with_no_tickets_the_editor_gives_each_fields_estimate_as_the_status_bar_does(qtbot, window, tmp_path):
    """A two-field prompt file with random checks answered on both fields, reopened before any tickets are
    loaded: the editor said the queue's accuracy was not estimated while the status bar gave its estimate from
    its checks. The checks' estimate stands (each check is kept with the version it was made on, which is the one
    in use; loading tickets changes neither), so the editor gives it too."""
    from test_window_fields import check_row_0

    from triage_gui.gui.tickets.ticket_model import Col, FieldCol

    path, _ = open_prompt(qtbot, window, tmp_path, PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority"))
    check_row_0(qtbot, window, (FieldCol(1, "priority"), Col.LABEL))  # a check on each field
    session = window.session
    qtbot.waitUntil(lambda: session.check_status.checked == session.field_check_status(1).checked == 1, timeout=5_000)
    qtbot.waitUntil(lambda: not window.document.busy, timeout=10_000)

    other = new_window(qtbot)  # reopened, no tickets
    assert other.prompt.open(str(path))
    qtbot.waitUntil(lambda: other.session.field_names == ["queue", "priority"], timeout=10_000)
    qtbot.waitUntil(lambda: other.check_status.text().startswith("queue ~100%"), timeout=5_000)
    assert other.session.ticket_count == 0
    editor = other.editor
    for field, name in enumerate(("queue", "priority")):
        editor.field_bar.combo.setCurrentIndex(field)
        estimate = other.session.field_check_status(field).describe()
        assert estimate.startswith(f"Accuracy of {name} 100%")
        qtbot.waitUntil(lambda estimate=estimate: estimate in editor.taught_count.text(), timeout=2_000)
        assert "not estimated" not in editor.taught_count.text()
    assert other.check_status.toolTip() == other.session.field_check_status(0).describe()  # the bar's, the same


def test_going_back_to_a_queue_version_brings_back_the_name_made_from_its_labels(qtbot, window, tmp_path):
    """W17: with a queue and a second field, the lead went back to the queue's version 1 (labels billing,
    technical, account); the prompt was still named "Support triage (cards / top-up and cash / fees and …)", after
    the labels it no longer had, where a one-field prompt's name follows its labels until the lead types one."""
    from triage_gui.gui.prompt.prompt_editor import auto_name

    first = PromptProfile.of_fields([QUEUE, PRIORITY], auto_name(QUEUE.label_names))
    open_prompt(qtbot, window, tmp_path, first)
    cards = [Label("cards", "card lost stolen"), *QUEUE.labels[1:]]
    renamed = replace(QUEUE, labels=cards, examples=[e for e in QUEUE.examples if e.label != "billing"])
    save_in_editor(qtbot, window, PromptProfile.of_fields([renamed, PRIORITY], auto_name(renamed.label_names)))
    assert window.editor.name.text() == "Support triage (cards / technical / account)"
    choose(window, VERSIONS, 0)
    window.results.versions.selectRow(1)  # the queue's version 1
    window.results.revert_button.click()
    qtbot.waitUntil(lambda: window.session.table.labels == QUEUE.label_names, timeout=10_000)
    assert window.editor.name.text() == "Support triage (billing / technical / account)"
    assert window.document.saved.name == "Support triage (billing / technical / account)"

    typed = "Bank queues"  # a name the lead typed stays whatever the labels
    window.editor.name.setText(typed)
    window.editor.flush_snapshot()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.document.saved.name == typed, timeout=10_000)
    settled(qtbot, window)
    window.results.versions.selectRow(1)
    window.results.revert_button.click()
    qtbot.waitUntil(lambda: window.session.table.labels == cards_names(), timeout=10_000)
    assert window.editor.name.text() == typed


def cards_names() -> list[str]:
    return ["cards", "technical", "account"]
