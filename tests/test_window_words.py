"""The words a lead trips on (issue 27), on the fake session: what the classifier learned from, the run
bar before any ticket, the model dialog's title, and confusion-matrix headers that stay distinct."""

from __future__ import annotations

import dataclasses

from PySide6.QtWidgets import QLabel

from triage_gui.engine.table import NewRow
from triage_gui.gui.results.results_area import distinct_elided
from triage_gui.session.status import HeadStatus, ModelStatus


def test_learned_from_says_descriptions_when_the_prompt_has_no_examples(qtbot, window, monkeypatch):
    profile = window.session.profile
    label = QLabel()
    monkeypatch.setattr(window.session, "profile", dataclasses.replace(profile, examples=[]))
    window.teaching.show_head(HeadStatus("ready", 0), label)
    assert label.text() == "Learned from the label descriptions"
    window.teaching.show_head(HeadStatus("ready", 1), label)
    assert label.text() == "Learned from 1 taught ticket"


def test_the_run_bar_says_no_tickets_before_any(qtbot, window):
    assert "0 / 1" not in window.tickets.progress.text()
    assert window.tickets.progress.text() == "no tickets"


def test_the_model_dialog_is_wide_enough_for_its_title(qtbot, window):
    window.app_actions.model_progress(ModelStatus("loading", message="Converting the model…", fraction=0.1))
    dialog = window.app_actions.progress_dialog
    try:
        title = dialog.fontMetrics().horizontalAdvance(dialog.windowTitle())
        assert dialog.width() >= title + 150  # the title bar's buttons and icon beside the whole title
    finally:
        window.app_actions.close_progress()


def test_elided_label_names_stay_distinct(qapp):
    from PySide6.QtGui import QFontMetrics

    metrics = QFontMetrics(qapp.font())
    names = ["Access", "Administrative rights", "Billing", "Bill disputes"]
    for width in (metrics.horizontalAdvance("A…s") + 2, 30, 45, 60):
        shown = [distinct_elided(n, names, metrics, width) for n in names]
        assert len(set(shown)) == len(names), (width, shown)  # never "A…s" twice
    assert distinct_elided("Billing", names, metrics, 500) == "Billing"


def test_the_confusion_matrix_names_its_axes(qtbot, window):
    labels = window.session.profile.label_names
    window.session.paste([NewRow({"text": f"t {i}", "team": labels[i % 3]}, f"t {i}") for i in range(12)], "text")
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)
    window.evaluation.choose("team")
    window.refresh_stats()
    axes = window.results.axes
    assert window.results.confusion.rowCount() and axes.isVisibleTo(window.results)
    assert "gold" in axes.text() and "labelled" in axes.text()


def test_the_label_table_shows_five_rows_at_1366x768_and_rows_keep_their_height(qtbot, window):
    from triage_gui.engine.prompt import Label

    long = "Anything about this topic, described at the length a lead writes it, with the cases it covers. " * 2
    profile = dataclasses.replace(window.session.profile, labels=[Label(f"Queue {i}", long) for i in range(8)])
    window.editor.set_profile(profile)
    window.resize(1366, 740)  # 1366x768 less a panel
    qtbot.wait(50)
    table = window.editor.labels
    shown = sum(
        1
        for r in range(table.rowCount())
        if table.rowViewportPosition(r) + table.rowHeight(r) <= table.viewport().height()
    )
    assert shown >= 5, shown  # 2.5 rows showed
    below = table.rowViewportPosition(2)
    table.item(1, 1).setText(long * 3)  # a description typed longer
    qtbot.wait(50)
    assert table.rowViewportPosition(2) == below  # the row under the pointer did not move
