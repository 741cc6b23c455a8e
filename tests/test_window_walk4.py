"""Walkthrough W4's window defects (a German file, two fields), each as a lead met it, on the fake session with
its fake encoder: scrolling the detail pane over a Teach box taught the ticket; *Show all* left the Filters
button saying a filter was on; switching the sentence encoder relabelled every ticket without a word; with two
fields the first field's gold combo was a bare "Gold:" beside "Gold (priority):"."""

from __future__ import annotations

import pytest
from fake_engine import FakeEngine
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea, QToolButton
from test_window_fields import open_two_fields

from triage_gui.engine.model import E5_SMALL
from triage_gui.gui.main_window import MainWindow
from triage_gui.session.session import Session


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, event_loop_qt):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    fake = FakeEngine()
    win = MainWindow(session=Session(fake.as_engine(), device="cpu", batch_size=8, encoder="fake"))
    qtbot.addWidget(win, before_close_func=MainWindow.close_now)
    win.show()
    qtbot.waitUntil(lambda: win.session.prompt_status.state == "ready", timeout=10_000)
    yield win
    win.close_now()


def wheel_down(widget) -> bool:
    """One notch of the mouse wheel, down, over the middle of ``widget`` (as the pointer passing over it); whether
    the widget took it (Qt hands a real turn that a widget ignores on to its parent, the pane's scroll area; one
    sent from here goes no further, so the test asks the event)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)
    return event.isAccepted()


def test_scrolling_the_detail_pane_over_a_teach_box_teaches_nothing_and_scrolls_the_pane(qtbot, window, tmp_path):
    window.resize(1024, 640)
    open_two_fields(qtbot, window, tmp_path)
    session, detail = window.session, window.detail
    window.tickets.select_source_row(4)
    bar = detail.findChild(QScrollArea).verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5_000)  # two fields' parts: the pane scrolls
    taught = (session.table.taught_label(4), dict(session.fields.items(1)))
    for part in (detail.first, *detail.parts):
        box = part.teach_box
        assert box.isEnabled() and box.count() > 1 and not box.hasFocus()
        shown = box.currentIndex()
        took = wheel_down(box)  # the pointer over the box while the lead scrolls the pane
        qtbot.wait(50)
        assert box.currentIndex() == shown  # before: the next label, taught ("Taught 1 ticket 'top-up and cash'")
        assert not took  # left to the scroll area under it, which scrolls the pane
    qtbot.wait(200)
    assert (session.table.taught_label(4), dict(session.fields.items(1))) == taught
    assert not session.history.undo_text  # nothing taught, nothing to undo
    box = detail.parts[0].teach_box
    window.activateWindow()
    box.setFocus()  # clicked or tabbed to: then the wheel picks, as a combo box does
    qtbot.waitUntil(box.hasFocus, timeout=2_000)
    shown = box.currentIndex()
    assert wheel_down(box)
    assert box.currentIndex() == min(shown + 1, box.count() - 1)


def test_show_all_leaves_the_filters_button_saying_no_filter_is_on(qtbot, window, tmp_path):
    open_two_fields(qtbot, window, tmp_path)
    window.resize(1024, 640)
    tickets = window.tickets
    button = next(b for b in tickets.findChildren(QToolButton) if b.accessibleName() == "More filters")
    qtbot.waitUntil(lambda: button.isVisibleTo(window), timeout=3_000)  # the boxes behind the button
    tickets.show_only(tickets.check_only)  # Check a random sample: To check on, alone
    assert button.text() == "Filters (1 on)"
    tickets.reset_filters()  # Show all (the line over an empty table), or a new file
    assert not any(b.isChecked() for b in (tickets.check_only, tickets.taught_only, tickets.low_only))
    assert button.text() == "Filters"  # before: "Filters (1 on)" with every box off
    assert "To check" not in button.toolTip()
    tickets.taught_only.click()  # a box clicked still counts
    assert button.text() == "Filters (1 on)" and "Taught" in button.toolTip()


def test_switching_the_sentence_encoder_says_so_in_the_status_bar(qtbot, window, tmp_path):
    open_two_fields(qtbot, window, tmp_path)
    window.statusBar().clearMessage()
    window.app_actions.use_encoder(E5_SMALL)  # Model › Choose model…, multilingual-e5-small, OK
    message = window.statusBar().currentMessage()
    assert message == "Sentence encoder: multilingual-e5-small; every ticket is labelled again."
    window.statusBar().clearMessage()
    window.app_actions.use_encoder(E5_SMALL)  # the one in use, chosen again: nothing changes, nothing said
    assert window.statusBar().currentMessage() == ""


def test_with_two_fields_the_first_fields_gold_combo_is_named_and_follows_a_move(qtbot, window, tmp_path):
    from test_window_field_order import settled

    from triage_gui.engine.prompt import PromptProfile

    gold = window.tickets.field_gold
    assert gold.first_label is not None and gold.first_label.text() == "Gold:"  # one field: as it was
    open_two_fields(qtbot, window, tmp_path)
    settled(qtbot, window)
    qtbot.waitUntil(lambda: gold.first_label.text() == "Gold (queue):", timeout=5_000)  # before: "Gold:"
    window.editor.field_bar.combo.setCurrentIndex(1)
    window.editor.field_bar.left_action.trigger()  # the priority first
    assert window.prompt.save()
    settled(qtbot, window)
    qtbot.waitUntil(lambda: gold.first_label.text() == "Gold (priority):", timeout=5_000)
    assert gold.first.currentText() == "(none)"  # (no gold column in this file)
    path = tmp_path / "one.json"
    PromptProfile("Which team?", window.editor.profile().labels).save(path)
    assert window.prompt.open(str(path))
    qtbot.waitUntil(lambda: gold.first_label.text() == "Gold:", timeout=5_000)  # one field again
