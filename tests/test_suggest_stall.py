"""*Suggest labels* for the tickets the labels in use fit badly, on 20,000 tickets: the loop's thread (the
window's, under qasync) only copies what it needs of the table; which tickets are far from every label's
examples and taught tickets, their embeddings and the grouping are worked out on the engine thread. A 5 ms
heartbeat on the loop measures the stall the window would see."""

from __future__ import annotations

import asyncio
import threading
import time

import numpy as np
import pytest

from triage_gui.engine import grouping as grouping_part
from triage_gui.engine.grouping import _from_table
from triage_gui.engine.table import NewRow, TicketTable
from triage_gui.session.suggestions import anchors_of, suggest_groups
from triage_gui.session.workers import WorkerThread

N, DIM, TOPICS, PLANTED = 20_000, 384, 8, 300


def labelled_table() -> tuple[TicketTable, np.ndarray]:
    """20,000 embedded tickets on eight topics, every one labelled with 0.95 confidence, the last 300 of a
    ninth topic no label has (labelled "t0" all the same); and the embeddings of 25 taught tickets a topic."""
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 1, (TOPICS + 1, DIM)).astype(np.float32)
    topic = np.concatenate([rng.integers(0, TOPICS, N - PLANTED), np.full(PLANTED, TOPICS)])
    vectors = centres[topic] + rng.normal(0, 0.5, (N, DIM)).astype(np.float32)
    texts = [f"ticket {i} about thing{t}" for i, t in enumerate(topic.tolist())]
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    table.apply_embeddings(list(range(N)), vectors)
    names = [f"t{i}" for i in range(TOPICS)]
    table.start_version(1, names, [])
    probs = np.full((N, TOPICS), 0.05 / (TOPICS - 1), dtype=np.float32)
    probs[np.arange(N), np.where(topic < TOPICS, topic, 0)] = 0.95
    table.set_head(probs)
    taught = np.concatenate([np.flatnonzero(topic == t)[:25] for t in range(TOPICS)])
    return table, vectors[taught]


async def heartbeat(gaps: list[float], stop: asyncio.Event) -> None:
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.005)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


def test_new_labels_for_20000_tickets_keep_the_loop_free_and_find_the_planted_topic(monkeypatch):
    table, taught = labelled_table()
    threads: list[str] = []
    measured = _from_table.nearest_anchor

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return measured(*args, **kwargs)

    monkeypatch.setattr(_from_table, "nearest_anchor", recorded)
    grouping_part.find_groups(np.arange(40), taught[:40], table.texts[:40])  # imports and the language
    # detector loaded, as the first pass has in the window: their first load holds the interpreter

    async def body():
        thread = WorkerThread("engine")
        gaps: list[float] = []
        stop = asyncio.Event()
        beat = asyncio.create_task(heartbeat(gaps, stop))
        await asyncio.sleep(0.05)
        try:
            anchors = await anchors_of(table, thread, [table.texts[0], "a prompt example"], EchoEncoder())
            assert anchors is not None and len(anchors) == 2  # one loaded (its first-pass embedding), one encoded
            found = await suggest_groups(table, thread, None, True, taught)
        finally:
            stop.set()
            await beat
            thread.shutdown()
        return found, max(gaps)

    found, worst = asyncio.run(asyncio.wait_for(body(), 60))
    assert threads and all(name.startswith("engine") for name in threads)  # never on the loop's thread
    chosen = set(found.rows.tolist())
    assert set(range(N - PLANTED, N)) <= chosen and len(chosen) <= PLANTED + 0.1 * N
    print(f"worst loop gap {worst * 1000:.0f} ms")
    assert worst < 0.25  # 35-103 ms measured; 1.26-1.29 s when the loop's thread chose the tickets (load ~12)


class EchoEncoder:
    """Encodes a text as a fixed vector; records the thread it ran on."""

    def encode(self, texts):
        assert threading.current_thread() is not threading.main_thread()
        return np.ones((len(texts), DIM), dtype=np.float32)


def test_a_capture_is_a_copy_later_rows_and_labels_do_not_change_it():
    table = TicketTable()
    texts = [f"ticket {i}" for i in range(30)]
    table.add([NewRow({"text": t}, t) for t in texts])
    table.apply_embeddings(list(range(30)), np.eye(30, DIM, dtype=np.float32))
    taken = grouping_part.capture(table)
    table.add([NewRow({"text": "late"}, "late")])
    table.apply_embeddings([30], np.ones((1, DIM), dtype=np.float32))
    rows, vectors, got, current, note = grouping_part.gather(taken)
    assert rows.tolist() == list(range(30)) and got == texts and current is None and note == ""
    assert np.allclose(vectors, np.eye(30, DIM), atol=0.01)
    with pytest.raises(ValueError, match="first pass"):
        grouping_part.capture(TicketTable())
