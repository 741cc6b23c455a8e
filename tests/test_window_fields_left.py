"""The two-field walkthrough's left items (issue 34), each as a lead meets it, on the fake session with its fake
encoder: *Teach next* lists the suggestions of the column in use's field and names it; a new ticket's detail
pane starts at the top."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QStyle, QToolButton
from test_window_fields import N, check_row_0, open_two_fields, press

from triage_gui.gui.tickets.ticket_model import Col, FieldCol

PRIORITY = FieldCol(1, "priority")


@pytest.fixture
def window(encoded_window):
    return encoded_window


def listed(window) -> list[int]:
    proxy = window.tickets.proxy
    return [proxy.mapToSource(proxy.index(r, 0)).row() for r in range(proxy.rowCount())]


def test_teach_next_lists_the_suggestions_of_the_column_in_uses_field_and_names_it(qtbot, window, tmp_path):
    open_two_fields(qtbot, window, tmp_path)
    session, tickets = window.session, window.tickets
    qtbot.waitUntil(lambda: bool(session.fields.suggestions and session.fields.suggestions[0]), timeout=10_000)
    press(qtbot, window, 0, Col.LABEL, Qt.Key.Key_Right)  # the queue's column: the first field's list
    tickets.next_only.setChecked(True)
    qtbot.waitUntil(lambda: tickets.next_only.text() == "Teach next (queue)", timeout=5_000)
    queue = [r for r in tickets.suggested if session.table.taught_label(r) is None]
    assert listed(window) == queue[: len(listed(window))] and listed(window)
    press(qtbot, window, 0, PRIORITY, Qt.Key.Key_Right)  # the priority's column: the priority's list
    assert tickets.field_in_use == 1
    qtbot.waitUntil(lambda: tickets.next_only.text() == "Teach next (priority)", timeout=5_000)
    taught = dict(session.fields.items(1))
    second = session.field_table(1)
    want = [r for r in session.fields.suggestions[0] if second.texts[r].strip() not in taught]
    qtbot.waitUntil(lambda: listed(window) == want, timeout=5_000)
    assert want != queue[: len(want)]  # not the queue's list any more
    assert listed(window)[0] == session.field_suggestions(1)[0]  # the list's first is the ticket N goes to
    row = want[0]
    press(qtbot, window, row, PRIORITY, Qt.Key.Key_2)  # teach it its priority "high"
    qtbot.waitUntil(lambda: session.table.texts[row].strip() in dict(session.fields.items(1)), timeout=5_000)
    qtbot.waitUntil(lambda: row not in listed(window), timeout=5_000)  # taught: off the list


def test_a_new_ticket_starts_at_the_top_of_the_detail_pane(qtbot, window, tmp_path):
    window.resize(1024, 640)
    open_two_fields(qtbot, window, tmp_path)
    detail = window.detail
    bar = detail.findChild(QScrollArea).verticalScrollBar()
    window.tickets.select_source_row(3)
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5_000)  # two fields' parts: the pane scrolls
    bar.setValue(bar.maximum())
    detail.show_row(3)  # the same ticket shown again (a refit): where the lead scrolled to
    assert bar.value() == bar.maximum()
    window.tickets.select_source_row(7)
    assert detail.row == 7 and bar.value() == 0
    assert N > 7


def test_the_line_under_the_editor_speaks_of_the_editors_field_alone(qtbot, window, tmp_path):
    open_two_fields(qtbot, window, tmp_path)
    session, line = window.session, window.editor.taught_count
    press(qtbot, window, 0, PRIORITY, Qt.Key.Key_Right)  # the priority's column in use …
    window.trigger("check")
    qtbot.waitUntil(window.tickets.table.hasFocus, timeout=2_000)
    qtbot.keyClick(window.tickets.table, Qt.Key.Key_Return)  # … and a check of the priority
    qtbot.waitUntil(lambda: session.field_check_status(1).checked == 1, timeout=5_000)
    assert window.editor.field_bar.isVisibleTo(window.editor)
    window.editor.show_field(0)  # … while the editor shows the queue: the line is the queue's, taught and estimate
    assert "Taught tickets (queue)" in line.text()
    assert "Accuracy of queue not estimated" in line.text() and "priority" not in line.text()
    window.editor.show_field(1)  # the priority's: its taught ticket and its one check
    qtbot.waitUntil(lambda: "from 1 random check" in line.text(), timeout=2_000)
    assert "Taught tickets (priority):</b> 2" in line.text() and "Accuracy of priority 100%" in line.text()
    assert "queue" not in line.text()
    press(qtbot, window, 0, Col.LABEL, Qt.Key.Key_Right)  # the column in use changes: the line does not
    qtbot.waitUntil(lambda: window.check_status.text() == "Accuracy of queue: not estimated", timeout=2_000)
    assert "Accuracy of priority 100%" in line.text()


def test_after_a_field_moved_and_saved_every_version_number_is_its_own_fields(qtbot, window, tmp_path):
    """Each field numbers its own versions, in the status bar, its Versions tab and its checks; they move with
    the field, so a move renumbers nothing (one numbering, the first field's, said "Prompt ready (v1)" after a
    Save that changed only the priority, and a check on the queue's v2 "on v1" after the move)."""
    from test_window_field_order import settled

    path = open_two_fields(qtbot, window, tmp_path)
    settled(qtbot, window)
    window.editor.instruction.setPlainText("Which team answers this ticket?")
    assert window.prompt.save()  # the queue's v2
    settled(qtbot, window)
    assert window.prompt_status.text() == "Prompt ready (queue v2, priority v1)"
    check_row_0(qtbot, window, (PRIORITY, Col.LABEL))  # a check on each field, made under its version in use
    session = window.session
    qtbot.waitUntil(lambda: session.check_status.checked == session.field_check_status(1).checked == 1, timeout=5_000)
    editor = window.editor
    editor.field_bar.combo.setCurrentIndex(1)
    editor.field_bar.left_action.trigger()  # the priority first
    assert window.prompt.save()
    settled(qtbot, window)
    qtbot.waitUntil(lambda: window.prompt_status.text() == "Prompt ready (priority v1, queue v2)", timeout=5_000)
    results = window.results  # the queue stays chosen by name (walkthrough W3): its own two versions
    assert results.field_choice.currentText() == "queue" and results.versions.rowCount() == 2
    results.field_choice.setCurrentIndex(0)
    results.field_choice.activated.emit(0)
    window.summary.redraw()  # the priority, now first: one version, numbered as the editor and status bar say
    assert [r.number for r in window.document.history] == [1] and results.versions.rowCount() == 1
    qtbot.waitUntil(lambda: " on v1 " in window.check_status.text(), timeout=5_000)  # … and the checks say v1
    assert "v2" not in window.check_status.text() and "on v1 " in editor.taught_count.text()
    assert "Accuracy of priority 100%" in editor.taught_count.text()
    assert session.field_check_status(1).field == "queue" and " on v2 " in session.field_check_status(1).short()
    qtbot.waitUntil(lambda: not window.document.busy, timeout=10_000)
    kept = json.loads(path.read_text(encoding="utf-8"))
    assert sorted((c["field"], c["version"]) for c in kept["checks"]) == [("priority", 1), ("queue", 2)]


def test_a_filter_left_on_through_a_save_stays_meaningful(qtbot, window, tmp_path):
    from test_window_field_order import settled

    open_two_fields(qtbot, window, tmp_path)
    settled(qtbot, window)
    tickets, session = window.tickets, window.session
    press(qtbot, window, 0, PRIORITY, Qt.Key.Key_Right)
    window.trigger("check")  # the priority's sample, To check on
    qtbot.waitUntil(tickets.table.hasFocus, timeout=2_000)
    qtbot.keyClick(tickets.table, Qt.Key.Key_Return)
    sample = list(session.field_check_status(1).to_check)
    assert tickets.checking and listed(window) == sample and sample
    window.editor.show_field(1)
    window.editor.instruction.setPlainText("How urgent is this ticket?")
    assert window.prompt.save()  # a new version: the priority's sample is still the list, its column in use
    settled(qtbot, window)
    qtbot.wait(400)  # the stats timer follows the column in use
    assert tickets.field_in_use == 1 and tickets.checking
    assert listed(window) == list(session.field_check_status(1).to_check) == sample
    assert not tickets.hidden_row.isVisibleTo(window)
    # Show: a queue label that the next version renames: all labels again, said, no row left hidden by it.
    tickets.reset_filters()
    tickets.label_filter.setCurrentIndex(tickets.label_filter.findData("billing"))
    tickets.label_filter.activated.emit(tickets.label_filter.currentIndex())
    assert 0 < len(listed(window)) < N
    window.editor.show_field(0)
    labels = window.editor.labels
    row = [labels.item(r, 0).text() for r in range(labels.rowCount())].index("billing")
    labels.item(row, 0).setText("payments")
    assert window.prompt.save()
    settled(qtbot, window)
    assert tickets.label_filter.currentData() is None and len(listed(window)) == N
    assert (
        window.statusBar().currentMessage() == "Show: billing is no label of this prompt version: showing all labels."
    )


def test_after_new_prompt_the_labels_shown_keep_the_taught_marks_they_learned_from(qtbot, window, tmp_path):
    from test_window_field_order import settled
    from test_window_fields import cell

    from triage_gui.engine.prompt import Label, PromptProfile

    path = open_two_fields(qtbot, window, tmp_path)
    press(qtbot, window, 8, Col.LABEL, Qt.Key.Key_2)  # a queue ticket taught
    settled(qtbot, window)
    session = window.session
    columns = (Col.LABEL, PRIORITY)
    before = {c: [cell(window, r, c) for r in range(N)] for c in columns}
    assert cell(window, 8, Col.LABEL).startswith("✓ ") and any(x.startswith("✓ ") for x in before[PRIORITY])
    window.trigger("new_prompt")
    assert window.tickets.rate_label.text().startswith("Labels from the last saved prompt")
    qtbot.wait(300)  # (a refit would have been started by now)
    settled(qtbot, window)
    assert {c: [cell(window, r, c) for r in range(N)] for c in columns} == before  # the ✓ marks and labels stay
    assert "none yet" in window.editor.taught_count.text()  # the new prompt has nothing taught
    press(qtbot, window, 9, Col.LABEL, Qt.Key.Key_1)  # taught meanwhile: kept for the new prompt
    taught_now = session.table.taught_label(9)
    window.editor.labels.closePersistentEditor(window.editor.labels.item(0, 0))
    labels = [Label(name, f"about {name}") for name in session.table.labels]  # the same label names
    window.editor.set_profile(PromptProfile("Which team answers this ticket?", labels))
    assert window.prompt.save()  # a one-field prompt now
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    qtbot.waitUntil(lambda: session.table.count_scored() == N, timeout=10_000)
    kept = PromptProfile.load(window.document.path)
    assert window.document.path != path and [(e.text, e.label) for e in kept.taught] == [
        (session.table.texts[9], taught_now)
    ]
    assert session.taught_items() == [(session.table.texts[9], taught_now)]  # the new prompt's own, now in use
    assert not cell(window, 8, Col.LABEL).startswith("✓") and cell(window, 9, Col.LABEL).startswith("✓ ")
    assert PromptProfile.load(path).taught  # the old file keeps its own


def test_at_1024x640_with_two_fields_the_ticket_table_keeps_its_rows(qtbot, window, tmp_path):
    open_two_fields(qtbot, window, tmp_path)
    tickets = window.tickets
    table = tickets.table

    def rows_shown() -> float:
        return table.viewport().height() / table.verticalHeader().defaultSectionSize()

    window.resize(1024, 640)
    qtbot.waitUntil(lambda: rows_shown() >= 5, timeout=3_000)  # 3½ under four rows of filters before
    assert not tickets.check_only.isVisibleTo(window)  # the check boxes behind one button …
    button = next(b for b in tickets.findChildren(QToolButton) if b.accessibleName() == "More filters")
    assert button.isVisibleTo(window) and button.text() == "Filters"
    tickets.taught_only.click()  # … which work as they did, and the button says one is on
    assert button.text() == "Filters (1 on)" and "Taught" in button.toolTip()
    assert listed(window) == [r for r in range(N) if window.session.table.taught_label(r) is not None]
    tickets.taught_only.click()
    window.resize(1366, 768)  # room enough: the boxes in the bar again, in their order, the button gone
    qtbot.waitUntil(lambda: tickets.check_only.isVisibleTo(window), timeout=3_000)
    assert not button.isVisibleTo(window) and rows_shown() >= 7
    assert tickets.search.isVisibleTo(window) and not tickets.cell_chip.isVisibleTo(window)


def test_at_1366_with_two_fields_the_status_bar_items_fit_whole_with_the_whole_text_in_their_tips(
    qtbot, window, tmp_path
):
    open_two_fields(qtbot, window, tmp_path)
    window.resize(1366, 768)
    press(qtbot, window, 0, PRIORITY, Qt.Key.Key_Right)
    window.trigger("check")
    qtbot.waitUntil(window.tickets.table.hasFocus, timeout=2_000)
    qtbot.keyClick(window.tickets.table, Qt.Key.Key_Return)  # "priority ~100% (…), 1 check on v1 with 1 taught, …"
    qtbot.waitUntil(lambda: window.check_status.text().startswith("priority ~100%"), timeout=5_000)
    window.model_status.setText("SmolLM2-135M-Instruct (bundled) · cpu")  # as the real window shows it
    qtbot.wait(100)
    items = (window.check_status, window.learn_status, window.model_status)
    assert all(item.elided() == item.text() for item in items), [item.elided() for item in items]
    assert window.check_status.text().endswith("taught, just now")
    # Each field's own count ("Learned from the prompt" was said with the priority's taught tickets, the check's too)
    priority = len(window.session.field_taught()[0])
    assert priority >= 1 and window.learn_status.text() == f"Learned from 0 + {priority} taught"  # the whole in its tip
    each = f"Each field learned from its own taught tickets (queue: 0 taught tickets; priority: {priority} taught"
    assert window.learn_status.toolTip().startswith(each)
    assert window.check_status.toolTip().startswith("Accuracy of priority 100%")


def test_ctrl_o_opens_the_ticket_dialog_from_every_prompt_editor_cell(qtbot, window, tmp_path, monkeypatch):
    """A guard, not a fix: the walkthrough's Ctrl+O typed into an editor cell; offscreen it opens the dialog from
    every cell, edited or not (Qt's shortcut map runs first), before this branch as after."""
    from PySide6.QtWidgets import QApplication, QFileDialog

    open_two_fields(qtbot, window, tmp_path)
    opened: list = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: opened.append(a) or ([], ""))
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2_000)
    editor = window.editor
    for table, column in ((editor.labels, 0), (editor.labels, 1), (editor.examples, 0), (editor.examples, 1)):
        for editing in (False, True):
            table.setFocus()
            table.setCurrentCell(0, column)
            if editing:
                table.editItem(table.item(0, column))
            focused = QApplication.focusWidget()
            text = table.item(0, column).text()
            qtbot.keyClick(focused, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
            assert len(opened) == 1 and opened.pop()[1] == "Open ticket files"
            table.setFocus()  # (closes an editor: its text as it was, nothing typed into it)
            assert table.item(0, column).text() == text


def test_a_field_added_later_is_named_whole_in_the_editors_field_selector(qtbot, window, tmp_path):
    """W11: *Add field…* "sentiment" showed "sentime" in the selector at 1366 and at 1024 px: the combo kept the
    width of the names it had when first shown ("queue", "priority"). The bar still fits the editor."""
    open_two_fields(qtbot, window, tmp_path)
    editor = window.editor
    for size in ((1366, 768), (1024, 640)):
        window.resize(*size)
        editor.add_field("sentiment")
        combo = editor.field_bar.combo
        qtbot.waitUntil(lambda combo=combo: combo.currentText() == "sentiment", timeout=2_000)
        qtbot.wait(50)  # the layout settles
        room = combo.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, combo_option(combo), QStyle.SubControl.SC_ComboBoxEditField, combo
        )
        assert room.width() >= combo.fontMetrics().horizontalAdvance("sentiment"), (size, room.width())
        bar = editor.field_bar
        assert bar.move_button.geometry().right() <= bar.width(), size  # the buttons not pushed out
        editor.undo_edit()


