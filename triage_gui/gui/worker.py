"""The engine's one worker thread: model loading, prefix rebuilds and scoring, with results as signals.

Requests are queued signals into a QObject living on a QThread, so the engine is used by exactly
one thread and the GUI thread never waits on it. Rebuilds carry a generation number and scoring
runs a run id; anything superseded or cancelled is skipped or dropped, never applied.
"""

from __future__ import annotations

import logging
import threading
import traceback
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ..engine.model_loader import LoadedModel, ModelLoadError, load_model
from ..engine.prompt import PromptProfile

if TYPE_CHECKING:
    from ..engine.scorer import Scorer

log = logging.getLogger(__name__)


class EngineWorker(QObject):
    # requests (queued into the worker thread)
    load_requested = Signal(str, str)  # model spec, device
    rebuild_requested = Signal(object, int)  # PromptProfile, generation
    score_requested = Signal(int, object, int, bool)  # run id, [(index, text)], batch size, baseline

    # results (queued back to the GUI thread)
    model_progress = Signal(float, str)
    model_loaded = Signal(object)  # LoadedModel
    model_failed = Signal(str)
    cache_ready = Signal(int, object)  # generation, Scorer
    cache_failed = Signal(int, object)  # generation, exception
    scored = Signal(int, object)  # run id, list[Scored]
    run_finished = Signal(int, bool)  # run id, cancelled
    error = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.loaded: LoadedModel | None = None
        self.scorer: Scorer | None = None
        self._latest_generation = 0
        self._cancelled_upto = 0
        self._cancel = threading.Event()
        self.load_requested.connect(self._load)
        self.rebuild_requested.connect(self._rebuild)
        self.score_requested.connect(self._score)

    # Called from the GUI thread; plain attribute writes and an Event are safe across threads.
    def supersede_rebuilds(self, generation: int) -> None:
        self._latest_generation = generation

    def cancel_runs(self, upto: int) -> None:
        self._cancelled_upto = max(self._cancelled_upto, upto)
        self._cancel.set()

    @Slot(str, str)
    def _load(self, spec: str, device: str) -> None:
        try:
            loaded = load_model(spec, device, lambda f, m: self.model_progress.emit(f, m))
        except ModelLoadError as exc:
            self.model_failed.emit(str(exc))
            return
        except Exception as exc:  # out of memory, broken install: report, keep the previous model
            log.exception("model load failed")
            self.model_failed.emit(f"Cannot load the model: {exc}")
            return
        self.loaded = loaded
        self.scorer = None
        self.model_loaded.emit(loaded)

    @Slot(object, int)
    def _rebuild(self, profile: PromptProfile, generation: int) -> None:
        if generation < self._latest_generation or self.loaded is None:
            return  # a newer save is queued behind this one
        from ..engine.scorer import Scorer  # torch loads on this thread, not while the window opens

        try:
            scorer = Scorer(self.loaded, profile)
        except Exception as exc:
            if not isinstance(exc, ValueError):
                log.error("prefix rebuild failed:\n%s", traceback.format_exc())
            self.cache_failed.emit(generation, exc)
            return
        if generation < self._latest_generation:
            return  # superseded while building: never overwrite the newer cache
        self.scorer = scorer
        self.cache_ready.emit(generation, scorer)

    @Slot(int, object, int, bool)
    def _score(self, run_id: int, tickets: list[tuple[int, str]], batch_size: int, baseline: bool) -> None:
        if run_id <= self._cancelled_upto:
            self.run_finished.emit(run_id, True)
            return
        self._cancel.clear()
        scorer = self.scorer
        if scorer is None:
            self.run_finished.emit(run_id, True)
            return
        from ..engine.runner import score_stream

        try:
            for batch in score_stream(scorer, tickets, batch_size, baseline, self._cancel, ramp=True):
                if run_id <= self._cancelled_upto:
                    break
                self.scored.emit(run_id, batch)
        except Exception as exc:
            log.error("scoring failed:\n%s", traceback.format_exc())
            self.error.emit(f"Scoring failed: {exc}")
        self.run_finished.emit(run_id, run_id <= self._cancelled_upto)


class EngineThread:
    """Owns the worker's QThread; ``stop()`` cancels and joins it, so no thread outlives the window."""

    def __init__(self) -> None:
        self.thread = QThread()
        self.thread.setObjectName("engine")
        self.worker = EngineWorker()
        self.worker.moveToThread(self.thread)
        self.thread.start()

    def stop(self) -> None:
        self.worker.cancel_runs(1 << 62)
        self.thread.quit()
        self.thread.wait()
