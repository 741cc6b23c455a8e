"""Walkthrough W15 (a support lead's day with a queue and a priority, English and German IT tickets), each item
as the lead met it, on the fake session with its fake encoder."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from test_window_fields import open_two_fields, press

from triage_gui.gui.tickets.ticket_model import FieldCol

PRIORITY = FieldCol(1, "priority")


@pytest.fixture
def window(encoded_window):
    return encoded_window


def rename_and_save(qtbot, window, settled) -> None:
    """The queue's 'account' renamed 'login' and the priority's 'high' 'urgent' in the editor, saved, settled."""
    editor, session = window.editor, window.session
    editor.field_bar.combo.setCurrentIndex(0)
    editor.labels.item(2, 0).setText("login")  # the queue's 'account'
    editor.field_bar.combo.setCurrentIndex(1)
    editor.labels.item(2, 0).setText("urgent")  # the priority's 'high'
    editor.flush_snapshot()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: session.table.labels == ["billing", "technical", "login"], timeout=10_000)
    settled(qtbot, window)


def test_the_last_answer_of_a_priority_sample_says_the_priority_estimate(qtbot, window, tmp_path):
    """W15: a lead answered all 20 random checks of the priority from the keyboard; the list emptied, the status
    bar said "Taught 1 ticket 'low' (priority) with its random check" and beside it "Random checks of queue: none
    yet": with no row left the column in use was the queue's, so the priority's estimate, just made, was shown
    nowhere and "Sample checked" never came. It now says the priority's, named, in both places."""
    open_two_fields(qtbot, window, tmp_path)
    session, table = window.session, window.tickets.table
    press(qtbot, window, 0, PRIORITY, Qt.Key.Key_Right)
    window.trigger("check")
    qtbot.waitUntil(table.hasFocus, timeout=2_000)
    drawn = len(session.field_check_status(1).to_check)
    assert drawn > 1
    for _ in range(drawn):  # Enter on each: the answered row leaves the list, the next is current
        qtbot.keyClick(table, Qt.Key.Key_Return)
        qtbot.wait(20)
    qtbot.waitUntil(lambda: session.field_check_status(1).checked == drawn, timeout=5_000)
    window.refresh_stats()  # the stats timer's tick: the estimate follows the field in use
    qtbot.wait(50)
    assert window.check_status.text().startswith("priority ~"), window.check_status.text()
    message = window.statusBar().currentMessage()
    assert message.startswith("Sample checked. ") and "priority" in message, message


def test_a_renamed_labels_gold_rows_count_under_the_new_name_in_every_field(qtbot, window, tmp_path):
    """W15: a lead renamed the queue label 'access' to 'accounts' and saved; the gold column, still 'access' on
    those rows, stayed gold, but the Accuracy tab counted 30 of the 42 gold rows and called the other 12 "tickets
    without a gold label". A rename now maps the old name to the new one in each field's gold column, and the
    mapping is kept with the file's header, as a value mapping is (a restart counts them too)."""
    from test_window_field_gold import N, hand_count, open_two_fields, settled, show_field, shown_accuracy

    from triage_gui.session.evaluation import Evaluation

    rows = open_two_fields(qtbot, window, tmp_path)
    session, evaluation = window.session, window.evaluation
    assert shown_accuracy(show_field(window, 0))[1] == N and shown_accuracy(show_field(window, 1))[1] == N
    rename_and_save(qtbot, window, settled)
    queue = [{"account": "login"}.get(r["queue"], r["queue"]) for r in rows]
    right, total, _ = hand_count(session.table, queue)
    assert total == N and shown_accuracy(show_field(window, 0)) == (right, total)
    table = session.field_table(1)
    judged = [table.evaluated_label(r) for r in range(N)]  # a taught row's: by a model not trained on it
    priority = [{"high": "urgent"}.get(r["priority"], r["priority"]) for r in rows]
    right = sum(j == p for j, p in zip(judged, priority, strict=True))
    assert None not in judged and shown_accuracy(show_field(window, 1)) == (right, N)
    again = Evaluation(session.table, evaluation.mappings)  # a restart: what the settings keep
    assert again.detect("text") and again.gold is not None
    assert again.gold.label_for("account", session.table.labels) == "login"


