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
