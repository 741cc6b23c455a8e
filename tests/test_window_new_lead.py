"""A new lead's walkthrough (issue 38), on the fake session: File › New prompt, Save as… with other
labels, Tab in the labels table, the picker's keys past nine, Forget everything asking first, the
Flipped tab's words, the Teach box with nothing selected."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from triage_gui.engine.table import NewRow
from triage_gui.paths import config_dir

Button = QMessageBox.StandardButton


def add_tickets(qtbot, window, n: int = 12) -> None:
    window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(n)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == n, timeout=10_000)


def answer(monkeypatch, target, name: str, reply):
    asked: list[tuple] = []
    monkeypatch.setattr(target, name, lambda *a, **k: asked.append(a) or reply)
    return asked


def check_some(qtbot, window, n: int = 5) -> None:
    session = window.session
    rows = session.draw_checks()[:n]
    for row in rows:
        session.teach([row], session.table.label(row))
    qtbot.waitUntil(lambda: session.check_status.checked == n, timeout=10_000)


def test_new_prompt_asks_first_then_starts_blank_and_keeps_the_tickets(qtbot, window, monkeypatch):
    add_tickets(qtbot, window)
    window.teach([0], window.session.table.labels[0])
    check_some(qtbot, window)
    window.editor.instruction.setPlainText("An unsaved instruction.")
    asked = answer(monkeypatch, QMessageBox, "question", Button.Cancel)
    window.trigger("new_prompt")
    assert asked and "unsaved changes" in asked[0][2] and asked[0][1] == "New prompt"
    assert window.editor.instruction.toPlainText() == "An unsaved instruction."  # cancelled: as it was
    old = window.document.path
    answer(monkeypatch, QMessageBox, "question", Button.Discard)
    window.trigger("new_prompt")
    editor = window.editor
    assert editor.label_names() == [""] and editor.examples.rowCount() == 0
    assert editor.labels.state() == editor.labels.State.EditingState  # the first label, ready to type
    # The labels shown are still the saved prompt's, with the taught ticket they learned from and their checks
    # (tests/test_window_fields_left.py); the new prompt's line says it has none yet.
    assert window.session.taught_items() and window.session.check_status.checked == 5
    assert "%" not in editor.taught_count.text() and "none yet" in editor.taught_count.text()
    assert len(window.session.table) == 12  # the tickets stay
    path = window.document.path
    assert path.name == "new-prompt.json" and path.parent == old.parent and not path.exists()
    assert window.document.history == [] and not window.document.dirty  # untouched: nothing to save yet
    editor.labels.closePersistentEditor(editor.labels.item(0, 0))
    editor.set_profile(editor.profile().__class__(editor.profile().instruction, [*_labels("refund", "delivery")]))
    assert window.prompt.save()
    saved = json.loads(path.read_text())
    assert [x["name"] for x in saved["labels"]] == ["refund", "delivery"]
    assert saved.get("taught", []) == [] and saved.get("checks", []) == []
    assert window.session.taught_items() == [] and window.session.check_status.checked == 0  # the new one's now
    assert [v["number"] for v in saved["history"]] == [1]  # its own numbering, from 1
    assert json.loads(old.read_text())["taught"]  # the old prompt's file keeps its taught ticket


def _labels(*names):
    from triage_gui.engine.prompt import Label

    return [Label(n, f"about {n}") for n in names]


def test_save_as_with_other_labels_shows_no_estimate_from_the_old_labels_checks(qtbot, window, monkeypatch, tmp_path):
    """Save as… copies the document (taught tickets, versions, checks), but the estimate counts only
    checks made on the labels in use: a prompt with other labels showed "~100 % (91–100 %)"."""
    add_tickets(qtbot, window)
    check_some(qtbot, window)
    assert "%" in window.check_status.text()
    copy = tmp_path / "copy.json"
    answer(monkeypatch, QFileDialog, "getSaveFileName", (str(copy), "*.json"))
    window.prompt.save_as_dialog()  # the same labels: the same estimate
    qtbot.waitUntil(lambda: window.session.prompt_status.state == "ready", timeout=10_000)
    assert window.session.check_status.checked == 5 and "%" in window.check_status.text()
    editor = window.editor
    profile = editor.profile()
    editor.set_profile(profile.__class__(profile.instruction, _labels("refund", "delivery"), name="Shop"))
    other = tmp_path / "other.json"
    answer(monkeypatch, QFileDialog, "getSaveFileName", (str(other), "*.json"))
    window.prompt.save_as_dialog()
    qtbot.waitUntil(lambda: window.session.table.labels == ["refund", "delivery"], timeout=10_000)
    qtbot.waitUntil(lambda: window.session.prompt_status.state == "ready", timeout=10_000)
    assert window.session.check_status.checked == 0
    assert "%" not in window.check_status.text() and "%" not in editor.taught_count.text()
    kept = json.loads(other.read_text())
    assert len(kept["checks"]) == 5  # a copy: kept, not counted for these labels
    assert Path(copy).exists()


def test_forget_everything_taught_asks_with_the_count_and_is_one_undo_step(qtbot, window, monkeypatch):
    add_tickets(qtbot, window)
    label = window.session.table.labels[0]
    window.teach([0, 1, 2], label)
    asked = answer(monkeypatch, QMessageBox, "question", Button.Cancel)
    window.trigger("forget_all")
    assert asked and "all 3 taught tickets" in asked[0][2]
    assert len(window.session.taught_items()) == 3  # cancelled: nothing forgotten
    answer(monkeypatch, QMessageBox, "question", Button.Yes)
    window.trigger("forget_all")
    assert window.session.taught_items() == []
    window.trigger("undo")
    assert len(window.session.taught_items()) == 3  # one step brings all three back


def test_the_teach_box_is_empty_with_no_ticket_selected(qtbot, window):
    add_tickets(qtbot, window)
    detail = window.detail
    detail.show_row(3)
    assert detail.teach_box.currentText()
    detail.show_row(-1)
    assert detail.teach_box.currentText() == "" and not detail.teach_box.isEnabled()


def test_the_flipped_tab_says_why_it_is_empty(qtbot, window):
    add_tickets(qtbot, window)
    window.summary.refresh_gold()
    window.results.setCurrentIndex(2)
    note = window.results.flips_note
    assert window.results.tabText(2) == "Flipped" and note.isVisible()
    assert "No earlier version to compare with yet" in note.text()


def test_an_excel_export_keeps_the_input_workbooks_sheet_name(qtbot, window, tmp_path):
    openpyxl = __import__("openpyxl")
    book = openpyxl.Workbook()
    book.active.title = "Messages"
    for row in (["text"], ["where is my parcel"], ["refund please"]):
        book.active.append(row)
    book.save(tmp_path / "shop.xlsx")
    window.ticket_actions.open_files([str(tmp_path / "shop.xlsx")])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 2, timeout=10_000)
    out = tmp_path / "shop-labelled.xlsx"
    assert window.ticket_actions.export(str(out))
    qtbot.waitUntil(out.exists, timeout=10_000)
    assert openpyxl.load_workbook(out, read_only=True).sheetnames == ["Messages"]


def _editor(labels):
    """The open cell editor (what the keys go to)."""
    return labels.indexWidget(labels.currentIndex())


def test_tab_in_the_labels_table_moves_to_the_next_cell_and_adds_a_row_at_the_end(qtbot, window):
    window.activateWindow()
    labels = window.editor.labels
    rows = labels.rowCount()
    labels.setFocus()
    labels.setCurrentCell(0, 1)
    labels.editItem(labels.item(0, 1))
    qtbot.waitUntil(lambda: labels.state() == labels.State.EditingState, timeout=2_000)
    qtbot.keyClick(_editor(labels), Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: (labels.currentRow(), labels.currentColumn()) == (1, 0), timeout=2_000)
    assert labels.state() == labels.State.EditingState and _editor(labels) is not None
    labels.setCurrentCell(rows - 1, 1)
    labels.editItem(labels.item(rows - 1, 1))
    qtbot.waitUntil(lambda: _editor(labels) is not None, timeout=2_000)
    qtbot.keyClicks(_editor(labels), "last")
    qtbot.keyClick(_editor(labels), Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: labels.rowCount() == rows + 1, timeout=2_000)  # a new label row, like a spreadsheet
    assert labels.item(rows - 1, 1).text().endswith("last")
    assert (labels.currentRow(), labels.currentColumn()) == (rows, 0) and _editor(labels) is not None
    qtbot.keyClicks(_editor(labels), "refund")
    qtbot.keyClick(_editor(labels), Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: labels.currentColumn() == 1, timeout=2_000)
    assert window.editor.label_names()[-1] == "refund"
    assert window.editor.examples.rowCount() == len(window.session.profile.examples)  # no example was added


def test_tab_into_a_filled_description_then_typing_replaces_it(qtbot, window):
    """Tab from a label's name into its filled description and typing appended to the old text (W14); now it
    replaces it, as typing in the name cell after Tab does. Opened to edit (double-click, F2), it still adds."""
    window.activateWindow()
    labels = window.editor.labels
    labels.setFocus()
    labels.setCurrentCell(0, 0)
    labels.editItem(labels.item(0, 0))
    qtbot.waitUntil(lambda: _editor(labels) is not None, timeout=2_000)
    assert labels.item(0, 1).text()  # filled
    qtbot.keyClick(_editor(labels), Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: labels.currentColumn() == 1 and _editor(labels) is not None, timeout=2_000)
    qtbot.keyClicks(_editor(labels), "money in or out")
    qtbot.keyClick(_editor(labels), Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: labels.currentRow() == 1, timeout=2_000)
    assert labels.item(0, 1).text() == "money in or out"
    labels.setCurrentCell(0, 1)
    labels.editItem(labels.item(0, 1))
    qtbot.waitUntil(lambda: _editor(labels) is not None, timeout=2_000)
    qtbot.keyClicks(_editor(labels), ", refunds")
    qtbot.keyClick(_editor(labels), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: labels.item(0, 1).text() == "money in or out, refunds", timeout=2_000)


def test_subject_and_body_read_together_as_the_ticket_text(qtbot, window, monkeypatch, tmp_path):
    from triage_gui.gui.tickets import text_columns

    path = tmp_path / "shop.csv"
    path.write_text("subject,body,queue\nOrder 1182,it never came,delivery\nRefund,,billing\n", encoding="utf-8")
    window.ticket_actions.open_files([str(path)])
    table = window.session.table
    qtbot.waitUntil(lambda: len(table) == 2 and not window.session.reading, timeout=10_000)
    combo = window.tickets.text_column
    items = [combo.itemText(i) for i in range(combo.count())]
    assert text_columns.CHOOSE_SEVERAL in items
    asked = answer(monkeypatch, text_columns, "ask", "subject + body")
    combo.setCurrentText(text_columns.CHOOSE_SEVERAL)
    combo.activated.emit(combo.currentIndex())
    assert asked and asked[0][1] == ["subject", "body", "queue"]
    assert table.texts == ["Order 1182\nit never came", "Refund"]  # one line each; an empty body adds nothing
    qtbot.waitUntil(lambda: table.count_scored() == 2, timeout=10_000)  # labelled again from the new text
    assert combo.currentText() == "subject + body"
    gold = window.tickets.gold_combo
    assert [gold.itemText(i) for i in range(gold.count())][1:] == ["queue"]


def test_classify_column_reads_subject_and_body_together(tmp_path):
    from triage_gui.engine.tickets import read_table

    path = tmp_path / "shop.csv"
    path.write_text("subject,body\nOrder 1182,it never came\nRefund,\n", encoding="utf-8")
    table, column, _ = read_table(path, "subject,body")
    assert column == "subject + body" and table.texts == ["Order 1182\nit never came", "Refund"]
    try:
        read_table(path, "subject,bdy")
    except ValueError as exc:
        assert "no column 'bdy'" in str(exc)
    else:
        raise AssertionError("a misspelt column was accepted")


def test_eleven_labels_show_five_rows_at_1024x640_and_the_editor_has_a_splitter(qtbot, window):
    from PySide6.QtWidgets import QSplitter

    from triage_gui.engine.prompt import Label

    profile = window.editor.profile()
    names = [f"queue {i}" for i in range(11)]
    window.editor.set_profile(profile.__class__(profile.instruction, [Label(n, f"about {n} " * 8) for n in names]))
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2_000)
    qtbot.wait(50)
    labels = window.editor.labels
    assert labels.viewport().height() // labels.rowHeight(0) >= 5
    splitter = next(s for s in window.editor.findChildren(QSplitter) if s.isAncestorOf(labels))
    assert splitter.isAncestorOf(window.editor.examples)  # the lead can drag between labels and examples
    taught = window.editor.taught_count
    assert taught.height() <= 5 * taught.fontMetrics().lineSpacing()  # not seven lines beside the buttons


def test_the_run_bar_and_the_status_bar_cut_between_words_with_the_whole_text_in_a_tooltip(qtbot, window):
    from triage_gui.gui.widgets.elided_label import ELLIPSIS

    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2_000)
    line = "80 labelled by the classifier · language model 12 / 80 · 5.4 tickets/s · 5 min left, from the queue"
    for label in (window.tickets.run_bar.rate_label, window.check_status):
        label.setText(line)
        label.resize(label.fontMetrics().horizontalAdvance(line) // 2, label.height())
        shown = label.elided()
        assert ELLIPSIS in shown and shown != line
        words = set(line.split(" "))
        assert all(w in words for w in shown.replace(ELLIPSIS, " ").split()), shown  # no word cut in two
    bar = window.statusBar()
    message = "Accepted 'damaged item' for 3 tickets; Ctrl+Z undoes it. " * 4
    bar.showMessage(message, 10_000)
    shown = bar.shown_message()
    assert shown.endswith(ELLIPSIS) and len(shown) < len(message)
    assert all(w in message.split(" ") for w in shown.removesuffix(ELLIPSIS).split())
    assert bar.toolTip() == message and bar.currentMessage() == message


def test_the_teach_box_is_empty_for_a_ticket_not_labelled_yet(qtbot, window):
    window.session.paste([NewRow({"text": "ticket 0"}, "ticket 0"), NewRow({"text": "   "}, "   ")])
    qtbot.waitUntil(lambda: len(window.session.table) == 2, timeout=10_000)
    window.detail.show_row(1)  # a blank ticket: never labelled
    assert window.session.table.label(1) is None and window.detail.teach_box.currentText() == ""


def test_an_export_onto_the_open_ticket_file_or_the_prompt_file_is_refused_and_nothing_is_written(
    qtbot, window, tmp_path
):
    """An export over the ticket file it was read from got only the file dialog's generic Replace question, then
    replaced the lead's tickets with the export; over the prompt file it wrote a CSV where the prompt was.
    Refused in one sentence, as classify's --out is, and both files are as they were."""
    source = tmp_path / "week-12.csv"
    source.write_text("text\nwhere is my parcel\nrefund please\n", encoding="utf-8")
    window.ticket_actions.open_files([str(source)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 2, timeout=10_000)
    before = source.read_bytes()
    assert not window.ticket_actions.export(str(source))
    assert window.last_message.windowTitle() == "Export refused"
    text = window.last_message.text()
    assert text.startswith("The file ") and text.endswith(
        "week-12.csv is the ticket file open in this window itself; write the results to another file."
    )
    assert source.read_bytes() == before
    prompt = window.document.path
    kept = prompt.read_bytes() if prompt.exists() else None
    assert not window.ticket_actions.export(str(prompt))
    assert "prompt file in use" in window.last_message.text()
    assert (prompt.read_bytes() if prompt.exists() else None) == kept
    out = tmp_path / "week-12-labelled.csv"
    assert window.ticket_actions.export(str(out)) and out.read_text(encoding="utf-8").count("\n") == 3
    window.session.clear()  # the tickets gone, their file is one the window no longer reads
    assert window.session.ticket_files == []


def test_open_tickets_starts_beside_the_last_ticket_file_else_the_prompt_file(qtbot, window, tmp_path, monkeypatch):
    """W11: File › Open tickets… started in the settings folder, not where the lead's files are."""
    asked = []
    monkeypatch.setattr(
        "triage_gui.gui.actions.ticket_actions.QFileDialog.getOpenFileNames",
        lambda parent, title, folder, filters: asked.append(folder) or ([], ""),
    )
    window.ticket_actions.open_dialog()
    # W14: no ticket file yet and the app's own prompt (in its settings folder): the home folder, where a new
    # lead's files are; it showed the settings folder, holding nothing a lead opens
    assert window.document.path.parent == config_dir()
    assert asked[-1] == str(Path.home())
    mine = tmp_path / "prompts" / "mine.json"
    mine.parent.mkdir()
    window.editor.profile().save(mine)
    assert window.prompt.open(str(mine))
    window.ticket_actions.open_dialog()
    assert asked[-1] == str(mine.parent)  # a prompt of the lead's: beside it
    week = tmp_path / "week" / "w12.csv"
    week.parent.mkdir()
    week.write_text("text\nwhere is my parcel\n", encoding="utf-8")
    window.ticket_actions.open_files([str(week)])
    window.ticket_actions.open_dialog()
    assert asked[-1] == str(week.parent)