def test_a_new_leads_prompt_dialogs_start_in_the_home_folder(qtbot, window, tmp_path, monkeypatch):
    """W15: a new lead built a two-field prompt and chose File › Save prompt as…; the dialog opened in the settings
    folder (~/.config/ticket-triage, hidden) on prompt.json, the app's own prompt, so 'it_prompt.json' would have
    been saved where the lead never looks. As Open tickets… does since W14: the app's own prompt starts the
    prompt's dialogs (Save prompt as…, Open prompt…, the editor's Export…) in the home folder; a lead's, beside it."""
    from pathlib import Path

    from triage_gui.paths import config_dir

    asked: list[str] = []
    for name in ("getSaveFileName", "getOpenFileName"):
        monkeypatch.setattr(
            f"triage_gui.gui.actions.prompt_actions.QFileDialog.{name}",
            lambda parent, title, start, filters: asked.append(start) or ("", ""),
        )
    monkeypatch.setattr(window.session, "taught_items", lambda: [("my printer jams", "technical")])
    assert window.document.path.parent == config_dir()
    window.prompt.save_as_dialog()
    window.prompt.open_dialog()
    window.prompt.export_taught()
    home = Path.home()
    assert asked == [str(home / "prompt.json"), str(home), str(home / "prompt-taught.csv")]
    mine = tmp_path / "prompts" / "mine.json"
    mine.parent.mkdir()
    window.editor.profile().save(mine)
    assert window.prompt.open(str(mine))
    asked.clear()
    window.prompt.save_as_dialog()
    window.prompt.open_dialog()
    window.prompt.export_taught()
    assert asked == [str(mine), str(mine.parent), str(mine.parent / "mine-taught.csv")]


def test_a_second_field_does_not_widen_the_prompt_editor(qtbot, window, tmp_path):
    """W15 at 1024x640: with a queue and a priority the prompt editor took 444 px of the window (303 with one
    field): its field bar (Field, the selector, Add field…, Rename…, Remove, Move) would not be narrower than
    426 px, so the tickets lost a fifth of their width and, in the priority's column, the ticket text scrolled
    out of sight. The bar now wraps its buttons where the editor is narrow; every one stays whole."""
    from test_window_fields import open_two_fields

    editor = window.editor
    widths = {}
    for size in ((1024, 640), (1366, 768)):
        window.resize(*size)
        qtbot.waitUntil(lambda size=size: window.width() == size[0], timeout=2_000)
        qtbot.wait(50)
        widths[size] = editor.width()
    open_two_fields(qtbot, window, tmp_path)
    for size, one in widths.items():
        window.resize(*size)
        qtbot.waitUntil(lambda size=size: window.width() == size[0], timeout=2_000)
        qtbot.wait(50)  # the layout settles
        assert editor.width() <= one + 2, (size, editor.width(), one)
        bar = editor.field_bar
        for button in (bar.combo, bar.add_button, bar.rename_button, bar.remove_button, bar.move_button):
            place = button.geometry()
            assert place.right() <= bar.width() and place.bottom() <= bar.height(), (size, button.text())
            assert place.width() >= button.sizeHint().width(), (size, button.text())  # whole, not squeezed


