"""The prompt file as a Qt-free document: a refused file changes nothing, taught-set writes are off the
loop's thread and coalesced, and a background write never lands after a Save."""

from __future__ import annotations

import asyncio
import threading

import pytest

from triage_gui.engine.prompt import Label, ProfileError, PromptProfile
from triage_gui.session import prompt_document
from triage_gui.session.prompt_document import PromptDocument

GOOD = PromptProfile("Route the ticket.", [Label("billing", "money"), Label("technical", "broken")])


def document(tmp_path) -> PromptDocument:
    GOOD.save(tmp_path / "prompt.json")
    doc = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json", delay=0.02, draft_delay=0.02)
    doc.start()
    return doc


def test_a_refused_file_changes_nothing(tmp_path):
    doc = document(tmp_path)
    doc.draft = PromptProfile("An unsaved edit.", GOOD.labels)
    bad = tmp_path / "bad.json"
    bad.write_text(GOOD.to_json().replace('"billing"', '"billing "'), encoding="utf-8")
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(ValueError, match="spaces"):
        doc.read(bad)
    with pytest.raises(ProfileError):
        doc.save(PromptProfile("", GOOD.labels), [], bad)  # an empty instruction: refused, not written
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert doc.path == tmp_path / "prompt.json" and doc.draft.instruction == "An unsaved edit." and doc.dirty


def test_taught_writes_are_coalesced_and_off_the_loop_thread(tmp_path, monkeypatch):
    doc = document(tmp_path)
    threads: list[str] = []
    real = prompt_document.atomic_write_text

    def recorded(path, text):
        threads.append(threading.current_thread().name)
        real(path, text)

    monkeypatch.setattr(prompt_document, "atomic_write_text", recorded)

    async def body():
        for i in range(50):  # fifty teaching key presses in a burst
            doc.keep_taught([(f"ticket {j}", "billing") for j in range(i + 1)])
            await asyncio.sleep(0)
        while doc.busy:
            await asyncio.sleep(0.01)
        doc.close()

    asyncio.run(body())
    assert 1 <= len(threads) <= 2 and all(name.startswith("prompt-file") for name in threads)
    saved = PromptProfile.load(tmp_path / "prompt.json")
    assert len(saved.taught) == 50 and saved.instruction == GOOD.instruction


def test_a_background_write_never_lands_after_a_save(tmp_path):
    doc = document(tmp_path)
    hold = threading.Event()

    async def body():
        doc.writer.submit(hold.wait, 5)  # the writer thread is busy: the taught write queues behind
        doc.keep_taught([("old ticket", "billing")])
        await asyncio.sleep(0.05)
        newer = PromptProfile("Route it, second version.", GOOD.labels)
        doc.save(newer, [("new ticket", "technical")])
        hold.set()
        await asyncio.sleep(0.1)
        doc.close()

    asyncio.run(body())
    saved = PromptProfile.load(tmp_path / "prompt.json")
    assert saved.instruction == "Route it, second version." and [e.text for e in saved.taught] == ["new ticket"]


def test_the_draft_is_autosaved_and_dropped_once_saved(tmp_path):
    doc = document(tmp_path)
    seen = []
    doc.changed.connect(seen.append)

    async def body():
        doc.edit(PromptProfile("Edited.", GOOD.labels))
        while doc.busy:
            await asyncio.sleep(0.01)
        assert PromptProfile.load(doc.draft_path).instruction == "Edited."
        doc.save(PromptProfile("Edited.", GOOD.labels), [])
        doc.close()

    asyncio.run(body())
    assert not doc.draft_path.exists() and not doc.dirty
    assert [s.dirty for s in seen] == [True, False]
