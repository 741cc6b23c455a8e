"""The prompt file's lock: a lock another program holds ends Save and closing in one sentence after a
bounded wait, with nothing lost (it blocked both with no end); the lock never follows a link under its
name (it created a dangling link's target) and a lock file another account planted in a sticky folder
holds nothing up. We run as root, so ``os.lchown`` makes files owned by another uid."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from triage_gui.engine.prompt import LOCK_WAIT, FileLocked, Label, PromptProfile
from triage_gui.session.prompt_document import PromptDocument

GOOD = PromptProfile("Route the ticket.", [Label("billing", "money"), Label("technical", "broken")])
OTHER = 54321
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")
HOLD = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
)


class Holder:
    """Another program holding ``path``'s lock file until the block ends."""

    def __init__(self, lock) -> None:
        self.lock = lock

    def __enter__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(self.lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout.readline().strip() == "held"
        return self

    def __exit__(self, *exc) -> None:
        self.process.stdin.close()
        self.process.wait(30)


def document(folder) -> PromptDocument:
    doc = PromptDocument(folder / "prompt.json", folder / "draft.json", delay=0.001, draft_delay=0.001)
    doc.start()
    return doc


@pytest.mark.timeout(120)  # the wait had no end: a hang fails here, not after the suite's 15 minutes
def test_a_save_waits_a_bounded_time_for_another_programs_lock_and_loses_nothing(tmp_path):
    GOOD.save(tmp_path / "prompt.json")
    before = (tmp_path / "prompt.json").read_bytes()
    taught = [("my card was charged twice", "billing")]

    async def body():
        doc = document(tmp_path)
        with Holder(tmp_path / ".prompt.json.lock"):
            with pytest.raises(FileLocked) as caught:
                doc.save(PromptProfile("Edited.", GOOD.labels), taught)
            assert (tmp_path / "prompt.json").read_bytes() == before  # nothing written
            assert doc.saved.instruction == GOOD.instruction  # nothing switched: the edit is still unsaved
        doc.save(PromptProfile("Edited.", GOOD.labels), taught)  # the other program let go: Save again
        doc.close()
        return caught.value

    error = asyncio.run(body())
    assert error.strerror == "prompt.json is locked by another program; your prompt was not saved, try again"
    saved = PromptProfile.load(tmp_path / "prompt.json")
    assert saved.instruction == "Edited." and [(e.text, e.label) for e in saved.taught] == taught
    assert 1 <= LOCK_WAIT <= 5


@pytest.mark.timeout(120)
def test_closing_while_another_program_holds_the_lock_keeps_the_taught_set_in_the_draft(tmp_path):
    GOOD.save(tmp_path / "prompt.json")
    said: list[str] = []

    async def body():
        doc = document(tmp_path)
        doc.failed.connect(said.append)
        with Holder(tmp_path / ".prompt.json.lock"):
            doc.keep_taught([("the app crashes", "technical")])
            doc.close()  # the window closing: bounded, and the taught set is kept

    asyncio.run(body())
    assert PromptProfile.load(tmp_path / "prompt.json").taught == []
    assert said and "locked by another program" in said[0] and "kept in the draft" in said[0]
    restarted = document(tmp_path)
    assert restarted.draft_taught == [("the app crashes", "technical")]  # offered back at the next start


def shared_folder(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    GOOD.save(shared / "prompt.json")
    return shared


@needs_root
def test_the_lock_never_follows_a_link_planted_under_its_name(tmp_path):
    shared = shared_folder(tmp_path)
    target = tmp_path / "victim" / "created-by-the-lock"
    target.parent.mkdir()
    link = shared / ".prompt.json.lock"
    link.symlink_to(target)
    os.lchown(link, OTHER, OTHER)

    async def body():
        doc = document(shared)
        doc.save(GOOD, [("my card was charged twice", "billing")])
        doc.close()

    asyncio.run(body())
    assert not target.exists() and link.is_symlink()
    assert [e.text for e in PromptProfile.load(shared / "prompt.json").taught] == ["my card was charged twice"]


@needs_root
@pytest.mark.timeout(120)
def test_another_accounts_lock_file_in_a_sticky_folder_holds_nothing_up(tmp_path):
    """A world-writable ``.prompt.json.lock`` another account made (and holds) in a 1777 folder: that
    account cannot replace the prompt there (the folder is sticky), so its lock is nobody's who writes it."""
    shared = shared_folder(tmp_path)
    lock = shared / ".prompt.json.lock"
    lock.write_bytes(b"")
    os.chown(lock, OTHER, OTHER)
    os.chmod(lock, 0o666)

    async def body():
        doc = document(shared)
        with Holder(lock):
            doc.save(GOOD, [("my card was charged twice", "billing")])  # no wait, no refusal
        doc.close()

    asyncio.run(body())
    assert [e.text for e in PromptProfile.load(shared / "prompt.json").taught] == ["my card was charged twice"]
    assert lock.exists() and lock.stat().st_uid == OTHER  # left as it is
