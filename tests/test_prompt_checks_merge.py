"""Random checks given in two windows on one prompt file are all kept: they merge check by check (by
ticket text, as the taught set does), not as one field that the last writer wins (45 and 48 of 100 checks
were lost by two writers over 50 rounds; two windows one after the other kept only the second's)."""

from __future__ import annotations

import asyncio
import random

from triage_gui.engine.prompt import CheckRecord, Label, PromptProfile
from triage_gui.session.prompt_document import PromptDocument

GOOD = PromptProfile("Route the ticket.", [Label("billing", "money"), Label("technical", "broken")])


def window(folder, name: str) -> PromptDocument:
    doc = PromptDocument(folder / "prompt.json", folder / f"draft-{name}.json", delay=0.001, draft_delay=0.001)
    doc.start()
    return doc


def check(name: str, i: int) -> CheckRecord:
    return CheckRecord(f"{name} ticket {i}", "billing", "billing" if i % 3 else "technical", 1, i, 1_800_000_000.0 + i)


def kept(folder) -> set[str]:
    return {c.text for c in PromptProfile.load(folder / "prompt.json").checks}


def test_two_windows_checking_at_once_keep_every_check(tmp_path):
    GOOD.save(tmp_path / "prompt.json")
    rng = random.Random(7)

    async def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        given: dict[str, list[CheckRecord]] = {"a": [], "b": []}
        for i in range(50):  # fifty rounds, one check in each window, writes in flight
            for name, doc in (("a", a), ("b", b)):
                given[name].append(check(name, i))
                doc.keep_checks(given[name])
                await asyncio.sleep(rng.choice([0, 0.001, 0.003]))
        a.close()
        b.close()

    asyncio.run(body())
    lost = 100 - len(kept(tmp_path))
    assert lost == 0, f"{lost} of 100 checks lost"


def test_two_windows_one_after_the_other_keep_both_checks(tmp_path):
    GOOD.save(tmp_path / "prompt.json")

    async def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        a.keep_checks([check("a", 1)])
        a.close()
        b.keep_checks([check("b", 1)])
        b.close()
        c = window(tmp_path, "c")  # a window opened afterwards shows both, and takes one back
        assert {r.text for r in c.checks} == {"a ticket 1", "b ticket 1"}
        c.keep_checks([r for r in c.checks if r.text != "a ticket 1"])
        c.close()

    asyncio.run(body())
    assert kept(tmp_path) == {"b ticket 1"}


def test_a_save_keeps_the_other_windows_checks(tmp_path):
    GOOD.save(tmp_path / "prompt.json")

    async def body():
        a, b = window(tmp_path, "a"), window(tmp_path, "b")
        a.keep_checks([check("a", 1)])
        a.flush()
        b.keep_checks([check("b", 1)])
        b.save(GOOD, [])  # Save in B: A's check stays
        b.keep_checks([check("b", 1), check("b", 2)])  # and B's next write does not take it back
        b.close()
        a.close()

    asyncio.run(body())
    assert kept(tmp_path) == {"a ticket 1", "b ticket 1", "b ticket 2"}
