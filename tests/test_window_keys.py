"""The window's keys, day two, on the fake session: undo and redo of teaching beside the prompt editor's
own undo (routed by focus, menu texts that say what), Enter that accepts only in the ticket table,
Escape that cancels the label picker, learning from gold that asks first, and menu mnemonics."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QApplication, QDialog, QMessageBox, QTextBrowser
from window_fakes import close_fake, fake_window

from triage_gui.engine.table import NewRow
from triage_gui.gui.tickets.ticket_model import Col


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, event_loop_qt):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    win = fake_window(qtbot)
    win.activateWindow()
    yield win
    close_fake(win)


def add_tickets(qtbot, window, n: int = 6, gold: list[str] | None = None) -> None:
    values = gold or [""] * n
    window.session.paste([NewRow({"text": f"ticket {i}", "team": values[i]}, f"ticket {i}") for i in range(n)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == n, timeout=10_000)


def focus(qtbot, widget) -> None:
    widget.activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=2_000)


def taught(window) -> dict[str, str]:
    return dict(window.session.teaching.taught)


# ------------------------------------------------------------------ undo


def test_ctrl_z_undoes_teaching_in_the_table_and_prompt_edits_in_the_editor(qtbot, window):
    add_tickets(qtbot, window)
    table, view, actions = window.session.table, window.tickets.table, window.menu_actions
    undo, redo = actions["undo"], actions["redo"]
    focus(qtbot, view)
    assert undo.text() == "&Undo" and not undo.isEnabled() and not redo.isEnabled()  # nothing to undo yet
    billing = table.labels[0]
    window.teach([0], table.labels[1])
    window.teach([0, 1, 2], billing)  # one step, ticket 0 re-taught
    assert undo.text() == f"&Undo teach 3 tickets '{billing}'" and undo.isEnabled()
    # A prompt edit in the editor: its own history.
    window.editor.labels.item(0, 1).setText("an edited description")
    window.editor.flush_snapshot()
    focus(qtbot, window.editor.labels)
    assert undo.text() == "&Undo prompt edit" and undo.isEnabled()  # not "Undo prompt edit edit prompt"
    qtbot.keyClick(window.editor.labels, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.editor.labels.item(0, 1).text() != "an edited description"  # the prompt edit undone
    assert [table.taught_label(r) for r in range(3)] == [billing] * 3  # the teaching untouched
    assert undo.text() == "&Undo" and redo.text() == "&Redo prompt edit"
    focus(qtbot, view)
    assert undo.text() == f"&Undo teach 3 tickets '{billing}'"  # the menu follows the focus
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert table.taught_label(0) == table.labels[1] and table.taught_label(1) is None  # back to what it was
    assert "Ctrl+Shift+Z" in window.statusBar().currentMessage()
    assert redo.text() == f"&Redo teach 3 tickets '{billing}'"
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert [table.taught_label(r) for r in range(3)] == [billing] * 3
    window.trigger("undo")  # Edit › Undo does the same
    window.trigger("undo")
    assert taught(window) == {} and not undo.isEnabled()
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)


def test_menu_undo_covers_forget_all_delete_and_learning_from_gold(qtbot, window, monkeypatch):
    labels = window.session.table.labels
    add_tickets(qtbot, window, gold=[labels[0], labels[1], "", labels[2], labels[0], ""])
    window.ticket_actions.choose_gold("team")
    view = window.tickets.table
    focus(qtbot, view)
    window.teach([2], labels[1])
    start = taught(window)
    window.tickets.select_source_row(2)
    qtbot.keyClick(view, Qt.Key.Key_Delete)  # forget
    assert taught(window) == {} and window.menu_actions["undo"].text() == "&Undo forget 1 ticket"
    window.trigger("undo")
    assert taught(window) == start
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    window.trigger("forget_all")
    assert taught(window) == {}
    window.trigger("undo")
    assert taught(window) == start
    window.trigger("learn_gold")
    assert len(taught(window)) == 5
    assert window.menu_actions["undo"].text() == "&Undo learn 4 tickets from the gold column"
    window.trigger("undo")
    assert taught(window) == start
    window.trigger("redo")
    assert len(taught(window)) == 5
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)


# ----------------------------------------------------------------- Enter


def test_enter_on_the_guide_teaches_nothing_and_enter_in_the_table_says_what_it_did(qtbot, window):
    add_tickets(qtbot, window)
    view, table = window.tickets.table, window.session.table
    window.tickets.select_source_row(1)
    focus(qtbot, view)
    qtbot.keyClick(view, Qt.Key.Key_F1)  # the guide
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QDialog), timeout=2_000)
    guide = QApplication.activeModalWidget()
    assert "Ctrl+Z" in guide.findChild(QTextBrowser).toPlainText()
    # Enter while the guide is up, where the key lands (the table kept the focus here): no accept.
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert taught(window) == {}
    qtbot.keyClick(guide.focusWidget() or guide, Qt.Key.Key_Return)  # Enter on the guide closes it
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None, timeout=2_000)
    focus(qtbot, view)  # the window is active again; the held Enter repeats into the table
    repeat = QKeyEvent(QKeyEvent.Type.KeyPress, Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier, "\r", True)
    QApplication.sendEvent(view, repeat)
    QApplication.sendEvent(
        view, QKeyEvent(QKeyEvent.Type.KeyRelease, Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier)
    )
    assert taught(window) == {}
    window.tickets.table.selectAll()
    window.tickets.select_source_row(1)
    shown = table.label(1)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert table.taught_label(1) == shown
    assert window.statusBar().currentMessage() == f"Accepted '{shown}' for 1 ticket — Ctrl+Z undoes"
    assert window.menu_actions["undo"].text() == f"&Undo accept '{shown}' for 1 ticket"
    focus(qtbot, window.tickets.search)  # focus elsewhere: Enter is no accept
    window.tickets.select_source_row(2)
    QApplication.sendEvent(view, QKeyEvent(QKeyEvent.Type.KeyPress, Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier))
    assert table.taught_label(2) is None
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)


def test_enter_on_two_rows_of_one_label_says_how_many(qtbot, window):
    add_tickets(qtbot, window)
    table, view = window.session.table, window.tickets.table
    rows = [r for r in range(6) if table.label(r) == table.label(0)][:2]
    if len(rows) < 2:
        pytest.skip("the fake scorer gave every ticket another label")
    focus(qtbot, view)
    selection = view.selectionModel()
    view.clearSelection()
    for r in rows:
        index = window.tickets.proxy.mapFromSource(window.model.index(r, 0))
        selection.select(index, selection.SelectionFlag.Select | selection.SelectionFlag.Rows)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert window.statusBar().currentMessage() == f"Accepted '{table.label(0)}' for 2 tickets — Ctrl+Z undoes"


# ---------------------------------------------------------------- picker


def open_picker(qtbot, window, row: int):
    view = window.tickets.table
    focus(qtbot, view)
    index = window.tickets.proxy.mapFromSource(window.model.index(row, window.model.column_index(Col.LABEL)))
    view.edit(index)
    picker = view.indexWidget(index)
    qtbot.waitUntil(lambda: picker.view().isVisible(), timeout=2_000)
    return picker


@pytest.mark.qt_log_ignore("This plugin does not support")  # the offscreen popup
def test_escape_in_the_label_picker_teaches_nothing(qtbot, window):
    add_tickets(qtbot, window)
    picker = open_picker(qtbot, window, 1)
    shown = window.session.table.label(1)
    assert picker.currentIndex() == 0  # the first item over the cell: a stable place, whatever the label
    assert picker.view().currentIndex().row() == picker.findData(shown)  # the ticket's label selected
    qtbot.keyClick(picker.view(), Qt.Key.Key_Escape)
    qtbot.wait(50)
    view = window.tickets.table  # one Escape leaves: no editor left open on the cell
    assert view.state() != QAbstractItemView.State.EditingState
    focus(qtbot, window.tickets.search)  # leaving the cell used to commit the label the combo showed
    qtbot.wait(50)
    assert taught(window) == {} and window.session.table.taught_label(1) is None


@pytest.mark.qt_log_ignore("This plugin does not support")  # the offscreen popup
def test_picking_a_label_in_the_picker_teaches_it(qtbot, window):
    add_tickets(qtbot, window)
    table = window.session.table
    picker = open_picker(qtbot, window, 1)
    other = next(i for i, name in enumerate(table.labels) if name != table.label(1))
    picker.view().setCurrentIndex(picker.model().index(other, 0))
    qtbot.keyClick(picker.view(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: table.taught_label(1) == table.labels[other], timeout=2_000)
    assert len(window.session.teaching.history.done) == 1


@pytest.mark.qt_log_ignore("This plugin does not support")  # the offscreen popup
def test_the_label_picker_shows_the_keys_that_teach_each_label(qtbot, window):
    add_tickets(qtbot, window)
    table = window.session.table
    picker = open_picker(qtbot, window, 1)
    texts = [picker.itemText(i) for i in range(picker.count())]
    assert texts[0] == f"1  {table.labels[0]}" and texts[1] == f"2  {table.labels[1]}"  # as 1-9 in the table
    qtbot.keyClick(picker.view(), Qt.Key.Key_Escape)


# ------------------------------------------------------------------ gold


def test_learning_from_gold_asks_first_with_the_count(qtbot, window, monkeypatch):
    labels = window.session.table.labels
    gold = [labels[0], labels[1], "", labels[2], labels[0], ""]
    add_tickets(qtbot, window, gold=gold)
    window.ticket_actions.choose_gold("team")
    window.teach([1], labels[0])  # taught another label than its gold one
    window.teach([0], labels[0])  # taught its gold label already: not counted as to teach
    start = taught(window)
    asked: list[tuple] = []
    answer = [QMessageBox.StandardButton.Cancel]

    def question(parent, title, text, buttons, default=QMessageBox.StandardButton.NoButton):
        asked.append((title, text, default))
        return answer[0]

    monkeypatch.setattr(QMessageBox, "question", question)
    window.trigger("learn_gold")
    assert taught(window) == start  # cancelled: nothing taught
    assert QApplication.focusWidget() is window.tickets.table  # the keys work again at once
    mapped = sum(1 for g in gold if g)
    _title, text, default = asked[-1]
    assert re.search(r"Teach (\d+) tickets", text).group(1) == str(mapped - 1)
    assert "1 more are taught their gold label already" in text
    assert "1 of these are taught a different label" in text
    assert default == QMessageBox.StandardButton.Cancel
    answer[0] = QMessageBox.StandardButton.Yes
    window.trigger("learn_gold")
    assert len(taught(window)) == mapped and all(
        window.session.table.taught_label(r) == g for r, g in enumerate(gold) if g
    )
    focus(qtbot, window.tickets.table)  # (with focus in the prompt editor, Undo undoes prompt edits)
    window.trigger("undo")  # the whole column is one step
    assert taught(window) == start
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)


# ------------------------------------------------------------- mnemonics


def mnemonic(text: str) -> str | None:
    found = re.search(r"(?<!&)&([^&])", text.replace("&&", ""))
    return found.group(1).casefold() if found else None


def test_every_menu_title_and_item_has_a_mnemonic_unique_in_its_menu(qtbot, window, tmp_path):
    window.ticket_actions.refresh_recent_menu([str(tmp_path / f"tickets & co {i}.csv") for i in range(3)])
    checked = 0

    def check(actions, where: str) -> None:
        nonlocal checked
        keys: dict[str, str] = {}
        for action in actions:
            if action.isSeparator():
                continue
            key = mnemonic(action.text())
            assert key is not None, f"{where}: {action.text()!r} has no mnemonic"
            assert key not in keys, f"{where}: {action.text()!r} and {keys[key]!r} share &{key}"
            keys[key] = action.text()
            checked += 1
            if action.menu() is not None:
                check(action.menu().actions(), f"{where} › {action.text()}")

    check(window.menuBar().actions(), "menu bar")
    assert checked > 25
    recent = window.ticket_actions.recent_menu
    assert [a.text().split(" ", 1)[0] for a in recent.actions()] == ["&1", "&2", "&3"]
    assert "tickets && co 0.csv" in recent.actions()[0].text()  # a & in a path is no mnemonic


def test_ctrl_1_goes_to_the_prompt_editor_and_ctrl_2_back_to_the_tickets(qtbot, window):
    add_tickets(qtbot, window)
    view = window.tickets.table
    focus(qtbot, view)
    qtbot.keyClick(view, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)  # 25 Shift+Tab before
    qtbot.waitUntil(window.editor.instruction.hasFocus, timeout=2_000)
    assert taught(window) == {}  # Ctrl+1 is not the 1 that teaches
    qtbot.keyClick(window.editor.instruction, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(view.hasFocus, timeout=2_000)
    assert "Ctrl+1" in window.menu_actions["go_prompt"].shortcut().toString()


def test_the_teach_menu_shows_the_table_keys_and_does_what_they_do(qtbot, window):
    """The Teach menu's items showed no key (N for the next ticket, Enter, 1-9, Delete): each now shows
    it beside its title, as the F1 guide does, and acts on the selected tickets like the key."""
    teach = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Teach")
    shown = {a.text().split("\t")[0]: a.text().split("\t")[1] for a in teach.actions() if "\t" in a.text()}
    assert shown == {
        "Go to the &next ticket to teach": "N",
        "&Accept the shown label": "Enter",
        "&Teach a label…": "1 – 9, 0",
        "Forget what the &selected tickets were taught": "Delete",
    }
    guide = dict(window.menu_actions.guide())
    assert {"N", "Enter", "1 – 9, 0", "Delete"} <= guide.keys()
    add_tickets(qtbot, window)
    window.tickets.select_source_row(2)
    shown_label = window.session.table.label(2)
    window.trigger("accept_key")
    assert taught(window) == {"ticket 2": shown_label}
    window.trigger("forget_key")
    assert taught(window) == {}
    assert window.session.teaching.taught == {}


@pytest.mark.qt_log_ignore("This plugin does not support")  # the offscreen popup
def test_teach_a_label_in_the_menu_opens_the_picker_on_the_selected_ticket(qtbot, window):
    add_tickets(qtbot, window)
    window.tickets.select_source_row(3)
    window.trigger("teach_keys")
    view = window.tickets.table
    index = window.tickets.proxy.mapFromSource(window.model.index(3, window.model.column_index(Col.LABEL)))
    qtbot.waitUntil(lambda: view.indexWidget(index) is not None, timeout=2_000)


@pytest.mark.qt_log_ignore("This plugin does not support")  # the offscreen popup
def test_eleven_labels_have_keys_0_for_the_tenth_and_the_picker_selects_by_typing(qtbot, window):
    """A prompt of 10 or more labels: 0 teaches the tenth in the table, and in the picker typing a
    label's name selects it (Enter picks): the eleventh has a way by keyboard too."""
    from triage_gui.engine.prompt import Label

    names = [f"topic{i}" for i in range(9)] + ["refund", "shipping"]
    profile = window.editor.profile()
    window.editor.set_profile(profile.__class__(profile.instruction, [Label(n, f"about {n}") for n in names]))
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.table.labels == names, timeout=10_000)
    add_tickets(qtbot, window)
    table, view = window.session.table, window.tickets.table
    window.tickets.select_source_row(0)
    focus(qtbot, view)
    qtbot.keyClick(view, Qt.Key.Key_0)
    assert table.taught_label(0) == "refund"
    picker = open_picker(qtbot, window, 1)
    assert picker.itemText(9) == "0  refund" and picker.currentIndex() == 0
    qtbot.keyClicks(picker.view(), "sh")
    assert picker.view().currentIndex().row() == 10
    qtbot.keyClick(picker.view(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: table.taught_label(1) == "shipping", timeout=2_000)
