"""Read ticket files on a background thread and stream their rows to the window in batches."""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ..engine.tickets import TicketSource, open_tickets

log = logging.getLogger(__name__)


class FileLoadWorker(QObject):
    load_requested = Signal(int, str)  # load id, path
    opened = Signal(int, object)  # load id, TicketSource (columns known, nothing read yet)
    rows = Signal(int, object)  # load id, list[Ticket]
    finished = Signal(int, object)  # load id, TicketSource (counts final)
    failed = Signal(int, str, str)  # load id, path, message

    BATCH = 512
    # Batches emitted but not yet taken by the window. Reading runs far ahead of the window otherwise,
    # and every row waiting in the event queue is heap the cyclic GC has to walk (300 ms passes seen).
    IN_FLIGHT = 4

    def __init__(self) -> None:
        super().__init__()
        self._cancel = threading.Event()
        self._room = threading.Semaphore(self.IN_FLIGHT)
        self.load_requested.connect(self._load)

    def cancel(self) -> None:
        self._cancel.set()

    def taken(self) -> None:
        """The window took one emitted batch (whatever it did with it): room for the next one."""
        self._room.release()

    def _wait_for_room(self) -> bool:
        while not self._room.acquire(timeout=0.05):
            if self._cancel.is_set():
                return False
        return True

    @Slot(int, str)
    def _load(self, load_id: int, path: str) -> None:
        self._cancel.clear()
        try:
            source: TicketSource = open_tickets(path)
            self.opened.emit(load_id, source)
            for batch in source.batches(self.BATCH):
                if self._cancel.is_set() or not self._wait_for_room():
                    source.notes.append("stopped before the end of the file")
                    break
                self.rows.emit(load_id, batch)
        except (ValueError, OSError) as exc:
            self.failed.emit(load_id, path, str(exc))
            return
        except Exception as exc:
            log.exception("reading %s failed", path)
            self.failed.emit(load_id, path, f"Cannot read the file: {exc}")
            return
        self.finished.emit(load_id, source)


class FileLoadThread:
    def __init__(self) -> None:
        self.thread = QThread()
        self.thread.setObjectName("file-loader")
        self.worker = FileLoadWorker()
        self.worker.moveToThread(self.thread)
        self.thread.start()

    def stop(self) -> None:
        self.worker.cancel()
        self.thread.quit()
        self.thread.wait()
