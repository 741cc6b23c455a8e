"""The window fits small screens: at 1024x640 and 1366x768 no widget is drawn over another or cut off,
text is not clipped, and the custom-painted parts (probability bars, confusion headers) keep their text
clear; the first and restored window sizes fit the screen. On the fake session, in milliseconds."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QLabel,
    QPushButton,
    QWidget,
)
from window_fakes import close_fake, fake_window

from triage_gui.engine.prompt import Label

SIZES = [(1024, 640), (1366, 768)]
FIVE = ["billing", "technical", "account", "account_security", "shipping_and_delivery"]


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, event_loop_qt):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    win = fake_window(qtbot)
    yield win
    close_fake(win)


def five_labels_loaded(qtbot, window, baseline: bool) -> None:
    """Five labels, 40 tickets with a gold column chosen, a row selected, the accuracy tab shown."""
    profile = window.editor.profile()
    known = {label.name: label for label in profile.labels}
    profile.labels = [known.get(name) or Label(name, f"Tickets about {name.replace('_', ' ')}.") for name in FIVE]
    window.editor.set_profile(profile, clear_undo=False)
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.table.labels == FIVE and not window.session.busy, timeout=10_000)
    lines = ["text,team"] + [f"ticket number {i} about things,{FIVE[i % 5]}" for i in range(40)]
    window.ticket_actions.paste_text("\n".join(lines))
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 40 and not window.session.busy, timeout=10_000)
    window.ticket_actions.choose_gold("team")
    window.tickets.baseline_toggle.setChecked(baseline)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)
    window.tickets.select_source_row(3)
    window.results.setCurrentIndex(1)
    window.refresh_stats()


def shown(window, size) -> None:
    window.resize(*size)
    window.show()
    for _ in range(3):
        QApplication.processEvents()
    window.grab().save(f"/tmp/fit/fake-{size[0]}x{size[1]}.png")


def visible_children(widget: QWidget) -> list[QWidget]:
    return [c for c in widget.findChildren(QWidget, options=_direct()) if c.isVisible() and not c.isWindow()]


def _direct():
    from PySide6.QtCore import Qt

    return Qt.FindChildOption.FindDirectChildrenOnly


def walk(widget: QWidget):
    for child in visible_children(widget):
        yield child
        yield from walk(child)


def name(w: QWidget) -> str:
    text = w.text() if isinstance(w, (QLabel, QPushButton, QCheckBox)) else ""
    return f"{type(w).__name__}({w.accessibleName() or w.objectName() or text!r})"


@pytest.mark.parametrize("baseline", [False, True], ids=["plain", "baseline"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_no_widget_is_drawn_over_another(qtbot, window, size, baseline):
    five_labels_loaded(qtbot, window, baseline)
    shown(window, size)
    problems = []
    for parent in [window, *walk(window)]:
        for a, b in itertools.combinations(visible_children(parent), 2):
            if a.geometry().intersects(b.geometry()):
                problems.append(f"{name(a)} {a.geometry()} overlaps {name(b)} {b.geometry()} in {name(parent)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("baseline", [False, True], ids=["plain", "baseline"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_no_widget_is_cut_off(qtbot, window, size, baseline):
    five_labels_loaded(qtbot, window, baseline)
    shown(window, size)
    problems = []
    for widget in walk(window):
        parent = widget.parentWidget()
        rect = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
        if not window.rect().contains(rect):
            problems.append(f"{name(widget)} {rect} outside the window")
        if not parent.rect().contains(widget.geometry()):
            problems.append(f"{name(widget)} {widget.geometry()} cut by {name(parent)} {parent.rect()}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("baseline", [False, True], ids=["plain", "baseline"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_text_is_not_clipped(qtbot, window, size, baseline):
    five_labels_loaded(qtbot, window, baseline)
    shown(window, size)
    problems = []
    for widget in walk(window):
        if isinstance(widget, QLabel):
            if widget.wordWrap():
                need = widget.heightForWidth(widget.width())
                if widget.height() < need:
                    problems.append(f"{name(widget)} {widget.height()} px high < {need}")
                continue
            hint = widget.minimumSizeHint()
        elif isinstance(widget, (QPushButton, QCheckBox)):
            hint = widget.sizeHint()
        elif isinstance(widget, QComboBox):
            hint = widget.minimumSizeHint()
        else:
            continue
        if widget.width() < hint.width() or widget.height() < hint.height():
            problems.append(f"{name(widget)} {widget.size()} < {hint}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------ the screen


def test_a_rect_is_fitted_inside_the_free_area():
    from PySide6.QtCore import QMargins

    from triage_gui.gui.geometry import fit_rect

    laptop, frame = QRect(0, 0, 1024, 640), QMargins(4, 32, 4, 4)
    fitted = fit_rect(QRect(0, 0, 1280, 720), laptop, frame)
    assert laptop.contains(fitted.marginsAdded(frame)) and fitted.width() == 1016 and fitted.height() == 604
    moved = fit_rect(QRect(1900, 1000, 800, 500), laptop, frame)  # saved on a monitor to the right
    assert laptop.contains(moved.marginsAdded(frame)) and moved.size() == QRect(0, 0, 800, 500).size()
    panel = QRect(0, 28, 1366, 740)  # a top panel takes 28 px
    assert fit_rect(QRect(100, 0, 800, 500), panel, frame).top() == 28 + 32
    assert fit_rect(QRect(100, 100, 800, 500), panel, frame) == QRect(100, 100, 800, 500)  # fits: untouched
    second = QRect(-1280, 0, 1280, 1024)  # a monitor left of the primary
    assert fit_rect(QRect(-1200, 50, 900, 600), second, frame) == QRect(-1200, 50, 900, 600)


def fits(window) -> bool:
    """The whole window, its frame included, on its screen's free area."""
    return window.screen().availableGeometry().contains(window.frameGeometry())


