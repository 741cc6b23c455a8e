"""The prompt file as a Qt-free document: a refused file changes nothing, taught-set writes are off the
loop's thread and coalesced, a background write never lands after a Save, the random checks are kept with
it, and a version keeps one score per file and taught set."""

from __future__ import annotations

import asyncio
import threading

import pytest

from triage_gui.engine.prompt import CheckRecord, Label, Measure, ProfileError, PromptProfile
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


def check(i: int, version: int = 3, taught: int = 40) -> CheckRecord:
    return CheckRecord(
        f"ticket {i}", "billing", "billing" if i % 2 else "technical", version, taught, 1_800_000_000.0 + i
    )


def test_random_checks_are_kept_with_the_prompt_file_and_come_back(tmp_path, monkeypatch):
    """Twenty checks said "~40 %"; after reopening the prompt or a restart it said "not estimated": the
    checks are written with the file (on the writer thread, coalesced) and read back by a new document."""
    doc = document(tmp_path)
    threads: list[str] = []
    real = prompt_document.atomic_write_text
    monkeypatch.setattr(
        prompt_document, "atomic_write_text", lambda p, t: threads.append(threading.current_thread().name) or real(p, t)
    )

    async def body():
        for i in range(20):  # twenty verdicts in a row
            doc.keep_checks([check(j) for j in range(i + 1)])
            await asyncio.sleep(0)
        doc.keep_checks([check(j) for j in range(20)])  # unchanged: nothing more to write
        while doc.busy:
            await asyncio.sleep(0.01)
        doc.close()

    asyncio.run(body())
    assert 1 <= len(threads) <= 2 and all(name.startswith("prompt-file") for name in threads)
    restarted = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json")
    saved, _, note = restarted.start()
    assert not note and saved.checks == [check(j) for j in range(20)] and restarted.checks == saved.checks
    other = tmp_path / "other.json"
    GOOD.save(other)
    restarted.adopt(other, restarted.read(other))
    assert restarted.checks == []  # the other prompt's (none)
    restarted.adopt(tmp_path / "prompt.json", restarted.read(tmp_path / "prompt.json"))
    assert restarted.checks == saved.checks  # reopening the prompt brings them back
    restarted.save(GOOD, [], tmp_path / "copy.json")  # Save As takes them along
    assert PromptProfile.load(tmp_path / "copy.json").checks == saved.checks


def test_old_files_load_and_unreadable_checks_are_dropped_not_the_prompt(tmp_path):
    data = GOOD.to_dict()
    assert "checks" not in data and PromptProfile.from_dict(data).checks == []  # a file from before
    good = check(1).to_dict()
    data["checks"] = [good, "junk", {**good, "version": "3"}, {**good, "right": None}, {**good, "at": True},
                      {**good, "taught": -1}, {**good, "text": " "}, {**good, "text": "ticket 9"}]  # fmt: skip
    loaded = PromptProfile.from_dict(data)
    assert [c.text for c in loaded.checks] == ["ticket 1", "ticket 9"]
    assert PromptProfile.from_dict(loaded.to_dict()).checks == loaded.checks
    data["checks"] = {"not": "a list"}
    assert PromptProfile.from_dict(data).checks == []


def test_a_version_keeps_one_score_per_file_and_taught_set(tmp_path):
    """v3's score was written over by a later load's: the first score for a file (gold rows) and taught set
    stays, in the file too; another taught set gets its own, and the newest is the one listed."""
    doc = document(tmp_path)

    async def body():
        doc.applied(0, GOOD)
        doc.scored(0, Measure(0.482, 40, 360, "gold-a", "taught-40", "2026-12-01 10:00"))
        doc.scored(0, Measure(0.506, 40, 360, "gold-a", "taught-40", "2026-12-01 11:00"))  # a later load
        while doc.busy:
            await asyncio.sleep(0.01)
        assert PromptProfile.load(doc.path).history[-1].accuracy == 0.482
        doc.scored(0, Measure(0.55, 41, 360, "gold-a", "taught-41", "2026-12-01 12:00"))
        doc.close()

    asyncio.run(body())
    record = PromptProfile.load(doc.path).history[-1]
    assert [m.accuracy for m in record.scores] == [0.482, 0.55] and (record.accuracy, record.taught) == (0.55, 41)
    old = {**record.to_dict(), "accuracy": 0.5, "taught": 2, "gold_rows": 30}
    del old["scores"]  # a file from before the scores list: its one score counts
    legacy = PromptProfile.from_dict({**GOOD.to_dict(), "history": [old]}).history[0]
    assert legacy.scored(Measure(0.6, 2, 30, "g", "t")) is legacy
    assert legacy.scored(Measure(0.6, 3, 30, "g", "t")).accuracy == 0.6


def test_a_score_under_conditions_measured_before_is_the_one_shown_and_the_encoder_is_one_of_them():
    """A version scored with MiniLM, then with e5-small (another score: before, the first stayed and was shown
    under e5's labels), then with MiniLM again: MiniLM's first score is shown, nothing added; an older file's
    score (no encoder) counts for any encoder."""
    from triage_gui.engine.prompt import VersionRecord

    base = VersionRecord(1, "2026-12-04 07:00", {"instruction": "x", "labels": []}, "c")
    mini = base.scored(Measure(0.80, 0, 300, "g", "t", "07:01", "mini"))
    e5 = mini.scored(Measure(0.86, 0, 300, "g", "t", "07:05", "e5"))
    assert [m.encoder for m in e5.scores] == ["mini", "e5"] and e5.accuracy == 0.86
    back = e5.scored(Measure(0.81, 0, 300, "g", "t", "07:09", "mini"))  # a later load under MiniLM
    assert back.accuracy == 0.80 and back.scores == e5.scores
    assert back.scored(Measure(0.81, 0, 300, "g", "t", "07:10", "mini")) is back  # shown already: unchanged
    old = base.scored(Measure(0.7, 0, 300, "g", "t", "07:00"))
    assert old.scored(Measure(0.9, 0, 300, "g", "t", "07:20", "e5")) is old
    restored = PromptProfile.from_dict({**GOOD.to_dict(), "history": [back.to_dict()]}).history[0]
    assert [m.encoder for m in restored.scores] == ["mini", "e5"]


