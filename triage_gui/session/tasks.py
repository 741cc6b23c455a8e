"""The one cancellation idiom: a newer request of a kind cancels the older task, and the cancellation is
what supersedes it (no generation counters, no version tokens compared after an await).

One kind of work is never cancelled mid-way: the prompt file's writes on the document's writer thread. A
Save, an Open or closing the window on the loop's thread withdraws the write in flight before it starts,
or waits for it and does its bookkeeping first (:mod:`session.prompt_write`): cancelled while its thread
wrote, it landed with its bookkeeping lost. The engine's ``apply_fit`` and ``TicketTable.apply`` also
refuse results made for another prompt version of the table: a guard in the data, not a check after an
await.

Used by the session (load, rebuild, labelling), the teaching (preparation, refit, vectorising) and the
documents (the prompt file's coalesced writes). A task that has been cancelled but has not reached its
next ``await`` yet no longer counts as *active*: a request made in the same breath as the cancel (Clear,
then paste) starts a new one instead of waiting on a task that is already going away.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class LatestTask:
    """At most one live task of a kind; :meth:`start` cancels the one before it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.task: asyncio.Task | None = None

    def start(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task:
        """Cancel the previous task (it drops its result at its next await) and run this one."""
        self.cancel()
        self.task = asyncio.get_running_loop().create_task(coroutine, name=self.name)
        return self.task

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    @property
    def active(self) -> bool:
        """Running and not cancelled: the work this kind stands for is still on its way."""
        task = self.task
        return task is not None and not task.done() and not task.cancelling()

    @property
    def pending(self) -> bool:
        """Not finished, a cancelled task still unwinding included (what closing must wait for)."""
        return self.task is not None and not self.task.done()

    def is_current(self) -> bool:
        """Whether the code asking runs inside this task (a rebuild starting the labelling it awaits)."""
        return self.task is not None and self.task is asyncio.current_task()
