"""The refit, the taught classifier's one long step: capture on the loop's thread, fit on the learning thread,
apply on the loop's thread; then the weights chosen out of fold and the next suggestions, off the critical
path. One entry point (:meth:`Refitting._refit_now`: the latest refit cancels the one before it).

No prompt version is compared after an await here: a new prompt version and Clear cancel the refit task
(``Teaching.new_version``, ``Teaching.cleared``), and the engine's ``apply_fit`` refuses a fit made for
another version of the table.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .status import HeadStatus

if TYPE_CHECKING:
    from ..engine.learning import Examples, Fit, Head, LexicalStore, RefinementVerdict, Scaler
    from ..engine.table import TicketTable
    from .events import Event
    from .outside import OutsideTickets
    from .tasks import LatestTask
    from .workers import WorkerThread

log = logging.getLogger(__name__)
SUGGESTIONS = 50  # "Teach next" rows kept after each fit
FIRST_CHUNK = 2048


@dataclass(frozen=True)
class _Job:
    """One refit's inputs, captured on the loop's thread: the learning thread reads nothing shared."""

    version: int
    k: int
    rows: int  # rows the fit relabels (those vectorised when it started)
    scored: int
    embedded: int
    taught: Any
    pseudo: Any
    source: Any
    store: LexicalStore
    weights: Any
    scaler: Scaler | None
    first: Any


def _fit(job: _Job) -> Fit:
    """On the learning thread."""
    from ..engine.learning import fit_all

    return fit_all(job.taught, job.pseudo, job.source, job.store, job.k, job.weights, job.scaler, job.first)


def _described(fit: Fit) -> str:
    from ..engine.learning import describe

    return describe(fit.head.weights)


class Refitting:
    """The refit steps of :class:`teaching.Teaching`, which holds the state they read and write."""

    if TYPE_CHECKING:
        table: TicketTable
        thread: WorkerThread
        outside: OutsideTickets
        taught: dict[str, str]
        status: HeadStatus
        head: Head | None
        last_fit: Fit | None
        suggestions: list[int]
        rows_changed: Event[[int, int]]
        suggested: Event[[list[int]]]
        _pseudo: Examples | None
        _weights: dict[str, float] | None
        _first: dict[str, float] | None
        _version: int
        _refitting: LatestTask
        _firsting: LatestTask
        store: LexicalStore | None
        _vectorising: LatestTask
        _vectorised: int
        _fitted_on: int
        _fitted_embedded: int
        _scaler: tuple[int, int, Scaler] | None
        verdict: RefinementVerdict | None

        in_use: Any  # () -> InUse

        def items(self) -> list[tuple[str, str]]: ...
        def _set(self, status: HeadStatus) -> None: ...
        def _grown(self) -> bool: ...
        async def _store(self) -> LexicalStore: ...
        def rows_embedded(self, rows: Any) -> None: ...
        def rows_scored(self, rows: Any) -> None: ...

    def _refit_soon(self) -> None:
        if self._pseudo is not None and self.in_use().scorer is not None:  # else the preparation refits
            self._refit_now()

    def _refit_now(self) -> asyncio.Task:
        """The one way a refit starts: as the latest of its kind, so a newer one cancels it."""
        return self._refitting.start(self._refit(self._version))

    async def _refit(self, version: int) -> None:
        """Capture on the loop's thread, fit on the learning thread, apply on the loop's thread; then the
        same for the weights chosen out of fold. No version is compared after an await: a new prompt
        version or Clear cancels this task (``new_version``, ``cleared``), and ``apply_fit`` refuses a fit
        made for another version of the table."""
        job = await self._capture(version)
        if job is None:
            return
        self._set(HeadStatus("fitting", len(self.taught), len(job.pseudo), self.status.weights))
        started = time.perf_counter()
        try:
            fit = await self.thread.run(_fit, job)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("refit failed")
            self._set(HeadStatus("failed", len(self.taught), len(job.pseudo), message=str(exc)))
            return
        if not self._land(job, fit):
            return
        if job.scored:
            self._scaler = (version, job.scored, fit.head.scaler)
        seconds = time.perf_counter() - started
        self._set(HeadStatus("ready", len(self.taught), len(job.pseudo), _described(fit), 1000 * seconds))
        self.rows_changed.emit(0, max(0, len(self.table) - 1))
        # Then, off the critical path: out-of-fold labels, the weights they choose, the next suggestions.
        from ..engine.learning import out_of_fold, reweigh

        chosen = await self.thread.run(out_of_fold, job.taught, job.pseudo, fit.head.scaler, job.store, job.k)
        self._weights, self._first, self.verdict = chosen.weights, chosen.first_weights, chosen.verdict
        if (chosen.weights, chosen.first_weights) != (fit.head.weights, fit.head.first_weights):
            fit = await self.thread.run(reweigh, job.source, fit, chosen)
            if not self._land(job, fit):
                return
        self.table.set_head(np.zeros((0, job.k), np.float32), np.zeros(0, np.int64), chosen.labels)
        self._set(HeadStatus("ready", len(self.taught), len(job.pseudo), _described(fit), 1000 * seconds))
        self.rows_changed.emit(0, max(0, len(self.table) - 1))
        await self._suggest(fit, job.source)
        if self._grown():  # tickets scored while this fit ran have doubled what it saw: fit again
            self._refit_soon()

    async def _capture(self, version: int) -> _Job | None:
        """Everything the learning thread reads, captured here on the loop's thread (after the features of
        taught tickets that are not loaded, and the lexical vectors, are ready)."""
        from ..engine.learning import row_source, taught_set

        table, now = self.table, self.in_use()
        if self._pseudo is None:
            return None
        loaded = {table.texts[int(r)] for r in table.taught_rows() if table.current(int(r)) or table.embedded(int(r))}
        outside = await self.outside.features(table, [t for t in self.taught if t not in loaded], now)
        vectorising = self._vectorising.task
        if vectorising is not None and self._vectorising.active:
            await asyncio.shield(vectorising)
        store = await self._store()
        rows, scored = min(len(table), self._vectorised), table.count_scored()
        if not scored and not table.embedded_mask()[:rows].any():
            return None  # nothing to relabel yet; the first batches refit
        cached = self._scaler
        scaler = cached[2] if cached is not None and cached[:2] == (version, scored) else None
        taught, pseudo = taught_set(table, self.items(), outside), self._pseudo
        return _Job(
            version,
            len(table.labels),
            rows,
            scored,
            int(np.count_nonzero(table.embedded_mask())),
            taught,
            pseudo,
            row_source(table, rows),
            store,
            self._weights,
            scaler,
            self._first,
        )

    def _land(self, job: _Job, fit: Fit) -> bool:
        """A fit onto the table (False: it was made for another version of it), and the rows that arrived
        while it ran labelled by it."""
        from ..engine.learning import apply_fit

        if not apply_fit(self.table, fit, job.rows, job.version):
            return False
        self.head, self.last_fit, self._fitted_on, self._fitted_embedded = fit.head, fit, job.scored, job.embedded
        self._relabel_late(job.source)
        self._firsting.start(self._first_pass_of_read(fit.head, job.version))
        return True

    async def _first_pass_of_read(self, head: Head, version: int) -> None:
        """The new head's first-pass labels of the rows the language model has read (the labels its reading
        is measured against: a teach moves both), a chunk at a time on the loop (2,048 rows: a few ms)."""
        from ..engine.learning import row_values

        table, store = self.table, self.store
        rows = np.flatnonzero(table.scored_mask())
        for start in range(0, len(rows), FIRST_CHUNK):
            await asyncio.sleep(0)
            if table.version != version or store is None or self.head is not head:
                return
            idx = rows[start : start + FIRST_CHUNK]
            idx = idx[idx < len(table)]
            texts = [table.texts[int(r)] for r in idx]
            table.set_first(idx, head.predict_texts(row_values(table, idx, False), texts, store))

    def _relabel_late(self, source) -> None:
        """Rows scored or embedded while a fit ran (after the rows it saw, or among them but without those
        features when it started): label them with the new head, from their LLM scores too."""
        from ..engine.learning import EMBEDDINGS, HIDDEN

        table = self.table
        now, embedded = table.scored_mask(), table.embedded_mask()
        late = np.flatnonzero(now[: source.n] & ~source.present[HIDDEN.name]).tolist()
        late += [r for r in range(source.n, len(table)) if now[r]]
        first = np.flatnonzero(embedded[: source.n] & ~source.present[EMBEDDINGS.name] & ~now[: source.n]).tolist()
        first += [r for r in range(source.n, len(table)) if embedded[r] and not now[r]]
        if first:
            self.rows_embedded(first)
        if late:
            self.rows_scored(late)

    async def _suggest(self, fit: Fit, source) -> None:
        from ..engine.learning import EMBEDDINGS, suggest

        table = self.table
        candidates = ~table.taught_mask()[: len(fit.probs)]
        embeddings = source.values(EMBEDDINGS.name) if source.values(EMBEDDINGS.name).shape[1] else None
        taught = table.taught_rows()
        taught = taught[taught < len(fit.probs)]
        picked = await self.thread.run(suggest, fit.probs, candidates, embeddings, taught, SUGGESTIONS)
        self.suggestions = [int(r) for r in picked]
        self.suggested.emit(self.suggestions)
