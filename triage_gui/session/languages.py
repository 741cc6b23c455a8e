"""Each ticket's language, detected on its own thread as rows arrive, off the event loop's thread.

Detection costs ~0.3 ms a ticket (``engine.table.detect_language``) and its model 1-9 s to load once, so it
never runs on the loop's thread: an opened or pasted file's rows are detected in blocks on the
``languages`` thread while the first pass embeds them on the engine thread (~1.7 ms a ticket), so the
Language column fills faster than the first-pass labels do. It is no part of the session's ``busy``: no
label waits for it (the detector's first load took 9 s with both cores busy); closing cancels it. Each
block that lands is announced as the session's ``rows_changed`` (the table redraws those rows, the summary
and the filter recount); once every row has its language, ``known`` (the window's one-line offer of the
multilingual encoder reads the whole column then, never a sample detected on the loop's thread). A Clear
(the session's ``table_reset``) or a new text column cancels the task: a block detected for the old texts is
dropped at its next await (:mod:`session.tasks`).
"""

from __future__ import annotations

import asyncio

from ..engine.table import TicketTable, detect_languages
from .events import Event
from .tasks import LatestTask
from .workers import WorkerThread

BLOCK = 256  # rows a job: ~80 ms of detection, so the column fills in steps a lead sees move


class LanguageDetection:
    """Keeps the table's language column filled as rows are added; one task, one thread."""

    def __init__(
        self,
        table: TicketTable,
        added: Event[[range]],
        reset: Event[[]],
        changed: Event[[int, int]],
        known: Event[[]],
    ) -> None:
        self.table, self.changed, self.known = table, changed, known
        self.thread = WorkerThread("languages")
        self.detecting = LatestTask("detect languages")
        added.connect(lambda _rows: self.rows_added())
        reset.connect(self.detecting.cancel)

    def rows_added(self) -> None:
        """New rows: detect what is not detected yet, unless the task already runs (it picks them up)."""
        if not self.detecting.active:
            self.detecting.start(self._detect())

    def restart(self) -> None:
        """The texts changed (another text column): drop the work in flight and detect every row anew."""
        self.detecting.cancel()
        if len(self.table):
            self.detecting.start(self._detect())

    async def _detect(self) -> None:
        while len(todo := self.table.undetected()):
            rows = todo[:BLOCK]
            codes = await self.thread.run(detect_languages, [self.table.texts[int(r)] for r in rows])
            self.table.set_languages(rows, codes)
            self.changed.emit(int(rows[0]), int(rows[-1]))
            await asyncio.sleep(0)  # the loop draws between blocks
        self.known.emit()  # every row so far has its language: the window may offer the multilingual encoder

    def tasks(self) -> list[asyncio.Task]:
        """The detection in flight (for closing: it is not work the session's ``busy`` waits for)."""
        task = self.detecting.task
        return [task] if task is not None and not task.done() else []
