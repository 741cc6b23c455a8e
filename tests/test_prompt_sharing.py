"""One prompt file, two windows (two documents on one path): nothing either side wrote is lost, a file
that cannot be read is never written over, a read-only one is refused in one sentence."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage_gui.engine.files._atomic import ReadOnlyFile
from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.session.prompt_document import PromptConflict, PromptDocument

GOOD = PromptProfile("Route the ticket.", [Label("billing", "money"), Label("technical", "broken")])


def window(folder, name: str) -> PromptDocument:
    """A document as a window holds it, taking in what the other side taught (as the window does)."""
    doc = PromptDocument(folder / "prompt.json", folder / f"draft-{name}.json", delay=0.01, draft_delay=0.01)
    saved, _, _ = doc.start()
    doc.items = {e.text: e.label for e in saved.taught}  # type: ignore[attr-defined]
    doc.merged.connect(lambda theirs, _prompt: doc.items.update(theirs))  # type: ignore[attr-defined]
    return doc


def teach(doc: PromptDocument, text: str, label: str | None) -> None:
    items = doc.items  # type: ignore[attr-defined]
    if label is None:
        items.pop(text, None)
    else:
        items[text] = label
    doc.keep_taught(list(items.items()))
    doc.flush()


def taught_in(path) -> dict[str, str]:
    return {e.text: e.label for e in PromptProfile.load(path).taught}


def run(body) -> None:
    async def main():
        body()

    asyncio.run(main())


def test_both_windows_teaching_keeps_both_tickets(tmp_path):
    GOOD.save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        teach(a, "my card was charged twice", "billing")
        teach(b, "the app crashes on start", "technical")
        assert taught_in(tmp_path / "prompt.json") == {
            "my card was charged twice": "billing",
            "the app crashes on start": "technical",
        }
        teach(a, "refund please", "billing")  # A's next write keeps B's ticket too, and A takes it in
        assert len(taught_in(tmp_path / "prompt.json")) == 3 and "the app crashes on start" in a.items
        teach(b, "my card was charged twice", None)  # B forgets A's ticket: forgotten in the file
        assert "my card was charged twice" not in taught_in(tmp_path / "prompt.json")

    run(body)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.integers(0, 5), st.sampled_from(["billing", "technical", None])),
        max_size=25,
    )
)
def test_interleaved_teaching_loses_nothing_either_side_taught(tmp_path, steps):
    """Each side teaches and forgets its own tickets in any order: the file holds exactly both sides' sets."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    GOOD.save(folder / "prompt.json")

    def body():
        sides = {"a": window(folder, "a"), "b": window(folder, "b")}
        mine: dict[str, dict[str, str]] = {"a": {}, "b": {}}
        for side, n, label in steps:
            text = f"{side} ticket {n}"
            teach(sides[side], text, label)
            if label is None:
                mine[side].pop(text, None)
            else:
                mine[side][text] = label
        assert taught_in(folder / "prompt.json") == {**mine["a"], **mine["b"]}

    run(body)


def test_a_saved_instruction_survives_the_other_window_teaching(tmp_path):
    GOOD.save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        edited = PromptProfile("Route the ticket to the team that fixes it.", GOOD.labels)
        a.save(edited, [])
        taken = []
        b.merged.connect(lambda theirs, prompt: taken.append(prompt))
        teach(b, "the app crashes on start", "technical")
        saved = PromptProfile.load(tmp_path / "prompt.json")
        assert saved.instruction == edited.instruction and [e.text for e in saved.taught] == [
            "the app crashes on start"
        ]
        assert taken == [True] and b.saved.instruction == edited.instruction  # B was told, and now shows it

    run(body)


def test_both_windows_editing_the_prompt_asks_before_saving(tmp_path):
    GOOD.save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        a.save(PromptProfile("A's instruction.", GOOD.labels), [("a ticket", "billing")])
        before = (tmp_path / "prompt.json").read_bytes()
        with pytest.raises(PromptConflict, match="changed outside this window") as caught:
            b.save(PromptProfile("B's instruction.", GOOD.labels), [("b ticket", "technical")])
        assert caught.value.theirs.instruction == "A's instruction."
        assert (tmp_path / "prompt.json").read_bytes() == before  # nothing written until the lead answers
        b.save(PromptProfile("B's instruction.", GOOD.labels), [("b ticket", "technical")], force=True)
        saved = PromptProfile.load(tmp_path / "prompt.json")
        assert saved.instruction == "B's instruction." and taught_in(tmp_path / "prompt.json") == {
            "a ticket": "billing",
            "b ticket": "technical",
        }

    run(body)


