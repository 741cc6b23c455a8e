"""*Suggest labels…* in the window (fake session, tickets with first-pass embeddings put in place): the
groups in a dialog, merged, split, dropped and accepted as labels with descriptions in the prompt editor,
one Undo taking them back; the dialog's own edits on a grouping built here."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QTableWidgetSelectionRange
from test_grouping import TOPICS, blobs

from triage_gui.engine.grouping import find_groups
from triage_gui.engine.prompt import default_profile
from triage_gui.engine.table import NewRow
from triage_gui.gui.prompt.suggest_dialog import SuggestDialog


def loaded(window) -> list[str]:
    vectors, texts, _ = blobs()
    window.session.paste([NewRow({"text": t}, t) for t in texts])
    window.session.table.apply_embeddings(list(range(len(texts))), vectors)  # the first pass's, as stored
    return texts


async def run_here(fn, *args):
    return fn(*args)


def test_suggested_groups_become_labels_with_descriptions_and_undo_takes_them_back(window, qtbot):
    texts = loaded(window)
    before = window.prompt.editor.profile().label_names
    window.menu_actions["suggest"].trigger()
    qtbot.waitUntil(lambda: window.prompt.suggest_dialog is not None, timeout=20_000)
    dialog = window.prompt.suggest_dialog
    assert dialog.table.rowCount() == len(TOPICS)
    assert "fit no group well" in dialog.summary.text()
    dialog.table.selectRow(0)
    assert texts[dialog.grouping.groups[0].representatives[0]] in dialog.examples.toPlainText()
    dialog.table.item(0, 0).setText("Lost cards")  # renamed in its cell
    dialog.buttons["accept"].click()
    editor = window.prompt.editor
    profile = editor.profile()
    assert profile.label_names[0] == "Lost cards" and len(profile.labels) == len(TOPICS)
    assert all(label.description for label in profile.labels)
    assert {e.label for e in profile.examples} == set(profile.label_names)
    assert not profile.problems()
    editor.undo_stack.undo()
    assert editor.profile().label_names == before


def test_merge_split_drop_and_more_in_the_dialog(qtbot, event_loop_qt):
    vectors, texts, _ = blobs()
    grouping = find_groups(np.arange(len(texts)), vectors, texts)
    dialog = SuggestDialog(grouping, texts, run_here, default_profile())
    qtbot.addWidget(dialog)
    accepted = []
    dialog.accepted_profile.connect(accepted.append)
    dialog.table.selectRow(0)
    assert not dialog.buttons["merge"].isEnabled()  # one group chosen: nothing to merge
    dialog.table.setRangeSelected(QTableWidgetSelectionRange(0, 0, 1, dialog.table.columnCount() - 1), True)
    dialog.buttons["merge"].click()
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 3, timeout=10_000)
    merged = dialog.grouping.groups[0].size
    dialog.table.clearSelection()
    dialog.table.selectRow(0)
    dialog.buttons["split"].click()
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 4, timeout=10_000)
    assert dialog.grouping.groups[0].size + dialog.grouping.groups[1].size == merged
    dialog.table.clearSelection()
    dialog.table.selectRow(3)
    none = dialog.grouping.none_count
    dropped = dialog.grouping.groups[3].size
    dialog.buttons["drop"].click()
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 3, timeout=10_000)
    assert dialog.grouping.none_count == none + dropped
    dialog.buttons["more"].click()
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 4, timeout=10_000)
    dialog.buttons["accept"].click()
    assert len(accepted) == 1 and accepted[0].label_names == [g.name for g in dialog.grouping.groups]
    accepted[0].validate()


def test_new_labels_for_poorly_fitted_tickets_say_what_they_take_over_and_are_added(window, qtbot):
    texts = loaded(window)
    table = window.session.table
    qtbot.waitUntil(lambda: table.count_scored() == len(texts), timeout=20_000)
    poor = [r for r in range(len(texts)) if (table.confidence(r) or 0) < 0.5]
    assert len(poor) >= 20  # the fake prompt's three labels fit these tickets badly
    before = window.prompt.editor.profile().label_names
    window.menu_actions["suggest_missing"].trigger()
    qtbot.waitUntil(lambda: window.prompt.suggest_dialog is not None, timeout=20_000)
    dialog = window.prompt.suggest_dialog
    assert len(dialog.grouping.rows) == len(poor)  # only the poorly fitted tickets
    group = dialog.grouping.groups[0]
    assert sum(group.takes_from.values()) == group.size
    assert set(group.takes_from) <= set(table.labels)
    label, count = next(iter(group.takes_from.items()))
    assert f"{count} from {label}" in dialog.table.item(0, 4).text()
    dialog.buttons["accept"].click()
    after = window.prompt.editor.profile()
    assert after.label_names[: len(before)] == before  # the labels in use kept, the new ones after them
    assert after.label_names[len(before) :] == [g.name for g in dialog.grouping.groups]
    assert not after.problems()
