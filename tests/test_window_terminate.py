"""Hostile round W10: the app ended by a signal (a logout, a shutdown, ``kill -TERM``) keeps what was taught."""

from __future__ import annotations

import os
import signal

from triage_gui.engine.prompt import PromptProfile
from triage_gui.engine.table import NewRow


def six_tickets_saved_to(qtbot, window, path) -> None:
    """Six tickets labelled under a prompt saved as the lead's own file ``path``, every write done."""
    session = window.session
    session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(6)])
    qtbot.waitUntil(lambda: session.table.count_scored() == 6, timeout=10_000)
    assert window.prompt.save(path)
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)


def test_sigterm_just_after_a_teach_closes_the_window_and_the_taught_ticket_is_in_the_prompt_file(
    qtbot, window, tmp_path
):
    """W10: a ticket taught, then ``kill -TERM`` of the app a tenth of a second later: the process died at
    once (no handler), before the coalesced write of the taught set, and after a restart the ticket was
    not taught, with nothing said."""
    from triage_gui.gui.app import close_on_terminate

    session = window.session
    six_tickets_saved_to(qtbot, window, tmp_path / "mine.json")  # a prompt file of the lead's own
    died = []
    previous = signal.signal(signal.SIGTERM, lambda *_: died.append(True))  # the default would end pytest
    try:
        close_on_terminate(window.close_now)
        label = session.table.labels[1]
        session.teaching.teach([2], label)
        os.kill(os.getpid(), signal.SIGTERM)  # before the taught set's write (0.25 s coalescing)
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=10_000)
    finally:
        loop = __import__("asyncio").get_event_loop()
        loop.remove_signal_handler(signal.SIGTERM)
        loop.remove_signal_handler(signal.SIGHUP)
        signal.signal(signal.SIGTERM, previous)
    assert not died
    taught = [(e.text, e.label) for e in PromptProfile.load(tmp_path / "mine.json").taught]
    assert taught == [("ticket 2", label)]


def test_taught_tickets_a_read_only_prompt_file_could_not_take_are_not_said_to_be_kept_with_it(qtbot, window, tmp_path):
    """W10: p.json made read-only, a ticket taught: the line under the editor said "Taught tickets: 11 (kept with
    this prompt)" while they were only in the draft, the status bar's one sentence saying so cut at 1366 px and
    gone after ten seconds."""
    session = window.session
    path = tmp_path / "mine.json"
    six_tickets_saved_to(qtbot, window, path)
    line = window.editor.taught_count
    path.chmod(0o444)
    session.teaching.teach([1], session.table.labels[0])
    qtbot.waitUntil(lambda: window.document.stranded is not None and not window.document.busy, timeout=10_000)
    assert "kept with this prompt" not in line.text()
    assert "not written to mine.json: it is read-only" in line.text() and "kept in the draft" in line.text()
    path.chmod(0o644)
    session.teaching.teach([2], session.table.labels[0])  # the file takes them all again
    qtbot.waitUntil(lambda: window.document.stranded is None and not window.document.busy, timeout=10_000)
    assert "2 (kept with this prompt)" in line.text()
    assert len(PromptProfile.load(path).taught) == 2