def test_version_numbers_continue_from_the_file(tmp_path):
    GOOD.save(tmp_path / "prompt.json")

    def body():
        a = window(tmp_path, "a")
        a.applied(0, GOOD)  # this window's first version: number 1 in its memory
        data = json.loads((tmp_path / "prompt.json").read_text())
        entry = {"saved_at": "2026-12-01 10:00", "content": "x", "instruction": "old", "labels": []}
        data["history"] = [{"number": n, **entry, "content": f"c{n}"} for n in range(1, 10_001)]
        (tmp_path / "prompt.json").write_text(json.dumps(data))  # another window's 10,000 versions
        edited = PromptProfile("Route it, edited.", GOOD.labels)
        a.save(edited, [])
        a.applied(1, edited)
        history = json.loads((tmp_path / "prompt.json").read_text())["history"]
        # cut to 100 on Save; this window's two versions numbered after the file's newest, not from memory
        assert len(history) == 100 and [h["number"] for h in history[-3:]] == [10_000, 10_001, 10_002]
        assert history[-1]["instruction"] == edited.instruction and (a.number(0), a.number(1)) == (10_001, 10_002)

    run(body)


def test_a_field_this_version_does_not_know_is_carried_through(tmp_path):
    data = {**GOOD.to_dict(), "reviews": {"rows": [3, 7]}}
    (tmp_path / "prompt.json").write_text(json.dumps(data))

    def body():
        a = window(tmp_path, "a")
        teach(a, "a ticket", "billing")
        a.save(PromptProfile("Edited.", GOOD.labels), list(a.items.items()))  # type: ignore[attr-defined]
        assert json.loads((tmp_path / "prompt.json").read_text())["reviews"] == {"rows": [3, 7]}

    run(body)


def unreadable_files(tmp_path):
    good = GOOD.to_json()
    label = GOOD.to_dict()
    label["labels"][0]["name"] = "b" * 65
    entry = {"number": 1, "saved_at": "", "content": "", "instruction": "x" * 17_000_000, "labels": []}
    return {
        "huge history entry": json.dumps({**GOOD.to_dict(), "history": [entry]}),
        "future schema": good.replace('"schema_version": 2', '"schema_version": 9'),
        "trailing comma": good.replace('"broken"\n    }', '"broken"\n    },'),
        "65-character label": json.dumps(label),
    }


@pytest.mark.parametrize("case", ["huge history entry", "future schema", "trailing comma", "65-character label"])
def test_a_file_that_cannot_be_read_is_never_written_over(tmp_path, case):
    path = tmp_path / "prompt.json"
    path.write_text(unreadable_files(tmp_path)[case], encoding="utf-8")
    original = path.read_bytes()

    def body():
        a = PromptDocument(path, tmp_path / "draft.json", delay=0.01, draft_delay=0.01)
        failed = []
        a.failed.connect(failed.append)
        _, _, note = a.start()
        assert "kept as it is" in note
        a.keep_taught([("my card was charged twice", "billing")])
        a.flush()
        assert path.read_bytes() == original  # the lead's file as it was
        assert failed and "kept in the draft" in failed[0]
        a.close()
        again = PromptDocument(path, tmp_path / "draft.json")
        _, draft, _ = again.start()
        assert again.draft_taught == [("my card was charged twice", "billing")] and draft is None
        note = again.save(GOOD, again.draft_taught)  # Save moves the unreadable file aside first
        backups = [p for p in tmp_path.iterdir() if ".unreadable-" in p.name]
        assert len(backups) == 1 and backups[0].read_bytes() == original and backups[0].name in note
        assert taught_in(path) == {"my card was charged twice": "billing"}
        assert not (tmp_path / "draft.json").exists()
        again.close()

    run(body)


@pytest.mark.skipif(not hasattr(os, "chmod"), reason="file modes")
def test_a_read_only_file_is_refused_not_replaced(tmp_path):
    path = tmp_path / "prompt.json"
    GOOD.save(path)
    os.chmod(path, 0o444)
    original = path.read_bytes()

    def body():
        a = window(tmp_path, "a")
        failed = []
        a.failed.connect(failed.append)
        with pytest.raises(ReadOnlyFile) as caught:
            a.save(PromptProfile("Edited.", GOOD.labels), [])
        assert caught.value.strerror.startswith("it is read-only, so it was left as it is")
        teach(a, "a ticket", "billing")
        assert path.read_bytes() == original and os.stat(path).st_mode & 0o777 == 0o444
        assert len(failed) == 1 and "read-only" in failed[0] and "kept in the draft" in failed[0]
        assert PromptProfile.load(tmp_path / "draft-a.json").taught[0].text == "a ticket"
        os.chmod(path, 0o644)  # made writable again: the next teach lands, the draft keeps nothing
        teach(a, "another ticket", "technical")
        assert taught_in(path) == {"a ticket": "billing", "another ticket": "technical"}

    run(body)


