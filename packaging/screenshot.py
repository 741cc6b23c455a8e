#!/usr/bin/env python3
"""Screenshots of the real window: resources/screenshot.png (the README's) and any size or scheme.

Usage: .venv/bin/python packaging/screenshot.py [--size 1280x720] [--dark] [--teach N] [--out FILE] [TICKETS]
Runs offscreen (or on $DISPLAY with --display) with throwaway settings, so it does not touch your own.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tickets", nargs="?", default=str(ROOT / "resources" / "sample_tickets.csv"))
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--display", action="store_true", help="use $DISPLAY (Xvfb) instead of offscreen")
    parser.add_argument("--teach", type=int, default=0, help="teach this many tickets from the gold column")
    parser.add_argument("--select", type=int, default=2, help="row to select (detail pane)")
    parser.add_argument("--tab", type=int, default=1, help="results tab to show")
    parser.add_argument("--out", default=str(ROOT / "resources" / "screenshot.png"))
    args = parser.parse_args()
    if not args.display:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["TRIAGE_GUI_CONFIG_DIR"] = tempfile.mkdtemp(prefix="triage-shot-")
    sys.path.insert(0, str(ROOT))
    import qasync
    from PySide6.QtCore import QEventLoop

    from triage_gui.gui.app import make_application
    from triage_gui.gui.main_window import MainWindow

    app = make_application([])
    qasync.QEventLoop(app, already_running=True)
    window = MainWindow()
    if args.dark:
        window.app_actions.set_appearance("dark")
    width, height = (int(x) for x in args.size.split("x"))
    window.resize(width, height)
    window.show()

    def wait(condition, limit: float) -> None:
        end = time.time() + limit
        while time.time() < end and not condition():
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.02)

    session = window.session
    wait(lambda: session.prompt_status.state == "ready", 300)
    session.open_file(args.tickets)
    wait(lambda: len(session.table) and not session.busy, 600)
    if args.teach and window.evaluation.gold is not None:
        from triage_gui.session.gold import GoldColumn

        gold: GoldColumn = window.evaluation.gold
        table = session.table
        step = max(1, len(table) // args.teach)
        for row in range(0, len(table), step)[: args.teach]:
            label = gold.label_for(table.value(row, gold.column), table.labels)
            if label:
                session.teaching.teach([row], label)
        wait(lambda: not session.busy, 120)
    window.results.setCurrentIndex(args.tab)
    window.tickets.select_source_row(args.select)
    wait(lambda: False, 1.0)
    window.refresh_stats()
    wait(lambda: False, 0.5)
    window.grab().save(args.out)
    print(f"saved {args.out}")
    window._closing = True
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
