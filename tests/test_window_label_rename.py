"""A label renamed in the prompt editor takes its taught tickets along (W14): a lead taught two tickets
'accounts', renamed the label 'identity' and saved; the taught tickets kept 'accounts', a label the prompt no
longer had, so the fit left them out ("Learned from 12 + 12 taught" of 14 + 12), one of them went back to the
first pass's 'printing' and the export said "first pass" for it, while the editor still counted 15 taught. Each
field's taught tickets follow a rename of its own labels; a label removed still strands its tickets (kept
with the prompt, left out of the fit, as before)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from test_session_learning import topical
from test_window_fields import cell, open_two_fields, press

from triage_gui.engine.prompt import PromptProfile
from triage_gui.engine.table import NewRow
from triage_gui.gui.tickets.ticket_model import Col, FieldCol
from triage_gui.session.label_renames import renamed_labels

PRIORITY = FieldCol(1, "priority")


@pytest.fixture
def window(encoded_window):
    return encoded_window


def rename(editor, row: int, name: str) -> None:
    editor.labels.item(row, 0).setText(name)  # as typing in the cell commits it
    editor.flush_snapshot()


def test_a_renamed_label_keeps_its_taught_tickets_in_every_field(qtbot, window, tmp_path):
    path = open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    press(qtbot, window, 2, Col.LABEL, Qt.Key.Key_1)  # the queue's 'billing'
    press(qtbot, window, 5, PRIORITY, Qt.Key.Key_2)  # the priority's 'high'
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    texts = session.table.texts
    assert session.taught[texts[2]] == "billing" and dict(session.fields.items(1))[texts[5]] == "high"
    rename(editor, 0, "payments")
    editor.field_bar.combo.setCurrentIndex(1)
    rename(editor, 1, "urgent")
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and session.field_names == ["queue", "priority"], timeout=15_000)
    assert session.taught[texts[2]] == "payments"
    assert dict(session.fields.items(1))[texts[5]] == "urgent"
    assert dict(session.fields.items(1))["refund problem number 0"] == "urgent"  # taught in the file before
    assert session.head_status.stranded == 0  # none left out of the fit
    qtbot.waitUntil(lambda: cell(window, 2, Col.LABEL) == "✓ payments", timeout=10_000)
    qtbot.waitUntil(lambda: cell(window, 5, PRIORITY) == "✓ urgent", timeout=10_000)
    qtbot.waitUntil(lambda: not window.document.busy, timeout=10_000)
    kept = PromptProfile.load(path)
    assert (texts[2], "payments") in [(e.text, e.label) for e in kept.taught]
    assert {(texts[5], "urgent"), ("refund problem number 0", "urgent")} <= {
        (e.text, e.label) for e in kept.more_fields[0].taught
    }


def test_a_removed_label_strands_its_tickets_and_a_rename_taken_back_renames_nothing(qtbot, window, tmp_path):
    open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    press(qtbot, window, 2, Col.LABEL, Qt.Key.Key_3)  # 'account'
    press(qtbot, window, 3, Col.LABEL, Qt.Key.Key_2)  # 'technical'
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    texts = session.table.texts
    rename(editor, 1, "tech")
    rename(editor, 1, "technical")  # taken back by typing the old name
    editor.labels.selectRow(2)
    editor._remove_row(editor.labels)  # 'account' removed (the − button)
    editor.flush_snapshot()
    assert editor.label_names() == ["billing", "technical"]
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy, timeout=15_000)
    assert session.taught[texts[3]] == "technical"
    assert session.taught[texts[2]] == "account"  # kept with the prompt, left out of the fit
    qtbot.waitUntil(lambda: session.head_status.stranded == 1, timeout=10_000)


def test_renames_chain_and_apply_only_where_the_old_name_went_and_the_new_one_came():
    renames = [("a", "b"), ("b", "c"), ("x", "y"), ("y", "x"), ("m", "n")]
    assert renamed_labels(renames, ["a", "x", "m", "k"], ["c", "x", "m", "k"]) == {"a": "c"}
    assert renamed_labels(renames, ["a", "m"], ["c", "n"]) == {"a": "c", "m": "n"}
    assert renamed_labels(renames, ["q"], ["c"]) == {}  # the old name was never this field's
    assert renamed_labels([("a", "b")], ["a", "b"], ["b"]) == {}  # 'b' was there already: a removal


def test_the_line_under_the_editor_says_how_many_taught_tickets_a_removed_label_left_out(qtbot, window, tmp_path):
    """It said "Taught tickets (queue): 15 (kept with this prompt)" while the status bar said "Learned from 12":
    three of them were taught labels the prompt no longer had (W14)."""
    open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    press(qtbot, window, 2, Col.LABEL, Qt.Key.Key_3)  # 'account'
    press(qtbot, window, 3, Col.LABEL, Qt.Key.Key_2)  # 'technical'
    press(qtbot, window, 4, PRIORITY, Qt.Key.Key_1)  # 'low'
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert "Taught tickets (queue):</b> 2 (kept with this prompt)<br>" in editor.taught_count.text()
    editor.labels.selectRow(2)
    editor._remove_row(editor.labels)  # 'account' removed
    editor.flush_snapshot()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and session.head_status.stranded == 1, timeout=15_000)
    line = editor.taught_count.text()
    assert "Taught tickets (queue):</b> 2 (kept with this prompt; 1 of them under a label it no longer has" in line
    editor.field_bar.combo.setCurrentIndex(1)  # the priority's line: none left out
    assert "Taught tickets (priority):</b> 2 (kept with this prompt)<br>" in editor.taught_count.text()


def test_a_one_field_prompt_renames_its_taught_tickets_too(qtbot, window):
    session, editor = window.session, window.editor
    session.paste([NewRow({"text": r.text}, r.text) for r in topical(12)])
    qtbot.waitUntil(lambda: not session.busy and session.table.count_scored() == 12, timeout=15_000)
    first = editor.label_names()[0]
    press(qtbot, window, 1, Col.LABEL, Qt.Key.Key_1)
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert session.taught[session.table.texts[1]] == first
    rename(editor, 0, "payments")
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy, timeout=15_000)
    assert session.taught[session.table.texts[1]] == "payments" and session.head_status.stranded == 0


def test_undo_and_redo_of_a_teach_before_a_rename_use_the_new_name(qtbot, window, tmp_path):
    """Taught 'billing', renamed 'payments' and saved: Redo of that teach after its Undo taught 'billing', a
    label the prompt no longer had (the ticket set aside, its ✓ gone), and the menu said "Redo teach 1 ticket
    'billing'". Each step follows the rename, in each field."""
    open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    press(qtbot, window, 2, Col.LABEL, Qt.Key.Key_1)  # the queue's 'billing'
    press(qtbot, window, 5, PRIORITY, Qt.Key.Key_2)  # the priority's 'high'
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    texts = session.table.texts
    rename(editor, 0, "payments")
    editor.field_bar.combo.setCurrentIndex(1)
    rename(editor, 1, "urgent")
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and session.field_names == ["queue", "priority"], timeout=15_000)
    assert session.history.undo_text == "teach 1 ticket 'urgent' (priority)"
    session.history.undo()
    session.history.undo()
    assert session.history.redo_text == "teach 1 ticket 'payments' (queue)"
    session.history.redo()
    session.history.redo()
    assert session.taught[texts[2]] == "payments" and dict(session.fields.items(1))[texts[5]] == "urgent"
    qtbot.waitUntil(lambda: cell(window, 2, Col.LABEL) == "✓ payments", timeout=10_000)
    qtbot.waitUntil(lambda: cell(window, 5, PRIORITY) == "✓ urgent", timeout=10_000)


