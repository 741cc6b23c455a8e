"""The suite never waits on a dialog nobody answers: run tiny pytests in a child process and time them.

Before tests/dialog_guard.py, the first child below sat in ``QMessageBox.question`` until it was
killed, and the second one (a window closed by pytest-qt while labelling still ran, as
``test_window_state.py::test_the_summary_counts_examples_and_descriptions_apart`` did on a loaded
machine) asked "Labelling is still running … Quit anyway?" and hung the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent
LIMIT = 120  # seconds for the child run; it takes a few (Qt's start-up), a hang would take forever


def run_child(tmp_path: Path, source: str) -> tuple[subprocess.CompletedProcess[str], float]:
    (tmp_path / "test_child.py").write_text(textwrap.dedent(source), encoding="utf-8")
    path = [str(TESTS), str(TESTS.parent), os.environ.get("PYTHONPATH", "")]  # this checkout's triage_gui
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    env["TRIAGE_GUI_CONFIG_DIR"] = str(tmp_path / "config")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "dialog_guard", "-p", "no:cacheprovider",
               "-o", "qt_api=pyside6", "-o", "timeout=0", "--rootdir", str(tmp_path), str(tmp_path)]  # fmt: skip
    start = time.monotonic()
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=LIMIT)
    return done, time.monotonic() - start


def test_an_unanswered_question_fails_the_test_at_once_naming_it(tmp_path):
    done, seconds = run_child(
        tmp_path,
        """
        from PySide6.QtWidgets import QMessageBox

        def test_asks(qtbot):
            QMessageBox.question(None, "Clear the tickets", "Remove 20,003 tickets?")
        """,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "UnansweredDialog" in done.stdout and "'Clear the tickets'" in done.stdout, done.stdout
    assert seconds < LIMIT / 2


def test_exec_ed_dialogs_fail_and_a_patched_one_answers(tmp_path):
    done, _seconds = run_child(
        tmp_path,
        """
        from PySide6.QtWidgets import QDialog, QMessageBox

        def test_exec(qtbot):
            dialog = QDialog()
            dialog.setWindowTitle("Map the gold values")
            qtbot.addWidget(dialog)
            dialog.exec()

        def test_box(qtbot):
            box = QMessageBox(QMessageBox.Icon.Question, "Open tickets", "Replace them or add to them?")
            box.exec()

        def test_sheet(qtbot):
            from PySide6.QtWidgets import QInputDialog

            QInputDialog.getItem(None, "Open workbook", "Which sheet?", ["Notes", "Tickets"], 0, False)

        def test_patched(qtbot, monkeypatch):
            monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
            assert QMessageBox.question(None, "Quit", "Quit anyway?") == QMessageBox.StandardButton.Yes
        """,
    )
    assert "3 failed, 1 passed" in done.stdout, done.stdout + done.stderr
    for title in ("'Map the gold values'", "'Open tickets'", "'Open workbook'"):
        assert title in done.stdout


def test_a_window_closed_at_teardown_mid_run_asks_nothing(tmp_path):
    done, seconds = run_child(
        tmp_path,
        """
        from fake_engine import FakeEngine
        from window_fakes import fake_window
        from test_window_state import rows
        from conftest import event_loop_qt, _qt_loop  # noqa: F401  (the app's asyncio on Qt)

        def test_ends_while_labelling(qtbot, event_loop_qt):
            window = fake_window(qtbot, FakeEngine(batch_seconds=0.2))
            window.session.paste(rows(400))
            qtbot.waitUntil(lambda: window.session.running, timeout=10_000)
            # the test ends here; pytest-qt closes the window while 400 tickets are still to label
        """,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert seconds < LIMIT / 2


def test_every_test_has_a_time_limit(request):
    """pytest-timeout is a test dependency and on for every test: a hang of any other kind ends too."""
    import pytest

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(
        d.replace(" ", "").startswith("pytest-timeout>=2.4")
        for d in project["project"]["optional-dependencies"]["test"]
    )
    assert request.config.pluginmanager.hasplugin("timeout")
    assert float(request.config.getini("timeout")) >= 300 and request.config.getini("timeout_method") == "thread"
