"""The worker threads' one-job-at-a-time promise, also across a dropped job and a transient thread's restart."""

from __future__ import annotations

import asyncio
import threading
import time

from triage_gui.session.workers import WorkerThread


def spans_of(transient: bool) -> list[tuple[str, float, float]]:
    """A job whose caller gave up while it ran, then the next job asked for after the loop moved on."""
    worker = WorkerThread("loader", transient=transient)
    spans: list[tuple[str, float, float]] = []

    def job(tag: str, seconds: float) -> str:
        started = time.perf_counter()
        time.sleep(seconds)
        spans.append((tag, started, time.perf_counter()))
        return tag

    async def scenario() -> str:
        dropped = asyncio.ensure_future(worker.run(job, "dropped", 0.4))
        await asyncio.sleep(0.1)  # running on the thread now
        dropped.cancel()
        await asyncio.sleep(0.05)  # the caller's cancellation has been handled
        return await worker.run(job, "next", 0.05)

    try:
        assert asyncio.run(scenario()) == "next"
    finally:
        worker.shutdown()
    return sorted(spans, key=lambda span: span[1])


def test_a_job_asked_for_after_a_dropped_one_waits_for_it():
    """A model load dropped for a newer one still runs to its end: the newer one must not run beside it."""
    for transient in (False, True):
        (first, _, first_end), (second, second_start, _) = spans_of(transient)
        assert (first, second) == ("dropped", "next")
        assert second_start >= first_end, f"transient={transient}: two jobs ran at once"


def test_a_transient_thread_ends_when_idle_and_comes_back_for_the_next_job():
    worker = WorkerThread("transient-check", transient=True)

    def alive() -> list[str]:
        return [t.name for t in threading.enumerate() if t.name.startswith("transient-check")]

    async def twice() -> list[str]:
        names = [await worker.run(lambda: threading.current_thread().name)]
        for _ in range(100):
            if not alive():
                break
            await asyncio.sleep(0.01)
        assert not alive()  # ended once idle
        names.append(await worker.run(lambda: threading.current_thread().name))
        return names

    try:
        assert all(name.startswith("transient-check") for name in asyncio.run(twice()))
    finally:
        worker.shutdown()
