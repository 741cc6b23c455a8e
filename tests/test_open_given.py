"""Files given to the window: on its command line (the desktop entry's ``Exec=ticket-triage %F`` runs
``ticket-triage FILE …``, which argparse refused as an unknown command, so *Open with Ticket Triage* did
nothing), or dropped on it (a prompt file dropped was refused as a ticket file holding no tickets)."""

from __future__ import annotations

import json

import pytest
from helpers import SAMPLE

from triage_gui.commands import parse_args
from triage_gui.engine.prompt import looks_like_prompt

pytestmark = pytest.mark.timeout(120)


def routing_prompt(window, path):
    """The window's prompt with two of its labels only, written to ``path``: a prompt the window can tell apart."""
    data = json.loads(window.document.saved.to_json())
    kept = [label["name"] for label in data["labels"][:2]]
    data["name"] = "Routing"
    data["labels"] = data["labels"][:2]
    data["examples"] = [e for e in data.get("examples", []) if e["label"] in kept]
    path.write_text(json.dumps(data), encoding="utf-8")
    return kept


def test_a_file_alone_on_the_command_line_opens_the_window_with_it(tmp_path, capsys):
    args = parse_args([str(SAMPLE)])
    assert args.command == "gui" and args.files == [str(SAMPLE)]
    assert parse_args(["gui", str(SAMPLE), str(SAMPLE)]).files == [str(SAMPLE)] * 2
    assert parse_args([]).command is None  # no file: the window as always
    with pytest.raises(SystemExit) as missing:
        parse_args(["gui", str(tmp_path / "gone.csv")])
    assert missing.value.code == 2 and "gone.csv' does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a mistyped command is still said to be one, not opened as a file
        parse_args(["clasify", str(SAMPLE)])
    assert "invalid choice: 'clasify'" in capsys.readouterr().err


def test_a_prompt_file_is_told_from_a_json_ticket_file(tmp_path):
    prompt, tickets, fifo = tmp_path / "p.json", tmp_path / "t.json", tmp_path / "f.json"
    prompt.write_text('\ufeff\n  {"name": "x", "labels": []}', encoding="utf-8")
    tickets.write_text('[{"text": "my card"}]', encoding="utf-8")
    assert looks_like_prompt(prompt) and not looks_like_prompt(tickets) and not looks_like_prompt(SAMPLE)
    import os

    os.mkfifo(fifo)
    assert not looks_like_prompt(fifo)  # not opened: a FIFO would block the window
    assert not looks_like_prompt(tmp_path / "gone.json")


def test_a_prompt_and_tickets_given_together_label_the_tickets_with_that_prompt(qtbot, window, tmp_path):
    prompt = tmp_path / "routing.json"
    kept = routing_prompt(window, prompt)
    window.ticket_actions.open_given([str(SAMPLE), str(prompt)])  # the prompt opens first, wherever it is named
    assert window.document.path == prompt and [label.name for label in window.document.saved.labels] == kept
    session = window.session
    qtbot.waitUntil(lambda: len(session.table) == 60 and session.run_status.state == "done", timeout=20_000)
    table = window.session.table
    assert {table.label(row) for row in range(len(table))} <= set(kept)


def test_a_prompt_dropped_on_the_window_opens_as_the_prompt(qtbot, window, tmp_path):
    from qt_helpers import drop_files

    prompt, second = tmp_path / "routing.json", tmp_path / "second.json"
    kept = routing_prompt(window, prompt)
    second.write_bytes(prompt.read_bytes())
    drop_files(window, [prompt, second])
    assert window.document.path == prompt and [label.name for label in window.document.saved.labels] == kept
    assert window.last_message is not None and "One prompt at a time" in window.last_message.text()
    assert window.session.ticket_count == 0  # not read as tickets (it was: "holds no tickets")


def test_files_named_from_the_working_folder_are_remembered_by_their_full_path(qtbot, window, tmp_path, monkeypatch):
    """W11: ``python -m triage_gui bank-fields-prompt.json bank300.csv`` from the lead's folder kept
    ``prompt_path=bank-fields-prompt.json`` and ``recent_files=bank300.csv``; started again from another folder
    (the desktop's menu), the window showed the default prompt under "Saved: bank-fields-prompt.json" and lost
    the two fields, their taught tickets and checks. Named relative, they are kept by their full path."""
    import shutil

    work = tmp_path / "work"
    work.mkdir()
    routing_prompt(window, work / "routing.json")
    shutil.copy(SAMPLE, work / "tickets.csv")
    monkeypatch.chdir(work)
    window.ticket_actions.open_given(["routing.json", "tickets.csv"])
    qtbot.waitUntil(lambda: window.session.ticket_count == 60, timeout=20_000)
    assert window.document.path == work / "routing.json"
    window._save_settings()
    assert window.settings.get_str("prompt_path") == str(work / "routing.json")
    assert window.settings.recent_files()[0] == str(work / "tickets.csv")


