"""Teaching by correcting: the taught set, and refitting the learned head after every change.

Placeholder until the learning module lands: the head stays off and the prompt labels every row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .events import Event
from .status import HeadStatus
from .workers import WorkerThread

if TYPE_CHECKING:
    from .session import Session


class Teaching:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.thread = WorkerThread("learning")
        self.changed: Event[[HeadStatus]] = Event()
        self.status = HeadStatus("off")
        self._task: asyncio.Task | None = None

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def tasks(self) -> list[asyncio.Task]:
        return [self._task] if self._task is not None else []

    def threads(self) -> list[WorkerThread]:
        return [self.thread]

    def new_version(self) -> None:
        pass

    def rows_added(self, rows: range) -> None:
        pass

    def rows_scored(self, rows: Sequence[int]) -> None:
        pass

    def baseline_scored(self, rows: Sequence[int]) -> None:
        pass

    def cleared(self) -> None:
        pass

    def texts_changed(self) -> None:
        pass

    # intents (placeholder)
    def teach(self, rows: list[int], label: str | None) -> None:
        pass

    def accept(self, rows: list[int]) -> None:
        pass

    def restore(self, items: list[tuple[str, str]]) -> None:
        pass

    def items(self) -> list[tuple[str, str]]:
        return []

    def add_items(self, items: list[tuple[str, str]]) -> int:
        return 0

    def learn_from(self, gold) -> int:
        return 0

    def forget_all(self) -> None:
        pass
