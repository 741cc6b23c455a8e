"""Worker threads the session awaits: one per kind of long work, each a single thread.

The engine thread is the only thread that ever touches the model (loading excepted, see
:mod:`session`), so no lock is needed around it; files are read on their own thread so a huge file
streams while labelling runs; the taught head is refitted on a third, so a correction never waits for
a labelling batch. Work is awaited with ``await worker.run(fn, *args)``; cancelling the awaiting task
drops the result, and work still queued behind is never started.

The model loader is *transient*: its thread ends when it has nothing queued. A thread that has run
torch's parallel products keeps its own OpenMP team (libgomp) for as long as it lives, and on a 2-core
machine that team took cycles from the engine thread's: 300 tickets labelled in 22-24 s with the loader
thread alive after loading the model, 16-17 s with it gone, the same as loading on the engine thread
(``OMP_WAIT_POLICY=PASSIVE`` also fixed it, but cost the engine 10% on its own).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class WorkerThread:
    """One named thread with a queue; the one owner of every worker thread in the app."""

    def __init__(self, name: str, transient: bool = False) -> None:
        self.name = name
        self.transient = transient
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._queued = 0  # jobs handed to the pool that have not ended (a dropped one still running counts)
        self._lock = threading.Lock()  # _queued and _pool: jobs end on the worker thread
        self._closed = False

    def _done(self, _job: object) -> None:
        """A job ended (or was cancelled before it started). Counted on the job's own future, not the
        awaiting one: a dropped job keeps running, and a transient thread must not end, and a second one
        start beside it, until it returns (two model loads at once)."""
        with self._lock:
            self._queued -= 1
            if self.transient and self._queued == 0 and self._pool is not None:
                self._pool.shutdown(wait=False)  # the idle thread ends; the next job starts a new one
                self._pool = None

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn`` on this thread and wait for it without blocking the event loop.

        Cancelling the caller cancels a job that has not started yet; one already running finishes
        on the thread and its result is dropped (torch cannot be interrupted mid-forward).
        """
        return await self.submit(fn, *args, **kwargs)

    def submit(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[T]:
        """Queue ``fn`` now and return its future, to keep the thread busy while the loop handles
        an earlier result (see :func:`session.labelling.label_stream`)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._closed:
                raise RuntimeError(f"the {self.name} thread is shut down")
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.name)
            job = self._pool.submit(fn, *args, **kwargs)
            self._queued += 1
        job.add_done_callback(self._done)
        return asyncio.wrap_future(job, loop=loop)

    def shutdown(self, wait: bool = True) -> None:
        """Drop queued work and join the thread (the job running now finishes first)."""
        with self._lock:
            self._closed = True
            pool = self._pool
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)
