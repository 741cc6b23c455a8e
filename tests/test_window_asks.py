"""The window asks before losing or burying work (issue 27), on the fake session: a paste over loaded
tickets asks Replace/Add as a file does, Ctrl+V on the empty table pastes tickets, Clear asks once
there are labels or teaching, quitting with unsaved prompt edits asks Save/Discard/Cancel, and the
last file opened is offered on the empty table at start."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox
from window_fakes import close_fake, fake_window

from triage_gui.engine.table import NewRow
from triage_gui.gui import dialogs

Button = QMessageBox.StandardButton


def add_tickets(qtbot, window, n: int = 12) -> None:
    window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(n)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == n, timeout=10_000)


def answer(monkeypatch, target, name: str, reply):
    """Answer a dialog with ``reply`` and keep what it was asked."""
    asked: list[tuple] = []
    monkeypatch.setattr(target, name, lambda *a, **k: asked.append(a) or reply)
    return asked


def test_a_paste_over_loaded_tickets_asks_replace_or_add(qtbot, window, monkeypatch):
    add_tickets(qtbot, window)
    table = window.session.table
    asked = answer(monkeypatch, dialogs, "replace_or_add", None)
    window.ticket_actions.paste_text("my card is lost\nrefund please\n")
    assert asked and asked[0][1:] == (12, ["the 2 pasted tickets"], "Paste tickets")
    assert len(table) == 12  # cancelled: nothing pasted
    answer(monkeypatch, dialogs, "replace_or_add", False)
    window.ticket_actions.paste_text("my card is lost\nrefund please\n")
    assert len(table) == 14  # added
    answer(monkeypatch, dialogs, "replace_or_add", True)
    window.ticket_actions.paste_text("my card is lost\nrefund please\n")
    qtbot.waitUntil(lambda: table.count_scored() == 2, timeout=10_000)
    assert table.texts == ["my card is lost", "refund please"]  # replaced


def test_ctrl_v_on_the_empty_table_pastes_tickets_not_into_the_search_box(qtbot, window):
    window.activateWindow()
    empty = window.tickets.empty
    qtbot.waitUntil(lambda: QApplication.focusWidget() is empty, timeout=2_000)
    QGuiApplication.clipboard().setText("my card is lost\nrefund please\n")
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert window.session.table.texts == ["my card is lost", "refund please"]
    assert window.tickets.search.text() == ""


def test_clear_asks_once_tickets_are_labelled_and_says_it_cannot_be_undone(qtbot, window, monkeypatch):
    add_tickets(qtbot, window)
    window.teach([0], window.session.table.labels[0])
    asked = answer(monkeypatch, QMessageBox, "question", Button.Cancel)
    window.trigger("clear")
    assert len(window.session.table) == 12  # cancelled
    text = asked[0][2]
    assert "12 tickets and 12 labels" in text and "cannot be undone" in text and "(1 ticket)" in text
    answer(monkeypatch, QMessageBox, "question", Button.Yes)
    window.trigger("clear")
    assert len(window.session.table) == 0


def test_quitting_with_unsaved_prompt_edits_asks_save_discard_or_cancel(qtbot, window, monkeypatch):
    window.editor.instruction.setPlainText("An unsaved instruction.")
    assert window.document.dirty
    asked = answer(monkeypatch, QMessageBox, "question", Button.Cancel)
    window.close()
    assert window.isVisible() and asked and "unsaved changes" in asked[0][2]  # Cancel: still open
    assert asked[0][3] == Button.Save | Button.Discard | Button.Cancel
    answer(monkeypatch, QMessageBox, "question", Button.Discard)
    window.close()
    assert not window.isVisible()
    assert not window.document.draft_path.exists()  # discarded: the draft does not come back at start


def test_save_on_quit_saves_the_prompt(qtbot, window, monkeypatch):
    window.editor.instruction.setPlainText("A saved instruction.")
    answer(monkeypatch, QMessageBox, "question", Button.Save)
    window.close()
    assert not window.isVisible()
    assert "A saved instruction." in window.document.path.read_text(encoding="utf-8")


def test_a_clean_prompt_quits_without_a_question(qtbot, window):
    window.close()  # the dialog guard fails the test if anything asks
    assert not window.isVisible()


def test_the_empty_table_offers_the_last_file_opened(qtbot, window, tmp_path, event_loop_qt):
    last = tmp_path / "monday.csv"
    last.write_text("text\nmy card is lost\nrefund please\n", encoding="utf-8")
    window.ticket_actions.open_files([str(last)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 2, timeout=10_000)
    close_fake(window)
    second = fake_window(qtbot)  # the next start, same settings
    try:
        button = second.tickets.empty.recent_button
        assert button.isVisible() and "monday.csv" in button.text()
        button.click()
        qtbot.waitUntil(lambda: second.session.table.count_scored() == 2, timeout=10_000)
    finally:
        close_fake(second)


def test_a_teach_key_on_many_selected_tickets_asks_first_and_is_one_undo_step(qtbot, window, monkeypatch):
    """Ctrl+A then a digit taught every selected ticket without a word: now it asks, and Ctrl+Z takes
    the whole teach back in one step."""
    add_tickets(qtbot, window, 30)
    view, table = window.tickets.table, window.session.table
    label = table.labels[1]
    window.activateWindow()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert len(view.selected_rows()) == 30
    asked = answer(monkeypatch, QMessageBox, "question", Button.Cancel)
    qtbot.keyClick(view, Qt.Key.Key_2)
    assert asked and "30 selected tickets" in asked[0][2] and f"'{label}'" in asked[0][2]
    assert window.session.teaching.taught == {}  # cancelled: nothing taught
    window.teaching.accept(view.selected_rows())  # Enter on them asks too
    assert len(asked) == 2 and window.session.teaching.taught == {}
    answer(monkeypatch, QMessageBox, "question", Button.Yes)
    qtbot.keyClick(view, Qt.Key.Key_2)
    assert len(window.session.teaching.taught) == 30
    window.trigger("undo")
    assert window.session.teaching.taught == {}  # one step
    window.tickets.select_source_row(3)
    qtbot.keyClick(view, Qt.Key.Key_2)  # one ticket: the dialog guard fails the test if this asks
    assert window.session.teaching.taught == {"ticket 3": label}
