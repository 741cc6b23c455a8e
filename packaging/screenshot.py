#!/usr/bin/env python3
"""Refresh resources/screenshot.png: the window labelling BANKING77 with the baseline on.

Usage: .venv/bin/python packaging/screenshot.py [TICKETS.csv] [SECONDS]
Runs offscreen with throwaway settings, so it does not touch your own.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["TRIAGE_GUI_CONFIG_DIR"] = tempfile.mkdtemp(prefix="triage-shot-")
    sys.path.insert(0, str(ROOT))
    from PySide6.QtCore import QEventLoop

    from triage_gui.gui.app import make_application
    from triage_gui.gui.main_window import MainWindow

    tickets = sys.argv[1] if len(sys.argv) > 1 else str(ROOT.parent / "shared/data/banking77/test.csv")
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 60
    app = make_application([])
    window = MainWindow()
    window.resize(1500, 900)
    window.show()

    def wait(condition, limit: float) -> None:
        end = time.time() + limit
        while time.time() < end and not condition():
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.02)

    wait(lambda: window.scorer is not None, 300)
    window.baseline_toggle.setChecked(True)
    window.load_file(tickets)
    wait(lambda: False, seconds)
    window.stop()
    wait(lambda: not window.outstanding, 60)
    window.table.selectRow(2)
    app.processEvents()
    out = ROOT / "resources" / "screenshot.png"
    window.grab().save(str(out))
    print(f"saved {out}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