def test_a_renamed_label_keeps_each_fields_random_checks_counted(qtbot, window, tmp_path):
    """Two random checks in each field, then a label of each renamed and saved: every check counted as "made on
    other labels" (the estimate gone, "Accuracy: not estimated"), since the version they were made on has the
    old name (W14). They now count, under the new names, the estimate saying the prompt changed since."""
    from triage_gui.engine.table import decide

    path = open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    for field in (0, 1):
        table = session.table if not field else session.field_table(1)
        for row in session.draw_checks(field)[:2]:
            session.teach_field(field, [row], decide(table, row).label)  # "right as shown"
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert session.check_status.checked == 2 and session.field_check_status(1).checked == 2
    rename(editor, 0, "payments")
    editor.field_bar.combo.setCurrentIndex(1)
    rename(editor, 1, "urgent")
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and session.field_names == ["queue", "priority"], timeout=15_000)
    session.refresh_checks()
    for status in (session.check_status, session.field_check_status(1)):
        assert status.checked == 2 and status.other_labels == 0, status
        assert "(may have changed)" in status.short()
    qtbot.waitUntil(lambda: not window.document.busy, timeout=10_000)
    kept = PromptProfile.load(path)  # and a restart counts them too: the renames are kept with each check
    assert all(dict(c.renamed) == {"billing": "payments"} for c in kept.checks)
    assert all(c.right in kept.more_fields[0].label_names for c in kept.more_fields[0].checks)


def test_a_checks_renames_chain_and_a_prompt_file_keeps_only_readable_ones():
    from triage_gui.engine.prompt._checked import CheckRecord, read_checks

    check = CheckRecord("t", "a", "x", 1, 0, 1.0)
    twice = check.with_renames({"a": "b"}).with_renames({"b": "c"})
    assert (twice.right, twice.shown, dict(twice.renamed)) == ("c", "x", {"a": "c"})
    back = check.with_renames({"x": "y"}).with_renames({"y": "x"})
    assert back.shown == "x" and back.renamed == ()
    assert read_checks([twice.to_dict()]) == [twice]
    entry = twice.to_dict() | {"renamed": {"a": "c", "": "d", "e": 5}}
    assert read_checks([entry])[0].renamed == (("a", "c"),)
    assert read_checks([twice.to_dict() | {"renamed": ["a", "c"]}])[0].renamed == ()  # unreadable: none
