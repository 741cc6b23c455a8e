"""Helpers for the window tests: open it on the real model, drop files on it, wait, watch the event loop."""

from __future__ import annotations

import time

from PySide6.QtCore import QMimeData, QPoint, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from triage_gui.gui.main_window import MainWindow


def open_window(qtbot, freeze_gc: bool = False, size: tuple[int, int] | None = None) -> MainWindow:
    window = MainWindow(device="cpu", freeze_gc=freeze_gc)
    qtbot.addWidget(window, before_close_func=MainWindow.close_now)  # pytest-qt's close asks nothing
    if size is not None:
        window.resize(*size)
    window.show()
    qtbot.waitUntil(lambda: window.session.prompt_status.state == "ready" and not window.session.busy, timeout=180_000)
    return window


def close(window: MainWindow) -> None:
    window.close_now()  # no "still running" question in tests that close mid-run
    session = window.session
    threads = [session.engine_thread, session.loader_thread, session.file_thread, session.teaching.thread]
    assert all(t._closed for t in threads), "a worker thread left running"


def labelled(window: MainWindow) -> int:
    return window.session.table.count_scored()


def wait_all_labelled(qtbot, window: MainWindow, n: int | None = None, timeout: int = 180_000) -> None:
    table = window.session.table

    def done() -> bool:
        return (
            len(table) > 0
            and (n is None or len(table) == n)
            and table.count_scored() == table.count_scorable()
            and not window.session.busy
        )

    qtbot.waitUntil(done, timeout=timeout)


def drop_files(window: MainWindow, paths) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = window.rect().center()
    enter = QDragEnterEvent(
        pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        QPoint(pos).toPointF(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, drop)


def shown_labels(window: MainWindow) -> list[str]:
    """The Label column as the view shows it, marks stripped."""
    proxy = window.tickets.proxy
    column = window.model.columns().index("Label")
    return [str(proxy.index(r, column).data()).lstrip("⚠✓ ").removesuffix(" …") for r in range(proxy.rowCount())]


class Heartbeat:
    """A 10 ms timer on the GUI thread: ticks prove the event loop kept running."""

    def __init__(self) -> None:
        self.ticks = 0
        self.worst_gap = 0.0
        self._last = time.perf_counter()
        self.timer = QTimer(interval=10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst_gap = max(self.worst_gap, now - self._last)
        self._last = now
        self.ticks += 1

    def stop(self) -> None:
        self.timer.stop()