def combo_option(combo):
    from PySide6.QtWidgets import QStyleOptionComboBox

    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return option


def stored_two_fields(qtbot, tmp_path, monkeypatch):
    """A window on a fake session whose scores are stored (a Save reads again only the fields it changed), shown,
    with the two-field prompt and its tickets open; (window, session, fake engine). Close it with ``close_fake``."""
    from fake_engine import FakeEngine
    from test_session_refinement import _stored_engine

    from triage_gui.gui.main_window import MainWindow
    from triage_gui.session.session import Session

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    fake = FakeEngine()
    session = Session(_stored_engine(fake, tmp_path / "scores"), device="cpu", batch_size=8, encoder="fake")
    win = MainWindow(session=session)
    qtbot.addWidget(win, before_close_func=MainWindow.close_now)
    win.show()
    qtbot.waitUntil(lambda: session.prompt_status.state == "ready", timeout=10_000)
    open_two_fields(qtbot, win, tmp_path)
    return win, session, fake


def test_the_run_line_names_the_one_field_a_save_has_the_language_model_read_again(
    qtbot, tmp_path, monkeypatch, event_loop_qt
):
    """W11: a Save that changed only the priority's instruction had the language model read the priority alone
    (6.7 tickets/s, twice the 3.4 of both fields), and the run line still said "each ticket read for 2 fields"."""
    from window_fakes import close_fake

    win, session, fake = stored_two_fields(qtbot, tmp_path, monkeypatch)
    line = win.tickets.rate_label
    try:
        assert line.text().endswith("each ticket read for 2 fields"), line.text()
        fake.gate.clear()  # the language model waits: the line as it reads
        editor = win.editor
        editor.field_bar.combo.setCurrentIndex(1)
        editor.instruction.setPlainText("How soon must a person act?")
        saved = session.prompt_status.version
        assert win.prompt.save()
        qtbot.waitUntil(lambda: session.prompt_status.version > saved and session.running, timeout=10_000)
        qtbot.waitUntil(lambda: "priority" in line.text(), timeout=5_000)
        assert line.text().endswith("each ticket read for the priority alone (the queue as read before)"), line.text()
        fake.gate.set()
        qtbot.waitUntil(lambda: session.run_status.state == "done", timeout=15_000)
        assert "2 fields" not in line.text(), line.text()  # the run that ended read the priority alone
    finally:
        fake.gate.set()
        close_fake(win)
