"""A Save that writes nothing after a label was renamed in the editor (W18): a read-only prompt file, a full
disk, another window's prompt in the file. The renamed label's taught tickets took the new name before the write
and kept it when the write failed: a ticket taught 'billing' became 'payments', a label the prompt in use does
not have, so the fit left it out ("stranded") and the draft kept it under the name a Discard then threw away."""

from __future__ import annotations

import errno
import os
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from test_window_fields import open_two_fields, press
from test_window_label_rename import PRIORITY, rename

from triage_gui.engine.prompt import PromptProfile
from triage_gui.gui.tickets.ticket_model import Col
from triage_gui.session import prompt_document


@pytest.fixture
def window(encoded_window):
    return encoded_window


def full_disk(path, text):
    raise OSError(errno.ENOSPC, "No space left on device")


def _document_on_a_full_disk(tmp_path, monkeypatch, said: list[str]):
    """A prompt document on a two-label prompt.json, started, what it fails to write said into ``said``; then the
    disk is full (``monkeypatch.undo()`` gives it room again). Call it on a running loop."""
    from triage_gui.engine.prompt import Label
    from triage_gui.session.prompt_document import PromptDocument

    PromptProfile("Route the ticket.", [Label("billing", "money"), Label("technical", "broken")]).save(
        tmp_path / "prompt.json"
    )
    doc = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json", delay=0.01, draft_delay=0.01)
    doc.start()
    doc.failed.connect(said.append)
    monkeypatch.setattr(prompt_document, "atomic_write_text", full_disk)
    return doc


@pytest.mark.parametrize("why", ["read-only", "disk full"])
def test_a_failed_save_leaves_the_taught_tickets_on_the_labels_in_use(qtbot, window, tmp_path, monkeypatch, why):
    path = open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    press(qtbot, window, 2, Col.LABEL, Qt.Key.Key_1)  # the queue's 'billing'
    press(qtbot, window, 5, PRIORITY, Qt.Key.Key_2)  # the priority's 'high'
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    texts = session.table.texts
    rename(editor, 0, "payments")
    editor.field_bar.combo.setCurrentIndex(1)
    rename(editor, 1, "urgent")
    warned: list[tuple] = []
    monkeypatch.setattr(window.prompt, "warn", lambda *args: warned.append(args))
    if why == "read-only":
        os.chmod(path, 0o444)
    else:
        monkeypatch.setattr(prompt_document, "atomic_write_text", full_disk)
    before = path.read_bytes()
    assert not window.prompt.save()
    assert len(warned) == 1 and "Prompt not saved" in warned[0][0]
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    assert session.taught[texts[2]] == "billing" and dict(session.fields.items(1))[texts[5]] == "high"
    assert session.head_status.stranded == 0  # none left out of the fit
    assert path.read_bytes() == before
    os.chmod(path, 0o644)
    monkeypatch.undo()
    assert window.prompt.save()  # the rename still in the editor: saved now, the tickets follow it
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    assert session.taught[texts[2]] == "payments" and dict(session.fields.items(1))[texts[5]] == "urgent"
    kept = PromptProfile.load(path)
    assert (texts[2], "payments") in [(e.text, e.label) for e in kept.taught]
    assert (texts[5], "urgent") in [(e.text, e.label) for e in kept.more_fields[0].taught]


def test_a_full_disk_says_the_taught_tickets_are_kept_in_this_window_not_in_the_draft(tmp_path, monkeypatch):
    """A teach on a full disk: the file and the draft both refused it; the lead read only "they are kept in the
    draft and come back at the next start" (untrue), and the draft write's error went unread in its task."""
    import asyncio

    said: list[str] = []

    async def body():
        doc = _document_on_a_full_disk(tmp_path, monkeypatch, said)
        doc.keep_taught([("my card was charged twice", "billing")])
        await asyncio.sleep(0.3)
        assert not doc.busy and doc._writing.task is not None and doc._writing.task.exception() is None
        assert said[-1].startswith("The taught tickets were not written to prompt.json nor to the draft (No space")
        monkeypatch.undo()  # the disk has room again: the next teach writes them
        doc.keep_taught([("my card was charged twice", "billing"), ("the app crashes", "technical")])
        doc.close()
        assert len(PromptProfile.load(tmp_path / "prompt.json").taught) == 2

    asyncio.run(body())


def test_an_edit_whose_draft_autosave_meets_a_full_disk_says_so(tmp_path, monkeypatch):
    """W18: the editor's autosave of the draft on a full disk failed in its task ("Task exception was never
    retrieved" in the log) and the lead was told nothing; it is said as the window's closing autosave says it."""
    import asyncio

    said: list[str] = []

    async def body():
        doc = _document_on_a_full_disk(tmp_path, monkeypatch, said)
        doc.edit(replace(doc.saved, instruction="Route the ticket, please."))
        await asyncio.sleep(0.3)
        task = doc._drafting.task
        assert task is not None and task.done() and task.exception() is None
        assert said and said[-1].startswith("Could not autosave the prompt draft: [Errno 28] No space left")
        doc.close()

    asyncio.run(body())