def test_a_checks_write_during_a_taught_write_keeps_the_newest_taught_set(tmp_path):
    """Under load a lead's five checks came back after a restart with none of the five taught tickets
    ("taught tickets were taken back (may have changed)"): a checks (or versions) write asked for while a
    taught write was still on its way copied the taught set from before that write, and the merge read
    the difference as tickets forgotten."""
    doc = document(tmp_path)
    gate, inside = threading.Event(), threading.Event()
    real = doc._write_file

    def held(*job):
        inside.set()
        gate.wait(10)
        return real(*job)

    doc._write_file = held  # type: ignore[method-assign]
    taught = [("my card was charged twice", "billing"), ("the app crashes", "technical")]
    check = CheckRecord("my card was charged twice", "billing", "billing", 1, 0, 1_700_000_000.0)

    async def body():
        doc.keep_taught(taught)
        while not inside.is_set():  # the taught write is on the writer thread, not landed
            await asyncio.sleep(0.005)
        doc.keep_checks([check])  # a check given meanwhile
        gate.set()
        while doc.busy:
            await asyncio.sleep(0.01)
        doc.close()

    asyncio.run(body())
    saved = PromptProfile.load(tmp_path / "prompt.json")
    assert [(e.text, e.label) for e in saved.taught] == taught
    assert saved.checks == [check]


def test_a_draft_holding_the_taught_set_the_read_only_file_holds_offers_nothing_back(tmp_path):
    """W10: after a session on a read-only p.json the draft kept its 15 taught tickets, all in the file; the next
    start said "Restored 15 taught tickets kept in the draft" and, under the editor, that they were not written."""
    from dataclasses import replace

    from triage_gui.engine.prompt import Example, default_profile

    taught = [Example("ticket one", "billing"), Example("ticket two", "technical")]
    saved = replace(default_profile(), taught=taught)
    (tmp_path / "prompt.json").write_text(saved.to_json(), encoding="utf-8")
    (tmp_path / "prompt.json").chmod(0o444)
    (tmp_path / "draft.json").write_text(replace(saved, taught=taught[::-1]).to_json(), encoding="utf-8")
    doc = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json")
    doc.start()
    assert doc.draft_taught == [] and doc.stranded is None and doc.status.not_written == ""
    (tmp_path / "draft.json").write_text(replace(saved, taught=taught[:1]).to_json(), encoding="utf-8")
    doc = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json")
    doc.start()  # a set the file does not hold is still offered back
    assert doc.draft_taught == [("ticket one", "billing")] and doc.stranded == [("ticket one", "billing")]


def test_random_checks_a_read_only_file_could_not_take_come_back_from_the_draft(tmp_path):
    """W10: p.json read-only, two random checks answered, Ctrl+Q, restart: the checks' tickets were taught again
    from the draft, but the two verdicts were gone ("Random checks: none yet")."""
    import time
    from dataclasses import replace

    from triage_gui.engine.prompt import CheckRecord, Example, default_profile

    old = CheckRecord("ticket one", "billing", "billing", 1, 0, time.time() - 60)
    saved = replace(default_profile(), taught=[Example("ticket one", "billing")], checks=[old])
    (tmp_path / "prompt.json").write_text(saved.to_json(), encoding="utf-8")
    (tmp_path / "prompt.json").chmod(0o444)
    doc = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json")
    doc.start()
    new = CheckRecord("ticket two", "technical", "billing", 1, 1, time.time())
    doc.checks = [old, new]  # as keep_checks leaves them when the file does not take them
    doc.stranded = [("ticket one", "billing"), ("ticket two", "technical")]
    doc.write_draft()  # the window closing
    restarted = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json")
    restarted.start()
    assert restarted.draft_taught == [("ticket one", "billing"), ("ticket two", "technical")]
    assert [c.text for c in restarted.checks] == ["ticket one", "ticket two"]


def test_a_prompt_file_gone_since_the_last_run_leads_to_the_default_prompt_and_says_so(tmp_path):
    """W11: the prompt file moved away, the next start showed the default prompt under "Saved: p.json", and a
    teach would have written the default prompt there. Now the default prompt's own file is in use, and the note
    says where the missing one was; a first run (the default file not written yet) says nothing."""
    default = tmp_path / "config" / "prompt.json"
    default.parent.mkdir()
    first = PromptDocument(default, tmp_path / "draft.json", default)
    assert first.start()[2] == "" and first.path == default
    gone = tmp_path / "shared" / "p.json"
    doc = PromptDocument(gone, tmp_path / "draft.json", default)
    saved, draft, note = doc.start()
    assert doc.path == default and draft is None and saved.labels
    assert note == (
        f"The prompt file {gone} was not found, so the default prompt is in use; File › Open prompt… opens it "
        "where it is now."
    )
    assert not gone.exists() and not gone.parent.exists()
