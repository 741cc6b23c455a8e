"""Ticket files read in the background: one asyncio task per file, batch by batch on the file thread.

Awaiting each 512-row batch is the backpressure (a 200,000-row file never floods the loop), and each batch
joins the table as it arrives, so the first rows are labelled while the rest is still read. The session
owns what the rows become (:meth:`session.Session.add_rows`); this part owns the tasks and the list of files
read, which an export may never replace.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from ..engine.table import NewRow
from .events import Event
from .status import FileStatus
from .workers import WorkerThread


class TicketReading:
    """The ticket files being read and read so far. ``add_rows`` takes each batch into the session;
    ``first_column`` is told the text column of a file read into an empty table; ``read_all`` is called
    when a file was read to its end (an estimate from checks of other tickets then says so)."""

    def __init__(
        self,
        thread: WorkerThread,
        add_rows: Callable[[Sequence[NewRow]], range],
        first_column: Callable[[str], None],
        read_all: Callable[[], None],
        message: Event[[str, str]],
    ):
        self.thread = thread
        self._add_rows, self._first_column, self._read_all, self._message = add_rows, first_column, read_all, message
        self.changed: Event[[FileStatus]] = Event()
        self.tasks: set[asyncio.Task] = set()
        self.files: list[Path] = []  # where the loaded tickets were read from, in the order opened

    def open(self, path: Path, sheet: str | None) -> asyncio.Task:
        """Read ``path`` (a workbook's ``sheet``) in the background, appending its rows."""
        self.files.append(path)
        task = asyncio.get_running_loop().create_task(self._read(path, sheet), name=f"read {path.name}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def cancel(self) -> None:
        for task in list(self.tasks):
            task.cancel()  # a finished one ignores it

    def clear(self) -> None:
        """Stop reading, and forget the files read: the table they filled was cleared."""
        self.cancel()
        self.files = []

    async def _read(self, path: Path, sheet: str | None) -> None:
        from ..engine.tickets import open_tickets, rows_of

        name = path.name
        self.changed.emit(FileStatus("reading", name))
        rows = 0
        try:
            source = await self.thread.run(open_tickets, path, sheet)
            self._first_column(source.text_column_name)
            batches = source.batches(512)
            while (batch := await self.thread.run(next, batches, None)) is not None:
                new = rows_of(source.columns, batch, name)
                self._add_rows(new)
                rows += len(new)
        except asyncio.CancelledError:
            self.changed.emit(FileStatus("stopped", name, rows, "stopped before the end of the file"))
            raise
        except (ValueError, OSError) as exc:
            self.changed.emit(FileStatus("failed", name, rows, message=str(exc)))
            self._message.emit("File not loaded", str(exc))
            return
        self._read_all()
        self.changed.emit(FileStatus("done", name, rows, source.summary()))
