"""Start the window: a QApplication with asyncio running on the Qt event loop (qasync)."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes.util
import logging
import os
import signal
import sys
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from ..paths import resources_dir

APP_ID = "ticket-triage"
# What Qt's xcb platform plugin loads on Linux; without them Qt aborts with a message few can act on.
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-keysyms": "libxcb-keysyms1",
    "xkbcommon-x11": "libxkbcommon-x11-0",
}


def app_icon() -> QIcon:
    icons = resources_dir() / "icons"
    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256):
        png = icons / f"{APP_ID}-{size}.png"
        if png.is_file():
            icon.addFile(str(png))
    svg = icons / f"{APP_ID}.svg"
    if svg.is_file():
        icon.addFile(str(svg))
    return icon


def display_problem() -> str | None:
    """One sentence on why the window cannot open here, or None. Checked before Qt, which would abort."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM", "xcb") not in ("xcb", ""):
        return None
    if os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("DISPLAY"):
        return None
    if not os.environ.get("DISPLAY"):
        return "There is no display to open the window on (DISPLAY is not set); the command line still works."
    missing = [package for lib, package in XCB_LIBRARIES.items() if ctypes.util.find_library(lib) is None]
    if missing:
        return (
            f"The window needs the system libraries {', '.join(missing)}: install them with "
            f"'sudo apt-get install {' '.join(missing)}' (the command line works without them)."
        )
    return None


def make_application(argv: list[str] | None = None) -> QApplication:
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv if argv is not None else sys.argv)
    app.setApplicationName("Ticket Triage")
    app.setOrganizationName("Ticket Triage")
    app.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())
    return app


# A logout, a shutdown or ``kill`` ends the app with one of these: by default the process died at once, and a
# ticket taught in the quarter second before (its write still coalescing) was gone without a word.
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def close_on_terminate(close_now: Callable[[], object]) -> None:
    """On the running loop: SIGTERM or SIGHUP calls ``close_now``, the window's close as the end of a session
    (what was taught is written, unsaved prompt edits go to the draft the next start offers back)."""
    loop = asyncio.get_running_loop()
    for number in ENDING_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread, Windows
            loop.add_signal_handler(number, close_now)


def open_when_shown(open_given: Callable[[list[str]], object], files: list[str]) -> None:
    """Open ``files`` (the command line's, the desktop's *Open with*; ``open_given``: the window's) from the Qt
    event loop, not from the task that shows the window: a question they ask (a restored draft of the prompt
    named: "Save them before opening prompt.json?") runs a nested event loop, and one run inside a task stopped
    every other task from stepping ("Cannot enter into task … while another task is being executed"): the model
    never loaded, the window said "Waiting for the model…" for good and no ticket was labelled (W20)."""
    if files:
        QTimer.singleShot(0, lambda: open_given(files))


def run_app(
    model: str | None = None, device: str = "auto", encoder: str | None = None, files: list[str] | None = None
) -> int:
    """The window, on the models given; ``files`` (a prompt and ticket files, from the command line or the
    desktop's *Open with*) are opened once it shows, as if dropped on it."""
    problem = display_problem()
    if problem:
        print(f"ticket-triage: {problem}", file=sys.stderr)
        return 1
    import qasync

    from .main_window import MainWindow

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = make_application()

    async def main() -> None:
        closed = asyncio.Event()
        app.aboutToQuit.connect(closed.set)
        window = MainWindow(model, device, freeze_gc=True, encoder=encoder)
        window.show()
        close_on_terminate(window.close_now)
        open_when_shown(window.ticket_actions.open_given, files or [])
        await closed.wait()

    with contextlib.suppress(asyncio.CancelledError):
        qasync.run(main())
    return 0
