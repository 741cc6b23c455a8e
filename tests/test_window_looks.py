"""The window on laptop screens and in dark mode, its icons, prompt versions, and a cancellable model load."""

from __future__ import annotations

import itertools
import threading
import time

import pytest
from helpers import SAMPLE
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QPushButton, QStyle, QToolButton
from qt_helpers import close, drop_files, open_window, wait_all_labelled

from triage_gui.gui.results.latency_chart import legend
from triage_gui.gui.tickets.label_colors import label_color


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))


def loaded_window(qtbot, size):
    window = open_window(qtbot, size=size)
    drop_files(window, [SAMPLE])
    wait_all_labelled(qtbot, window, 60)
    window.tickets.select_source_row(2)
    window.results.setCurrentIndex(1)
    window.refresh_stats()
    qtbot.wait(100)
    return window


@pytest.mark.parametrize("size", [(1280, 720), (1024, 640)], ids=["1280x720", "1024x640"])
def test_laptop_screens_keep_every_control_readable(qtbot, config, loaded, event_loop_qt, size):
    window = loaded_window(qtbot, size)
    try:
        t = window.tickets
        assert t.search.width() >= 150  # not "S…"
        for combo in (t.text_column, t.gold_combo, t.label_filter):
            text = combo.currentText()
            assert combo.width() >= combo.fontMetrics().horizontalAdvance(text[:10]) + 20, text  # not "catego"
        right_edge = window.width()
        widgets = [*t.filter_bar.findChildren(type(t.search)), t.gold_combo, t.low_only, t.wrong_only]
        if t.compact.compact:  # a small height: the check boxes behind the Filters button, which must show whole
            assert not t.low_only.isVisibleTo(window) and t.compact.button.isVisibleTo(window)
            widgets = [w for w in widgets if w.isVisibleTo(window)] + [t.compact.button]
        for widget in widgets:
            corner = widget.mapTo(window, widget.rect().bottomRight())
            assert corner.x() <= right_edge, f"{widget.accessibleName() or widget} clipped"
        rows_shown = t.table.viewport().height() // t.table.verticalHeader().defaultSectionSize()
        assert rows_shown >= 5
        assert window.results.confusion.viewport().height() >= 4 * 22  # three labels + precision row, no dragging
        assert window.detail.text.height() >= 40 and window.detail.bars.height() >= 18 * 3
        descriptions = window.editor.labels
        assert descriptions.columnWidth(1) >= 120  # descriptions wrap in a readable column
        assert descriptions.rowHeight(2) > descriptions.fontMetrics().height() * 1.5  # wrapped, not cut with "…"
        chart = window.results.chart
        plot = QRectF(48, 10, chart.width() - 58, chart.height() - 36)
        boxes = [rect for _, rect, _ in legend(chart.fontMetrics(), plot)]
        assert all(a.right() < b.left() - 16 for a, b in itertools.pairwise(boxes)), "chart legend overlaps"
        assert boxes[0].left() >= plot.left() and boxes[-1].right() <= plot.right() + 1
        window.grab().save(f"/tmp/window-{size[0]}x{size[1]}.png")
    finally:
        close(window)


def contrast(a: QColor, b: QColor) -> float:
    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())

    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def blend(top: QColor, base: QColor) -> QColor:
    alpha = top.alphaF()
    return QColor.fromRgbF(*(alpha * t + (1 - alpha) * b for t, b in zip(top.getRgbF()[:3], base.getRgbF()[:3])))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_label_colours_are_readable_in_light_and_dark(qtbot, config, loaded, event_loop_qt, scheme):
    window = loaded_window(qtbot, (1280, 720))
    window.app_actions.set_appearance(scheme)  # what View > Appearance and a dark system scheme do
    qtbot.wait(100)
    try:
        assert (QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128) == (scheme == "dark")
        shown = window.tickets.table.palette().color(QPalette.ColorRole.Base)  # the widgets follow, not only the app
        assert (shown.lightness() < 128) == (scheme == "dark")
        palette = QApplication.palette()
        base, text = palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)
        for i in range(10):
            tint = label_color(i, scheme == "dark")
            assert contrast(text, blend(tint, base)) >= 4.5
        cell = window.model.index(0, window.model.columns().index("Label"))
        tint = window.model.data(cell, Qt.ItemDataRole.BackgroundRole)
        assert contrast(text, blend(tint, base)) >= 4.5
        window.grab().save(f"/tmp/window-{scheme}.png")
    finally:
        window.app_actions.set_appearance("light")
        close(window)


def test_icons_say_what_they_do(qtbot, config, loaded, event_loop_qt):
    window = open_window(qtbot)
    try:
        folder = window.style().standardIcon(QStyle.StandardPixmap.SP_FileDialogNewFolder).cacheKey()
        buttons = {b.toolTip(): b for b in window.editor.findChildren(QToolButton)}
        add = buttons["Add label"]
        assert add.text() == "+" or add.icon().cacheKey() != folder
        assert buttons["Remove label"].text() == "−" or not buttons["Remove label"].icon().isNull()
    finally:
        close(window)


def test_prompt_versions_are_listed_with_accuracy_and_can_be_compared_and_reverted(
    qtbot, config, loaded, event_loop_qt
):
    window = loaded_window(qtbot, (1280, 720))
    try:
        first = window.editor.instruction.toPlainText()
        window.editor.instruction.setPlainText("Route the bank customer's ticket to one team.")
        window.prompt.save()
        wait_all_labelled(qtbot, window, 60)
        window.refresh_stats()
        versions = window.results.versions
        assert versions.rowCount() == 2
        assert versions.item(0, 0).text() == "2" and versions.item(0, 2).text().endswith("%")
        assert versions.item(1, 2).text().endswith("%")  # each version keeps its own accuracy
        window.prompt.show_diff(1, 2)
        from PySide6.QtWidgets import QTextBrowser

        diff = window.prompt.diff_dialog.findChild(QTextBrowser).toPlainText()  # side by side
        assert first in diff and "Route the bank customer's ticket to one team." in diff and "accuracy" in diff
        window.prompt.diff_dialog.close()
        window.prompt.revert(1)
        wait_all_labelled(qtbot, window, 60)
        assert window.session.profile.instruction == first
        assert window.editor.instruction.toPlainText() == first
    finally:
        close(window)


def test_a_slow_model_load_shows_progress_and_can_be_cancelled(qtbot, config, loaded, event_loop_qt):
    window = open_window(qtbot)
    release = threading.Event()
    real = window.session.engine.load

    def slow(spec, device, progress):
        progress(0.1, "Downloading someone/model…")
        release.wait(30)
        time.sleep(0.05)
        return real("bundled", device, progress)

    window.session.engine.load = slow
    try:
        before = window.session.model
        window.session.load_model("someone/model")
        app = window.app_actions
        qtbot.waitUntil(lambda: app.progress_dialog is not None and app.progress_dialog.isVisible(), timeout=5_000)
        assert "Downloading" in window.app_actions.progress_dialog.labelText()
        window.app_actions.progress_dialog.findChild(QPushButton).click()  # the dialog's Cancel button
        qtbot.waitUntil(lambda: window.app_actions.progress_dialog is None, timeout=5_000)
        assert window.session.model is before and window.session.model_status.state == "ready"
        assert window.model_status.text().startswith(before.name)
        release.set()
        qtbot.wait(300)
        assert window.session.model is before  # the abandoned load never replaces the model in use
    finally:
        release.set()
        close(window)
