"""A Qt-free observer: the session announces changes, the window (or a test) listens.

Callbacks run synchronously on the thread that emits, which for the session is always the event
loop's thread: the GUI thread in the app.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")
log = logging.getLogger(__name__)


class Event(Generic[P]):
    """``connect`` callbacks; ``emit`` calls each in order. A failing callback is logged, not fatal."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[P, object]] = []

    def connect(self, callback: Callable[P, object]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[P, object]) -> None:
        self._callbacks.remove(callback)

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for callback in list(self._callbacks):
            try:
                callback(*args, **kwargs)
            except Exception:  # one broken observer must not stop the session or the others
                log.exception("observer %r failed", callback)
