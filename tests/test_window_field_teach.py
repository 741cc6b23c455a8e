"""The window with a prompt of two fields (issue 34), its detail pane, *Teach next* and random checks per field,
on the fake session with its fake encoder: the pane shows every field's label as that field's cells do and
teaches each field from its own part; Teach next in the priority's column picks the ticket least sure of its
priority; a check on the priority counts in the priority's estimate alone, is kept with its field in the
prompt file and is named in the status bar. A one-field prompt's pane and estimate read as they always have."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt
from test_session_learning import topical
from test_window_fields import N, cell, open_two_fields, press

from triage_gui.engine.learning import suggest
from triage_gui.engine.prompt import PromptProfile
from triage_gui.engine.table import NewRow, decide
from triage_gui.gui.tickets.ticket_model import Col, FieldCol
from triage_gui.session.checks import NOT_ESTIMATED

PRIORITY = FieldCol(1, "priority")


@pytest.fixture
def window(encoded_window):
    return encoded_window


def part_label(origin: str) -> str:
    """The label a part of the pane says (its origin starts "<b>label</b>, …")."""
    return origin.split("<b>", 1)[1].split("</b>", 1)[0] if "<b>" in origin else ""


def test_the_detail_pane_shows_each_fields_label_as_its_cells_do_and_teaches_each_field_from_its_part(
    qtbot, window, tmp_path
):
    open_two_fields(qtbot, window, tmp_path)
    session, detail = window.session, window.detail
    assert [p.title.text() for p in (detail.first, *detail.parts)] == ["<b>queue</b>", "<b>priority</b>"]
    assert detail.first.title.isVisibleTo(detail) and detail.parts[0].title.isVisibleTo(detail)
    assert [p.teach_label.text() for p in (detail.first, *detail.parts)] == ["Teach queue:", "Teach priority:"]
    second = session.field_table(1)
    for row in (0, 3, 11, 17):
        window.tickets.select_source_row(row)
        queue, priority = decide(session.table, row), decide(second, row)
        assert part_label(detail.first.origin.text()) == queue.label == cell(window, row, Col.LABEL).lstrip("✓⚠ ")
        assert part_label(detail.parts[0].origin.text()) == priority.label
        assert cell(window, row, PRIORITY).lstrip("✓⚠ ") == priority.label
        names = [name for name, *_ in detail.parts[0].bars.rows]
        assert names == ["low", "high"] and [name for name, *_ in detail.bars.rows] == session.table.labels
        chosen = [name for name, _, _, bold in detail.parts[0].bars.rows if bold]
        assert chosen == [priority.model_label]
        assert detail.parts[0].teach_box.currentText() == priority.label
        assert detail.teach_box.currentText() == queue.label
        q, p = ("✓ " if x.taught else "" for x in (queue, priority))  # both on one line above the parts
        line = f"<br>queue: <b>{q}{queue.label}</b> · priority: <b>{p}{priority.label}</b>"
        assert detail.header.text().endswith(line)
    # Teaching from the priority's part changes the priority only: the queue's labels and taught set stay.
    row = next(r for r in range(N) if decide(second, r).label == "low" and not decide(second, r).taught)
    window.tickets.select_source_row(row)
    queue_before = [session.table.label(r) for r in range(N)]
    queue_taught = dict(session.taught)
    part = detail.parts[0]
    part.teach_box.setCurrentIndex(part.teach_box.findText("high"))
    part.teach_box.activated.emit(part.teach_box.currentIndex())
    qtbot.waitUntil(lambda: decide(session.field_table(1), row).taught, timeout=10_000)
    assert dict(session.fields.items(1))[session.table.texts[row]] == "high"
    assert cell(window, row, PRIORITY) == "✓ high"
    assert [session.table.label(r) for r in range(N)] == queue_before and dict(session.taught) == queue_taught
    assert session.history.undo_text == "teach 1 ticket 'high' (priority)"
    qtbot.waitUntil(lambda: part.origin.text().startswith("<b>high</b>, taught by you"), timeout=5_000)
    assert part.forget_button.isEnabled() and not detail.forget_button.isEnabled()
    part.forget_button.click()  # Forget in the priority's part forgets the priority
    assert session.table.texts[row] not in dict(session.fields.items(1))
    # The queue's part teaches the queue alone.
    detail.accept_button.click()
    assert session.table.taught_label(row) == queue_before[row]
    assert session.table.texts[row] not in dict(session.fields.items(1))


def test_teach_next_in_the_priority_column_picks_the_ticket_least_sure_of_its_priority(qtbot, window, tmp_path):
    open_two_fields(qtbot, window, tmp_path)
    session = window.session
    press(qtbot, window, 0, PRIORITY, Qt.Key.Key_Right)  # the current cell in the priority's column
    assert window.tickets.field_in_use == 1
    window.trigger("next")
    row = window.tickets.selected_rows()[0]
    assert window.tickets.field_in_use == 1  # still the priority's column: a digit now teaches the priority
    assert "Teach next for priority" in window.statusBar().currentMessage()
    second = session.field_table(1)
    assert not decide(second, row).taught
    # The first field's rule, on the priority's own probabilities (computed here from the table's cells).
    probs = np.array([second.label_probs(r) for r in range(N)], dtype=np.float32)
    top = np.sort(probs, axis=1)
    margins = top[:, -1] - top[:, -2]
    want = suggest(probs, ~second.taught_mask(), second.embeddings.get(np.arange(N)), second.taught_rows(), 1)
    assert row == int(want[0])
    untaught = [r for r in range(N) if not decide(second, r).taught]
    assert margins[row] <= np.median(margins[untaught])  # among the least sure of its priority
    qtbot.keyClick(window.tickets.table, Qt.Key.Key_2)  # teaches it the priority "high"
    assert dict(session.fields.items(1))[session.table.texts[row]] == "high"
    assert session.table.taught_label(row) is None
    qtbot.waitUntil(lambda: decide(session.field_table(1), row).taught, timeout=10_000)
    window.trigger("next")
    assert window.tickets.selected_rows()[0] != row  # taught: not suggested again


def test_a_check_on_the_priority_counts_in_the_priority_estimate_alone_and_is_kept_with_its_field(
    qtbot, window, tmp_path
):
    path = open_two_fields(qtbot, window, tmp_path)
    session, status = window.session, window.check_status
    assert status.text() == "Accuracy of queue: not estimated"  # the first field's, named
    press(qtbot, window, 0, PRIORITY, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: status.text() == "Accuracy of priority: not estimated", timeout=2_000)  # follows
    window.trigger("check")
    assert "for priority" in window.statusBar().currentMessage()
    qtbot.waitUntil(window.tickets.table.hasFocus, timeout=2_000)
    first = window.tickets.selected_rows()[0]
    assert window.tickets.field_in_use == 1 and session.next_to_check(1) == first
    shown = decide(session.field_table(1), first).label
    qtbot.keyClick(window.tickets.table, Qt.Key.Key_Return)  # right: the priority shown
    priority = session.field_check_status(1)
    assert (priority.checked, priority.correct, priority.field) == (1, 1, "priority")
    assert session.check_status.checked == 0  # the queue's estimate has no check
    assert status.text().startswith("priority ~100% (") and "1 check on v" in status.text()
    second = window.tickets.selected_rows()[0]  # the next of the sample, in the priority's column
    assert second != first and window.tickets.field_in_use == 1
    wrong = "low" if decide(session.field_table(1), second).label == "high" else "high"
    qtbot.keyClick(window.tickets.table, Qt.Key.Key_1 if wrong == "low" else Qt.Key.Key_2)
    priority = session.field_check_status(1)
    assert (priority.checked, priority.correct) == (2, 1)
    assert status.text().startswith("priority ~50% (")
    assert session.check_status.checked == 0 and session.table.taught_label(second) is None
    press(qtbot, window, 0, Col.LABEL, Qt.Key.Key_Right)
    press(qtbot, window, 0, Col.LABEL, Qt.Key.Key_Left)  # the queue's column: its own estimate
    qtbot.waitUntil(lambda: status.text() == "Accuracy of queue: not estimated", timeout=2_000)
    qtbot.waitUntil(lambda: not window.document.busy, timeout=10_000)
    kept = PromptProfile.load(path)  # the checks kept with their field
    checks = kept.more_fields[0].checks
    assert kept.checks == [] and [(c.text, c.right) for c in checks] == [
        (session.table.texts[first], shown),
        (session.table.texts[second], wrong),
    ]
    assert checks[0].shown == shown and checks[1].shown != wrong
    assert [c["field"] for c in json.loads(path.read_text(encoding="utf-8"))["checks"]] == ["priority", "priority"]
    window.trigger("undo")  # the last verdict's teach undone: the verdict goes back too, its ticket first to check
    assert session.field_check_status(1).checked == 1 and session.next_to_check(1) == second
    window.trigger("redo")
    assert session.field_check_status(1).checked == 2 and session.check_status.checked == 0


def test_a_one_field_prompt_has_one_untitled_part_and_its_estimate_reads_as_always(qtbot, window):
    session, detail = window.session, window.detail
    session.paste([NewRow({"text": r.text}, r.text) for r in topical(N)])
    qtbot.waitUntil(lambda: not session.busy and session.table.count_scored() == N, timeout=15_000)
    assert detail.parts == [] and not detail.first.title.isVisibleTo(detail)
    assert detail.first.teach_label.text() == "Teach:" and detail.teach_box.accessibleName() == "Teach this ticket"
    assert window.check_status.text() == NOT_ESTIMATED
    window.tickets.select_source_row(2)
    assert part_label(detail.origin.text()) == decide(session.table, 2).label
    assert detail.header.text() == "<b>Ticket #3</b>"  # no line of fields
    window.trigger("check")
    assert window.statusBar().currentMessage().startswith("Check 20 random tickets: Enter if right")
    window.activateWindow()  # Enter accepts only in the focused table of the active window
    qtbot.waitUntil(window.tickets.table.hasFocus, timeout=2_000)
    qtbot.keyClick(window.tickets.table, Qt.Key.Key_Return)
    assert session.check_status.checked == 1 and session.check_status.field == ""
    assert window.check_status.text().startswith("~100% (")


def test_forget_everything_taught_acts_on_the_field_of_the_column_in_use_and_undoes_in_one_step(
    qtbot, window, tmp_path, monkeypatch
):
    """Only priority tickets taught: the menu item is there (it was greyed: it counted the first field's), asks
    with the priority's count, forgets the priority's alone, and one undo brings them back."""
    from PySide6.QtWidgets import QMessageBox

    open_two_fields(qtbot, window, tmp_path)
    session = window.session
    window.session.teach_field(1, [0, 1], "high")
    qtbot.waitUntil(lambda: len(session.fields.items(1)) == 2, timeout=5_000)
    assert not session.taught
    qtbot.waitUntil(window.menu_actions["forget_all"].isEnabled, timeout=2_000)
    asked: list[str] = []

    def question(parent, title, text, *args):
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", question)
    window.tickets.table.setCurrentIndex(  # the queue's column: nothing taught there
        window.tickets.proxy.mapFromSource(window.model.index(0, window.model.column_ids().index(Col.LABEL)))
    )
    window.trigger("forget_all")
    assert not asked and len(session.fields.items(1)) == 2  # said, not asked: nothing taught for the queue
    window.tickets.table.setCurrentIndex(
        window.tickets.proxy.mapFromSource(window.model.index(0, window.model.column_ids().index(PRIORITY)))
    )
    window.trigger("forget_all")
    assert asked == ["Forget all 2 taught tickets for priority? Ctrl+Z brings them back in one step."]
    assert session.fields.items(1) == []
    window.trigger("undo")
    assert len(session.fields.items(1)) == 2
