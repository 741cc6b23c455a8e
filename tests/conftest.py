"""Shared fixtures: the real bundled model (converted once per session into a temp cache) and tiny
randomly initialised Qwen2 / Llama models built from configs (no download)."""

from __future__ import annotations

import os
import tempfile

import pytest

# Before anything imports the engine: conversions go to a throwaway cache, settings to temp dirs.
os.environ.setdefault("TRIAGE_GUI_CACHE_DIR", tempfile.mkdtemp(prefix="triage-test-cache-"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"

from helpers import tiny_model

pytest_plugins = ["dialog_guard"]  # an unanswered modal dialog fails the test at once (tests/dialog_guard.py)


@pytest.fixture(scope="session")
def loaded():
    from triage_gui.engine.model import load_model

    return load_model("bundled", "cpu")


@pytest.fixture(scope="session")
def tokenizer(loaded):
    return loaded.tokenizer


@pytest.fixture(scope="session")
def profile():
    from triage_gui.engine.prompt import default_profile

    return default_profile()


TINY = [("qwen2", "lean"), ("llama", "lean"), ("qwen2", "transformers"), ("llama", "transformers")]


@pytest.fixture(scope="session", params=TINY, ids=[f"{k}-{b}" for k, b in TINY])
def tiny(request, tokenizer):
    kind, backend = request.param
    return tiny_model(kind, tokenizer, backend)


STALLS: dict[str, float] = {}


@pytest.fixture(scope="session")
def record_stall():
    """Keep the worst GUI event-loop gap a test's heartbeat saw; reported at the end of the run."""

    def record(what: str, seconds: float) -> None:
        STALLS[what] = max(seconds, STALLS.get(what, 0.0))

    return record


def pytest_terminal_summary(terminalreporter):
    if STALLS:
        terminalreporter.section("GUI event loop (10 ms heartbeat)")
        for what, seconds in sorted(STALLS.items()):
            terminalreporter.write_line(f"worst stall during {what}: {seconds * 1000:.0f} ms")


@pytest.fixture(scope="session")
def _qt_loop(qapp):
    import qasync

    return qasync.QEventLoop(qapp, already_running=True)


@pytest.fixture
def event_loop_qt(_qt_loop):
    """asyncio on the Qt event loop, as the app runs it (qasync): the session's tasks are driven by the
    same Qt event processing that pytest-qt's waits use. The loop counts as running only during the test
    (qasync's ``already_running`` mode), so later tests can still start plain asyncio loops."""
    import asyncio

    asyncio.events._set_running_loop(_qt_loop)
    asyncio.set_event_loop(_qt_loop)
    yield _qt_loop
    asyncio.events._set_running_loop(None)
    asyncio.set_event_loop(None)


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, event_loop_qt):
    """The window on the fake session (tests/window_fakes.py) with throwaway settings. A module that
    needs the real model, or another fake engine, defines its own ``window``, which takes precedence."""
    from window_fakes import close_fake, fake_window

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    win = fake_window(qtbot)
    yield win
    close_fake(win)


@pytest.fixture
def encoded_window(qtbot, tmp_path, monkeypatch, event_loop_qt):
    """The window on the fake session with the fake sentence encoder (a first pass, every field's learned
    heads), throwaway settings: the two-field window tests' ``window``."""
    from window_fakes import close_fake, fake_window

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    win = fake_window(qtbot, encoder="fake")
    yield win
    close_fake(win)
