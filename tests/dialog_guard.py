"""No test waits on a modal dialog: an unanswered one fails the test at once, naming it.

A modal dialog (``QMessageBox.question`` and its siblings, ``QDialog.exec``, the file and input
dialogs' static helpers) runs its own event loop until someone answers; in a test nobody does, so the
run used to sit there until CI's time limit (a window closed at teardown mid-run asked "Labelling is
still running … Quit anyway?" and a run sat for over ten minutes). Here each of them raises
:class:`UnansweredDialog` with the dialog's title and text instead, and the test fails at teardown even
where Qt swallowed the exception (a dialog opened from inside a Qt virtual such as ``closeEvent``).

A test that expects a dialog answers it the way the suite always has, by monkeypatching the helper
(``monkeypatch.setattr(QMessageBox, "question", ...)``): its patch goes on top of this one. A test that
drives a real dialog from a timer marks itself ``@pytest.mark.answers_dialogs``; a watchdog then rejects
any modal dialog still up after :data:`WATCHDOG_MS` and fails the test.

Registered by ``tests/conftest.py`` (``pytest_plugins``); ``tests/test_dialog_guard.py`` runs it in a
child pytest to show an unanswered dialog fails in seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

STATIC = {
    "QMessageBox": ("question", "warning", "information", "critical", "about", "aboutQt"),
    "QFileDialog": ("getOpenFileName", "getOpenFileNames", "getSaveFileName", "getExistingDirectory",
                    "getOpenFileUrl", "getOpenFileUrls", "getSaveFileUrl", "getExistingDirectoryUrl"),
    "QInputDialog": ("getText", "getMultiLineText", "getItem", "getInt", "getDouble"),
    "QColorDialog": ("getColor",),
    "QFontDialog": ("getFont",),
}  # fmt: skip
WATCHDOG_MS = 5_000


class UnansweredDialog(AssertionError):
    """A modal dialog opened that the test does not answer."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "answers_dialogs: the test answers real modal dialogs itself (a watchdog)")


def _static(kind: str, seen: list[str]) -> Callable[..., Any]:
    def modal(*args: Any, **kwargs: Any) -> Any:
        words = [a for a in args[1:3] if isinstance(a, str)] or [str(v) for v in kwargs.values() if isinstance(v, str)]
        message = f"{kind} opened and nobody answers it: {' — '.join(repr(w) for w in words)}. " + _HINT
        seen.append(message)
        raise UnansweredDialog(message)

    return staticmethod(modal)  # type: ignore[return-value]


def _exec(kind: str, seen: list[str]) -> Callable[..., Any]:
    def modal(self: Any, *args: Any, **kwargs: Any) -> Any:
        text = self.text() if hasattr(self, "text") and callable(self.text) else ""
        words = [w for w in (self.windowTitle(), text) if w]
        message = (
            f"{kind} ({type(self).__name__}) opened and nobody answers it: "
            + (" — ".join(repr(w) for w in words) or "(no title)")
            + ". "
            + _HINT
        )
        seen.append(message)
        raise UnansweredDialog(message)

    return modal


_HINT = "Monkeypatch the dialog in the test (or close the window with MainWindow.close_now)."


@pytest.fixture(autouse=True)
def no_unanswered_dialogs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    from PySide6 import QtWidgets

    if request.node.get_closest_marker("answers_dialogs") is not None:
        request.getfixturevalue("qapp")  # the watchdog's timer needs the application
        yield from _watchdog()
        return
    seen: list[str] = []
    for name, helpers in STATIC.items():
        cls = getattr(QtWidgets, name)
        for helper in helpers:
            if hasattr(cls, helper):
                monkeypatch.setattr(cls, helper, _static(f"{name}.{helper}", seen))
    dialogs = [c for c in vars(QtWidgets).values() if isinstance(c, type) and issubclass(c, QtWidgets.QDialog)]
    for cls in dialogs:
        for method in ("exec", "exec_"):
            if method in vars(cls):
                monkeypatch.setattr(cls, method, _exec(f"{cls.__name__}.{method}", seen))
    yield
    if seen:
        pytest.fail(seen[0], pytrace=False)


def _watchdog():
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QDialog

    left: list[str] = []

    def reject() -> None:
        widget = QApplication.activeModalWidget()
        if isinstance(widget, QDialog):
            left.append(widget.windowTitle())
            widget.reject()

    timer = QTimer(interval=WATCHDOG_MS)
    timer.timeout.connect(reject)
    timer.start()
    yield
    timer.stop()
    if left:
        pytest.fail(f"a modal dialog was left unanswered for {WATCHDOG_MS} ms: {left[0]!r}", pytrace=False)