def test_the_windows_options_work_without_naming_the_window(capsys):
    """W11: ``python -m triage_gui --encoder e5-small prompt.json tickets.csv`` (the files alone open the window)
    was refused with "argument command: invalid choice: 'e5-small'"; the window's own options open it too."""
    args = parse_args(["--encoder", "e5-small", str(SAMPLE)])
    assert args.command == "gui" and args.encoder == "e5-small" and args.files == [str(SAMPLE)]
    assert parse_args(["--encoder=e5-small"]).encoder == "e5-small"
    assert parse_args(["--device", "cpu", "--model", "bundled"]).command == "gui"
    assert parse_args(["--version"]).version and parse_args(["--version"]).command is None
    with pytest.raises(SystemExit):  # a command's own option before the command is still refused
        parse_args(["--out", "x.csv", "classify", str(SAMPLE)])


def test_a_question_asked_by_the_files_given_at_start_stops_no_task(qtbot, window, tmp_path, monkeypatch):
    """W20: started with the prompt named and its unsaved draft restored, the window asked "Save them before
    opening prompt.json?" from inside the task that showed it; the question's nested event loop made every other
    task fail to step ("Cannot enter into task … while another task is being executed"): the model never loaded
    and nothing was labelled. The files are opened from the Qt event loop instead."""
    import asyncio

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QMessageBox

    from triage_gui.gui.app import open_when_shown

    prompt = tmp_path / "routing.json"
    routing_prompt(window, prompt)
    window.editor.instruction.setPlainText("An edit not saved yet.")
    qtbot.waitUntil(lambda: window.document.dirty, timeout=5_000)
    asked: list[str] = []

    def question(*args, **kwargs):  # as the modal question does: a nested event loop until it is answered
        asked.append(args[2])
        loop = QEventLoop()
        QTimer.singleShot(300, loop.quit)
        loop.exec()
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", question)
    stepped: list[str] = []
    tasks: list[asyncio.Future] = []

    async def other() -> None:  # another task (the model's loading, say), stepping while the question is asked
        await asyncio.sleep(0.05)
        stepped.append("other")

    async def main() -> None:  # as run_app's: the window shown, then the files given opened
        tasks.append(asyncio.ensure_future(other()))
        open_when_shown(window.ticket_actions.open_given, [str(prompt)])
        await asyncio.sleep(0)

    tasks.append(asyncio.ensure_future(main()))
    qtbot.waitUntil(lambda: bool(asked) and stepped == ["other"], timeout=5_000)
    assert "unsaved changes" in asked[0]


def test_started_on_the_prompt_whose_draft_came_back_it_asks_nothing_and_keeps_the_draft(
    qtbot, tmp_path, monkeypatch, event_loop_qt
):
    """W20: quit with a field left unsaved (the draft), started again naming the same prompt: "The prompt
    prompt.json has unsaved changes. Save them before opening prompt.json?" of the file it had open; Save wrote
    what the model could not build, Discard lost the draft. Now it keeps the draft and says so."""
    from dataclasses import replace

    from fake_engine import FakeEngine
    from PySide6.QtWidgets import QMessageBox
    from test_session_fields import PRIORITY, QUEUE

    from triage_gui.engine.prompt import PromptProfile
    from triage_gui.gui.main_window import MainWindow
    from triage_gui.session.session import Session

    config = tmp_path / "config"
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(config))
    config.mkdir()
    PromptProfile.of_fields([QUEUE, PRIORITY], "t").save(config / "prompt.json")
    draft = PromptProfile.of_fields([QUEUE, replace(PRIORITY, instruction="Edited, not saved.")], "t")
    draft.save(config / "prompt-draft.json")
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Save)
    window = MainWindow(session=Session(FakeEngine().as_engine(), device="cpu", batch_size=8, encoder="none"))
    qtbot.addWidget(window, before_close_func=MainWindow.close_now)
    window.show()
    try:
        assert window.document.dirty
        window.ticket_actions.open_given([str(config / "prompt.json"), str(SAMPLE)])
        assert asked == [] and window.document.dirty
        assert window.editor.profile().fields[1].instruction == "Edited, not saved."
        assert "your unsaved draft of it restored" in window.statusBar().currentMessage()
        assert "Edited" not in (config / "prompt.json").read_text()
        qtbot.waitUntil(lambda: len(window.session.table) == 60, timeout=10_000)  # the tickets open as well
    finally:
        window.close_now()