def test_a_renamed_label_is_no_flip_in_any_field(qtbot, window, tmp_path):
    """W15: the queue label 'access' renamed 'accounts' and saved, the Flipped tab said "Flipped (41)" and listed
    every ticket of the label, "#2 access → accounts: …", among the two that did change. A rename is no flip: the
    previous labels are read under their new names, in every field."""
    from test_window_field_gold import open_two_fields, settled

    open_two_fields(qtbot, window, tmp_path)
    session = window.session
    queue_before = [session.table.label(r) for r in range(len(session.table))]
    assert "account" in queue_before
    rename_and_save(qtbot, window, settled)
    flips, count = window.evaluation.flips()
    queue_now = [session.table.label(r) for r in range(len(session.table))]
    renamed = {"account": "login"}
    changed = [r for r, (a, b) in enumerate(zip(queue_before, queue_now, strict=True)) if renamed.get(a, a) != b]
    assert count == len(changed) and [f[0] for f in flips] == changed, (count, flips[:3])
    further, count, compared = window.summary.field_versions.flips(1)
    assert compared and not any((old, new) == ("high", "urgent") for _, _, old, new in further), further[:3]


def test_the_run_line_names_the_field_read_after_a_save_that_moves_fields(qtbot, tmp_path, monkeypatch, event_loop_qt):
    """W15: a Save that added 'sentiment' had the language model read it alone ("… · sentiment alone"); the lead
    then moved the sentiment left of the priority and saved (a move reads nothing again), and the run line said
    "priority alone": the fields read were kept by place, and the priority had taken the sentiment's."""
    from test_window_fields_left import stored_two_fields
    from window_fakes import close_fake

    win, session, _ = stored_two_fields(qtbot, tmp_path, monkeypatch)
    line = win.tickets.rate_label
    try:
        editor = win.editor
        editor.field_bar.combo.setCurrentIndex(1)
        editor.instruction.setPlainText("How soon must a person act?")  # the priority alone read again
        assert win.prompt.save()
        qtbot.waitUntil(lambda: "priority alone" in line.text() and session.run_status.state == "done", timeout=15_000)
        editor.field_bar.combo.setCurrentIndex(1)
        editor.field_bar.left_action.trigger()  # the priority, first
        assert win.prompt.save()
        qtbot.waitUntil(lambda: session.field_names == ["priority", "queue"], timeout=10_000)
        qtbot.waitUntil(lambda: not session.busy and session.run_status.state == "done", timeout=15_000)
        qtbot.wait(100)
        assert "queue alone" not in line.text(), line.text()  # the queue was never read again
    finally:
        close_fake(win)


def test_adding_a_second_field_says_what_the_labels_already_there_become(qtbot, window, monkeypatch):
    """W15: a new lead's prompt had the queue's labels; Edit › Add a field… asked only "Field name (a queue, a
    priority…)", the lead typed "priority", and the labels already there became a field called "field 1" (the
    table's column title, the Accuracy tab's Field:) with no word of it, found only in the selector. The first
    addition says so, and how to name it."""
    from PySide6.QtWidgets import QInputDialog

    asked: list[str] = []
    monkeypatch.setattr(QInputDialog, "getText", lambda parent, title, label, **k: asked.append(label) or ("", False))
    window.editor.ask_add_field()
    assert "'field 1'" in asked[-1] and "Rename…" in asked[-1], asked[-1]
    window.editor.add_field("priority")
    window.editor.ask_add_field()  # two fields already: each has its name
    assert asked[-1] == "Field name (a queue, a priority…):", asked[-1]


def test_the_teach_menu_names_the_field_of_the_column_in_use(qtbot, window, tmp_path):
    """With a queue and a priority the Teach menu did not say which field *Check a random sample…*, *Teach next*
    or *Forget everything taught* would act on (W15); each names the field of the column in use. A one-field
    prompt's menu is as it was."""
    actions = window.menu_actions
    assert actions["check"].text() == "&Check a random sample…"
    open_two_fields(qtbot, window, tmp_path)
    window.tickets.select_source_row(2, 1)  # a cell of the priority's column
    actions.refresh()
    assert actions["check"].text() == "&Check a random sample… (priority)"
    assert actions["next"].text() == "Go to the &next ticket to teach (priority)\tN"
    window.tickets.select_source_row(2, 0)
    actions.refresh()
    assert actions["forget_all"].text() == "&Forget everything taught (queue)"
    assert actions["export"].text().startswith("&Export labelled tickets…")  # not a field's
