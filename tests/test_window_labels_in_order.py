"""A field's labels put in order from the window (W14): a lead built a priority field with low / medium / high in
the prompt editor and the Accuracy tab never counted the labels two steps from their gold one, nor did the table
mark them: only ``"ordered": true`` typed into the prompt file turned it on. The Labels header of a prompt with
several fields has an *in order* box for the field shown: one undo step, saved with the field, and the Accuracy
tab and the table's ‼ marks follow after Save."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from test_session_fields import QUEUE
from test_window_field_gold import PRIORITY, N, settled, show_field, write_file

from triage_gui.engine.prompt import PromptProfile
from triage_gui.gui.tickets.ticket_model import FieldCol
from triage_gui.session.gold import FAR_MARK


@pytest.fixture
def window(encoded_window):
    encoded_window.resize(1024, 640)
    return encoded_window


def test_the_in_order_box_puts_a_fields_labels_in_order_and_the_accuracy_tab_counts_two_steps(qtbot, window, tmp_path):
    path = tmp_path / "two.json"
    PromptProfile.of_fields([QUEUE, replace(PRIORITY, ordered=False)], "Queue and priority").save(path)
    assert window.prompt.open(str(path))
    qtbot.waitUntil(lambda: window.session.field_names == ["queue", "priority"], timeout=10_000)
    write_file(tmp_path / "tickets.csv")
    window.session.open_file(tmp_path / "tickets.csv")
    settled(qtbot, window)
    assert "two or more steps" not in show_field(window, 1)
    editor, model = window.editor, window.model
    box = editor.field_bar.ordered_box
    assert box.isVisible() and not box.isChecked()  # the queue's: in no order
    editor.field_bar.combo.setCurrentIndex(1)
    assert box.isVisible() and not box.isChecked() and "low < medium < high" in box.toolTip()
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert [f.ordered for f in editor.profile().fields] == [False, True]
    assert editor.edit_steps()[0] == "labels of 'priority' in order"
    editor.undo_edit()
    assert not box.isChecked() and not editor.profile().fields[1].ordered
    editor.redo_edit()
    assert box.isChecked()
    editor.field_bar.combo.setCurrentIndex(0)
    assert not box.isChecked()  # each field its own
    assert window.prompt.save()
    assert PromptProfile.load(path).fields[1].ordered
    # it said "Prompt unchanged: nothing to re-label." for a change it had just saved
    assert window.statusBar().currentMessage() == "Nothing the model reads changed: nothing to re-label."
    settled(qtbot, window)
    assert "two or more steps from their gold label (low < medium < high)" in show_field(window, 1)
    column = model.column_index(FieldCol(1, "priority"))
    assert any(str(model.index(r, column).data()).startswith(FAR_MARK) for r in range(N))


def test_a_one_field_prompt_shows_no_in_order_box(qtbot, window):
    assert not window.editor.field_bar.ordered_box.isVisible()
