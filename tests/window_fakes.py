"""The window on a fake session (tests/fake_engine.py): UI logic in milliseconds, no model loaded."""

from __future__ import annotations

from fake_engine import FakeEngine

from triage_gui.gui.main_window import MainWindow
from triage_gui.session.session import Session


def fake_window(qtbot, engine: FakeEngine | None = None, encoder: str = "none") -> MainWindow:
    """A shown window whose session runs on the fake engine; its prompt is built when this returns.
    ``encoder="fake"``: with the fake sentence encoder (a first pass, the learned heads)."""
    fake = engine or FakeEngine()
    window = MainWindow(session=Session(fake.as_engine(), device="cpu", batch_size=8, encoder=encoder))
    window.fake = fake  # type: ignore[attr-defined]
    qtbot.addWidget(window, before_close_func=MainWindow.close_now)  # pytest-qt's close asks nothing
    window.show()
    qtbot.waitUntil(lambda: window.session.prompt_status.state == "ready", timeout=10_000)
    return window


def close_fake(window: MainWindow) -> None:
    window.close_now()