def test_the_first_window_fits_the_screen(qtbot, window):
    assert window.screen().availableGeometry().width() < 1280  # the offscreen screen: 800x800
    assert fits(window) and window.width() >= 700 and window.height() >= 600


def test_a_geometry_saved_on_a_larger_monitor_is_brought_on_screen(qtbot, window, event_loop_qt):
    window.setGeometry(1500, 1200, 1800, 1000)  # off the 800x800 screen, and larger than it
    close_fake(window)
    second = fake_window(qtbot)
    try:
        assert fits(second), second.geometry()
    finally:
        close_fake(second)


SMALL_SCREEN = """
import json, os, sys
sys.path.insert(0, "tests")
import qasync
from PySide6.QtWidgets import QApplication
app = QApplication([])
qasync.QEventLoop(app, already_running=True)
from fake_engine import FakeEngine
from triage_gui.gui.main_window import MainWindow
from triage_gui.session.session import Session
window = MainWindow(session=Session(FakeEngine().as_engine(), device="cpu", encoder="none"))
window.show()
app.processEvents()
print(json.dumps([window.screen().availableGeometry().getRect(), window.frameGeometry().getRect()]))
window._closing = True
window.close()
"""


def test_on_a_1024x640_screen_the_whole_window_is_on_it(tmp_path):
    """The real platform screen set to 1024x640 (the offscreen plugin's configfile), in a child process."""
    import json
    import os
    import subprocess
    import sys

    config = tmp_path / "screen.json"
    screen = {"name": "laptop", "x": 0, "y": 0, "width": 1024, "height": 640, "logicalDpi": 96, "dpr": 1}
    config.write_text(json.dumps({"screens": [screen]}), encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "TRIAGE_GUI_CONFIG_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", SMALL_SCREEN], env=env, capture_output=True, text=True, timeout=120, check=True
    ).stdout
    available, frame = (QRect(*r) for r in json.loads(out.strip().splitlines()[-1]))
    assert available == QRect(0, 0, 1024, 640)
    assert available.contains(frame), frame
