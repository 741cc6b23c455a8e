"""The taught set's background write and what lands in the prompt file: a teach, a forget or an undo
made while a write runs on the writer thread is in the file after Save or close, never lost or
resurrected (the write lands, so its bookkeeping must too); and a seeded random driver through the
session layer with writes in flight agrees with a model of what the lead did after every step."""

from __future__ import annotations

import asyncio
import threading

from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.session import prompt_document
from triage_gui.session.prompt_document import PromptDocument

GOOD = PromptProfile("Route the ticket.", [Label("billing", "money"), Label("technical", "broken")])


def taught_in(path) -> dict[str, str]:
    return {e.text: e.label for e in PromptProfile.load(path).taught}


def held_writes(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The prompt file's writes wait on the writer thread until ``gate`` opens (at most 0.3 s, so a fix
    that waits for them ends too); ``inside`` says one is waiting."""
    gate, inside = threading.Event(), threading.Event()
    real = prompt_document.atomic_write_text

    def held(path, text):
        if threading.current_thread().name.startswith("prompt-file"):
            inside.set()
            gate.wait(0.3)
        real(path, text)

    monkeypatch.setattr(prompt_document, "atomic_write_text", held)
    return gate, inside


def document(tmp_path, taught=()) -> PromptDocument:
    from dataclasses import replace

    from triage_gui.engine.prompt import Example

    replace(GOOD, taught=[Example(t, label) for t, label in taught]).save(tmp_path / "prompt.json")
    doc = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json", delay=0.001, draft_delay=0.001)
    doc.start()
    return doc


def test_teach_then_forget_at_once_then_close_leaves_it_forgotten(tmp_path, monkeypatch):
    """Teach X, forget X at once, close: X was back in the file (3 of 3)."""
    doc = document(tmp_path)
    _gate, inside = held_writes(monkeypatch)
    seen: list = []
    doc.merged.connect(lambda theirs, prompt: seen.append((theirs, prompt)))

    async def body():
        doc.keep_taught([("ticket x", "billing")])
        while not inside.is_set():  # the write of {x} runs on the writer thread
            await asyncio.sleep(0.001)
        doc.keep_taught([])  # forgotten at once
        doc.close()

    asyncio.run(body())
    assert taught_in(tmp_path / "prompt.json") == {}
    assert seen == []  # one window: nothing came "from another window"


def test_forget_then_undo_at_once_then_close_keeps_the_ticket(tmp_path, monkeypatch):
    """Forget an old ticket by mistake, Ctrl+Z at once, close: the ticket was gone (3 of 3)."""
    doc = document(tmp_path, [("old ticket", "technical")])
    _gate, inside = held_writes(monkeypatch)

    async def body():
        doc.keep_taught([])
        while not inside.is_set():
            await asyncio.sleep(0.001)
        doc.keep_taught([("old ticket", "technical")])  # Ctrl+Z
        doc.close()

    asyncio.run(body())
    assert taught_in(tmp_path / "prompt.json") == {"old ticket": "technical"}


def test_a_save_during_a_background_write_keeps_what_the_lead_did_after_it(tmp_path, monkeypatch):
    doc = document(tmp_path, [("old ticket", "technical")])
    _gate, inside = held_writes(monkeypatch)

    async def body():
        doc.keep_taught([("old ticket", "technical"), ("new ticket", "billing")])
        while not inside.is_set():
            await asyncio.sleep(0.001)
        doc.save(GOOD, [("old ticket", "technical")])  # the new ticket was forgotten, then Save
        assert taught_in(tmp_path / "prompt.json") == {"old ticket": "technical"}
        doc.keep_taught([("old ticket", "technical"), ("third", "billing")])
        while doc.busy:
            await asyncio.sleep(0.005)
        doc.close()

    asyncio.run(body())
    assert taught_in(tmp_path / "prompt.json") == {"old ticket": "technical", "third": "billing"}
