"""Filters that follow the work (issue 27), on the fake session: *Check a random sample* and *Teach
next* show their list alone, a new file starts with every ticket shown, and a list is shown in its
own order (as drawn, best first) so the next one to answer is the next row."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from triage_gui.engine.table import NewRow
from triage_gui.gui import dialogs


def add_tickets(qtbot, window, n: int = 60) -> None:
    window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(n)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == n, timeout=10_000)


def shown_rows(window) -> list[int]:
    proxy = window.tickets.proxy
    return [proxy.mapToSource(proxy.index(r, 0)).row() for r in range(proxy.rowCount())]


def selected_row(window) -> int:
    return window.tickets.proxy.mapToSource(window.tickets.table.currentIndex()).row()


def test_check_a_random_sample_lists_the_whole_sample_whatever_was_ticked(qtbot, window):
    add_tickets(qtbot, window)
    tickets = window.tickets
    tickets.set_rows(suggested=(1, 2))
    tickets.next_only.setChecked(True)  # Teach next left ticked from before
    tickets.low_only.setChecked(True)
    window.trigger("check")
    queue = window.session.checks.queue
    assert len(queue) == 20
    assert tickets.check_only.isChecked() and not tickets.next_only.isChecked() and not tickets.low_only.isChecked()
    assert shown_rows(window) == queue  # all 20, in the order drawn (2 of 20 were listed)


def test_ticking_teach_next_turns_the_other_filters_off(qtbot, window):
    add_tickets(qtbot, window)
    tickets = window.tickets
    tickets.search.setText("ticket 1")
    tickets.taught_only.setChecked(True)
    tickets.set_rows(suggested=(30, 5, 12))
    tickets.next_only.setChecked(True)
    assert tickets.search.text() == "" and not tickets.taught_only.isChecked()
    assert shown_rows(window) == [30, 5, 12]  # best first, not in file order


def test_a_new_file_starts_with_every_ticket_shown(qtbot, window, tmp_path, monkeypatch):
    add_tickets(qtbot, window)
    window.trigger("check")
    assert window.tickets.check_only.isChecked()
    big = tmp_path / "big.csv"
    big.write_text("text\n" + "".join(f"new ticket {i}\n" for i in range(100)), encoding="utf-8")
    monkeypatch.setattr(dialogs, "replace_or_add", lambda *a: True)
    window.ticket_actions.open_files([str(big)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 100, timeout=10_000)
    window.refresh_stats()
    assert not window.tickets.check_only.isChecked()
    assert window.tickets.proxy.rowCount() == 100  # not an empty table with no hint why


def test_after_each_check_the_next_drawn_ticket_is_the_first_row(qtbot, window):
    add_tickets(qtbot, window)
    window.trigger("check")
    checks, view = window.session.checks, window.tickets.table
    view.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=2_000)
    for _ in range(3):
        expected = checks.queue[1]
        assert selected_row(window) == checks.queue[0] == shown_rows(window)[0]
        qtbot.keyClick(view, Qt.Key.Key_Return)  # the label is right
        assert selected_row(window) == expected == shown_rows(window)[0]  # no jump: the next row drawn


def test_sorting_by_a_column_still_wins_over_the_lists_order(qtbot, window):
    add_tickets(qtbot, window)
    tickets = window.tickets
    tickets.set_rows(suggested=(30, 5, 12))
    tickets.next_only.setChecked(True)
    tickets.table.sortByColumn(window.model.columns().index("Ticket"), Qt.SortOrder.AscendingOrder)
    assert shown_rows(window) == [12, 30, 5]  # "ticket 12" < "ticket 30" < "ticket 5"


def test_a_table_emptied_by_the_filters_says_which_and_shows_all_again(qtbot, window):
    add_tickets(qtbot, window)
    tickets = window.tickets
    tickets.taught_only.setChecked(True)  # nothing taught yet
    tickets.search.setText("ticket 1")
    assert tickets.proxy.rowCount() == 0
    assert tickets.hidden_row.isVisibleTo(tickets)
    assert tickets.hidden.text() == "None of the 60 tickets passes Taught, the search 'ticket 1'."
    tickets.hidden_row.findChild(QPushButton).click()  # Show all
    assert tickets.proxy.rowCount() == 60 and not tickets.hidden_row.isVisibleTo(tickets)