def test_a_ticket_forgotten_in_another_window_is_forgotten_in_this_one_at_its_next_write(qtbot, window, tmp_path):
    """W10, two windows on p.json: B forgot a ticket (the file no longer held it), A kept showing it taught (✓,
    counted "16 (kept with this prompt)" against the file's 15, learned from) until a restart dropped it."""
    import json

    session = window.session
    session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(6)])
    qtbot.waitUntil(lambda: session.table.count_scored() == 6, timeout=10_000)
    path = tmp_path / "shared.json"
    assert window.prompt.save(path)
    label = session.table.labels[0]
    session.teaching.teach([1, 2], label)
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(e["text"] for e in data["taught"]) == ["ticket 1", "ticket 2"]
    data["taught"] = [e for e in data["taught"] if e["text"] != "ticket 1"]  # the other window forgets it
    path.write_text(json.dumps(data), encoding="utf-8")
    session.teaching.teach([3], label)  # this window's next write reads the file
    qtbot.waitUntil(lambda: "ticket 1" not in dict(session.taught_items()), timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    assert sorted(dict(session.taught_items())) == ["ticket 2", "ticket 3"]
    assert session.table.taught_label(1) is None  # no longer marked ✓
    assert "2 (kept with this prompt)" in window.editor.taught_count.text()
    assert sorted(e.text for e in PromptProfile.load(path).taught) == ["ticket 2", "ticket 3"]
    assert "forgotten outside this window" in window.statusBar().currentMessage()
    assert session.history.undo_text == "forget 1 ticket forgotten outside this window"  # Ctrl+Z teaches it again


def test_opening_a_read_only_prompt_file_does_not_say_its_taught_tickets_were_not_written(qtbot, window, tmp_path):
    """W10: File › Open prompt of a read-only p.json holding 15 taught tickets: "The taught tickets were not
    written to p.json: it is read-only …" though nothing had changed, the 15 all in the file."""
    session = window.session
    session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(6)])
    qtbot.waitUntil(lambda: session.table.count_scored() == 6, timeout=10_000)
    first, other = tmp_path / "first.json", tmp_path / "other.json"
    assert window.prompt.save(first)
    session.teaching.teach([1, 2], session.table.labels[0])
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    assert window.prompt.save(other)
    session.teaching.forget_all()
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    first.chmod(0o444)
    said = []
    window.document.failed.connect(said.append)
    assert window.prompt.open(str(first))
    session.teaching.teach([1], session.table.labels[0])  # the label it has: the same set, a write all the same
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    qtbot.wait(300)
    assert window.document.stranded is None and not said
    assert "2 (kept with this prompt)" in window.editor.taught_count.text()


def test_a_checks_write_on_a_read_only_prompt_file_keeps_the_taught_tickets_in_the_draft(qtbot, window, tmp_path):
    """W10: p.json read-only, two random checks answered (each teaches its ticket), Ctrl+Q: the draft held the
    file's 15 taught tickets, not 17. The checks' own write carried the file's taught set and the draft took it."""
    import time

    from triage_gui.engine.prompt import CheckRecord

    session = window.session
    path = tmp_path / "mine.json"
    six_tickets_saved_to(qtbot, window, path)
    path.chmod(0o444)
    label = session.table.labels[0]
    session.teaching.teach([1], label)
    qtbot.waitUntil(lambda: window.document.stranded is not None and not window.document.busy, timeout=10_000)
    check = CheckRecord("ticket 1", label, label, 1, 0, time.time())
    window.document.keep_checks([*window.document.checks, check])  # a write of the checks alone
    qtbot.waitUntil(lambda: not window.document.busy, timeout=10_000)
    qtbot.wait(300)
    assert window.document.stranded == [("ticket 1", label)]
    window.close_now()
    assert [(e.text, e.label) for e in PromptProfile.load(window.document.draft_path).taught] == [("ticket 1", label)]


def test_at_1024_a_passing_message_is_read_whole_the_model_name_stepping_aside(qtbot, window):
    """W10 at 1024x640: a teach said "Accepted…" and a read-only file "The taught tickets were not written to
    p.json…" in the status bar, the estimate, the learning, the prompt state and the model's name taking the rest."""
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2_000)
    window.check_status.setText("~100% (34–100%), 2 checks (2 on first-pass labels) on v5 with 15 taught, just now")
    window.model_status.setText("SmolLM2-135M-Instruct (bundled) · cpu")  # as the real window shows it
    qtbot.wait(50)
    bar = window.statusBar()
    message = "Accepted 'technical' for 1 ticket: labels updating."
    bar.showMessage(message, 10_000)
    qtbot.wait(50)
    assert bar.shown_message() == message
    assert window.check_status.isVisible()  # the estimate stays
    bar.clearMessage()
    qtbot.wait(50)
    assert window.model_status.isVisible() and window.prompt_status.isVisible()  # back once the message is gone