def test_a_file_mended_by_hand_takes_what_was_taught_meanwhile(tmp_path):
    path = tmp_path / "prompt.json"
    path.write_text("{", encoding="utf-8")

    def body():
        a = window(tmp_path, "a")
        teach(a, "taught while broken", "billing")
        assert path.read_text(encoding="utf-8") == "{"
        GOOD.save(path)  # the lead fixes the file in an editor
        teach(a, "taught after", "technical")
        assert taught_in(path) == {"taught while broken": "billing", "taught after": "technical"}
        assert PromptProfile.load(path).instruction == GOOD.instruction and not a.unreadable

    run(body)


def test_two_windows_writing_at_the_same_moment_lose_nothing(tmp_path):
    """Two windows (each its own loop and writer thread) teaching in bursts at once: the lock beside the
    file makes each read-merge-write whole, so every ticket of both is in the file."""
    import threading

    GOOD.save(tmp_path / "prompt.json")
    barrier = threading.Barrier(2)

    def side(name: str) -> None:
        async def main():
            doc = window(tmp_path, name)
            barrier.wait(5)
            for i in range(30):
                teach(doc, f"{name} ticket {i}", "billing")
            doc.close()

        asyncio.run(main())

    threads = [threading.Thread(target=side, args=(name,)) for name in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert taught_in(tmp_path / "prompt.json") == {f"{n} ticket {i}": "billing" for n in "ab" for i in range(30)}


def record(number: int, content: str):
    from triage_gui.engine.prompt import VersionRecord

    return VersionRecord(number, "2026-12-01 10:00", {"instruction": content, "labels": []}, content)


@given(st.integers(0, 120), st.integers(0, 5), st.integers(0, 5))
def test_merged_versions_keep_the_files_and_number_ours_after_them(known, theirs_new, ours_new):
    """Both sides add versions after a shared history of any length: the file's are kept, ours follow
    the file's newest with fresh numbers, numbers only increase, and at most 100 are kept."""
    from triage_gui.engine.prompt import MAX_VERSIONS, merge_history

    base = [record(n, f"shared {n}") for n in range(1, known + 1)]
    theirs = base + [record(known + 1 + i, f"theirs {i}") for i in range(theirs_new)]
    ours = base + [record(known + 1 + i, f"ours {i}") for i in range(ours_new)]
    merged, renumbered = merge_history(base, ours, theirs)
    numbers = [r.number for r in merged]
    assert numbers == sorted(set(numbers)) and len(merged) == min(MAX_VERSIONS, known + theirs_new + ours_new)
    contents = [r.content for r in merged]
    assert contents[-ours_new or len(contents) :] == [f"ours {i}" for i in range(ours_new)]
    if ours_new:
        assert merged[-1].number == known + theirs_new + ours_new
    assert len(renumbered) == (ours_new if theirs_new else 0)


def test_a_field_added_to_the_profile_later_merges_side_by_side(tmp_path):
    """A field a later change adds to the profile (tags, say) needs no merge code: ours
    where this side changed it, else the file's."""
    from dataclasses import dataclass, field, replace

    from triage_gui.engine.prompt import merge

    @dataclass
    class WithTags(PromptProfile):
        tags: list = field(default_factory=list)

    base = WithTags(GOOD.instruction, GOOD.labels)
    theirs = replace(base, tags=[3, 7])
    ours = replace(base, instruction="Edited here.")
    merged = merge(base, ours, theirs, tmp_path / "prompt.json").profile
    assert merged.tags == [3, 7] and merged.instruction == "Edited here."
    merged = merge(base, replace(ours, tags=[1]), theirs, tmp_path / "prompt.json").profile
    assert merged.tags == [1]


def test_no_lock_file_is_left_beside_the_prompt(tmp_path):
    """An empty ``.prompt.json.lock`` stayed beside the prompt after every session."""
    GOOD.save(tmp_path / "prompt.json")

    def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        teach(a, "my card was charged twice", "billing")
        teach(b, "the app crashes on start", "technical")
        a.close()
        b.close()

    run(body)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".lock")]
    assert len(taught_in(tmp_path / "prompt.json")) == 2


def test_the_lock_still_keeps_writers_apart_while_its_file_comes_and_goes(tmp_path):
    """Removing the lock file on release must not let a waiter and a newcomer hold it at once (the
    waiter's lock is on the removed file): never two inside, under contention."""
    import threading
    import time

    from triage_gui.engine.prompt import locked

    target, inside, most = tmp_path / "prompt.json", [0], [0]
    guard = threading.Lock()

    def writer() -> None:
        for _ in range(25):
            with locked(target):
                with guard:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                time.sleep(0.001)
                with guard:
                    inside[0] -= 1

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert most[0] == 1 and not any(t.is_alive() for t in threads)
    assert not (tmp_path / ".prompt.json.lock").exists()
