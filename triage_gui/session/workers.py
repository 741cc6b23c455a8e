"""Worker threads the session awaits: one per kind of long work, each a single thread.

The engine thread is the only thread that ever touches the model (loading excepted, see
:mod:`session`), so no lock is needed around it; files are read on their own thread so a huge file
streams while labelling runs; the taught head is refitted on a third, so a correction never waits for
a labelling batch. Work is awaited with ``await worker.run(fn, *args)``; cancelling the awaiting task
drops the result, and work still queued behind is never started.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class WorkerThread:
    """One named thread with a queue; the one owner of every worker thread in the app."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._closed = False

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn`` on this thread and wait for it without blocking the event loop.

        Cancelling the caller cancels a job that has not started yet; one already running finishes
        on the thread and its result is dropped (torch cannot be interrupted mid-forward).
        """
        if self._closed:
            raise RuntimeError(f"the {self.name} thread is shut down")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    def submit(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[T]:
        """Queue ``fn`` now and return its future, to keep the thread busy while the loop handles
        an earlier result (see :func:`session.runs.label_stream`)."""
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    def shutdown(self, wait: bool = True) -> None:
        """Drop queued work and join the thread (the job running now finishes first)."""
        self._closed = True
        self._pool.shutdown(wait=wait, cancel_futures=True)
