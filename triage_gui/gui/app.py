"""Start the window: a QApplication with asyncio running on the Qt event loop (qasync)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from ..paths import resources_dir

APP_ID = "ticket-triage"


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


def make_application(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    app.setApplicationName("Ticket Triage")
    app.setOrganizationName("Ticket Triage")
    app.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())
    return app


def run_app(model: str | None = None, device: str = "auto") -> int:
    import qasync

    from .main_window import MainWindow

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = make_application()

    async def main() -> None:
        closed = asyncio.Event()
        app.aboutToQuit.connect(closed.set)
        window = MainWindow(model, device, freeze_gc=True)
        window.show()
        await closed.wait()

    with contextlib.suppress(asyncio.CancelledError):
        qasync.run(main())
    return 0
