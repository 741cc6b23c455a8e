"""Teaching by correcting: the taught set, and the learned classifier refitted after every change.

The taught set (ticket text -> label) lives with the prompt. Every change cancels the refit in
progress and starts a new one on the learning thread; when it lands, every untaught row's label
updates at once, without another model forward (features are kept per row). Rows scored later are
labelled by the current head as they arrive. The prompt's examples and label descriptions are learned
from too, so the head works before the first correction: after a prompt edit they go through the
sentence encoder first (milliseconds, no prefix needed), so every embedded row is relabelled from the
encoder and n-gram heads at once, and again once the new prompt's LLM features exist.

After each fit, off the critical path: out-of-fold labels for the taught tickets, the head weights
chosen from them (:mod:`engine.learning`), and the tickets to teach next (:mod:`engine.learning`).

The refit is the one long step: capture on the loop's thread, fit on the learning thread, apply on the loop's
thread; one entry point (:meth:`Teaching._refit_now`: the latest refit cancels the one before it). No prompt
version is compared after an await there: a new prompt version and Clear cancel the refit task
(:meth:`Teaching.new_version`, :meth:`Teaching.cleared`), and the engine's ``apply_fit`` refuses a fit made for
another version of the table. One class, one module: the refit reads and writes two dozen of the teaching's
attributes, and as a mixin in a module of its own it had to restate them all for the type checker.

The learning modules (scikit-learn and SciPy) are imported on the learning thread once a prompt is
ready or tickets arrive, not with the window: imported with it, they added 1.5-2 s to its start.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..defaults import SUGGESTIONS
from ..engine.table import decide
from .events import Event
from .gold import gold_teaching
from .label_renames import chained
from .outside import OutsideTickets
from .status import HeadStatus
from .tasks import LatestTask
from .undo import TaughtHistory, undoable
from .workers import WorkerThread

if TYPE_CHECKING:
    from ..engine.learning import Examples, Fit, Head, LexicalStore, RefinementVerdict, Scaler
    from ..engine.prompt import PromptProfile
    from ..engine.table import TicketTable
    from .gold import GoldColumn

log = logging.getLogger(__name__)
VECTORISE_CHUNK = 2048
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
    spread_key: tuple = ()  # (version, scored, embedded and fitted rows, encoder key): what the spread was taken over


def _fit(job: _Job) -> Fit:
    """On the learning thread."""
    from ..engine.learning import fit_all

    return fit_all(job.taught, job.pseudo, job.source, job.store, job.k, job.weights, job.scaler, job.first)


def _described(fit: Fit) -> str:
    from ..engine.learning import describe

    return describe(fit.head.weights) + fit.head.joint_words()


def _new_store() -> LexicalStore:
    """A lexical store, importing the learning modules: call it on the learning thread."""
    from ..engine.learning import Head, LexicalStore, Teacher  # noqa: F401  (scikit-learn imported here, off the loop)

    return LexicalStore()


@dataclass(frozen=True)
class InUse:
    """What the session uses now, captured on the loop's thread for one step of work: the scorer of the
    prompt version in use (None: none built yet), its prompt, and the sentence encoder (None: none)."""

    scorer: Any
    profile: PromptProfile | None
    encoder: Any


class Teaching:
    """Narrow inputs, not the session: the table, the engine thread (the LLM features of the prompt's
    examples) and what is in use now; it reports through its own events, which the session forwards."""

    def __init__(self, table: TicketTable, engine_thread: WorkerThread, in_use: Callable[[], InUse]) -> None:
        self.table = table
        self.engine_thread = engine_thread
        self.in_use = in_use
        self.rows_changed: Event[[int, int]] = Event()  # first, last row whose label changed
        self.taught_changed: Event[[]] = Event()  # the taught set changed: keep it with the prompt
        self.thread = WorkerThread("learning")
        self.changed: Event[[HeadStatus]] = Event()
        self.suggested: Event[[list[int]]] = Event()  # rows to teach next, best first
        self.status = HeadStatus("off")
        self.taught: dict[str, str] = {}
        self.history = TaughtHistory(self._apply)  # undo / redo of the taught set (:mod:`undo`)
        self.store: LexicalStore | None = None  # made on the learning thread (see _new_store)
        self.head: Head | None = None
        self.last_fit: Fit | None = None
        self.suggestions: list[int] = []
        self._pseudo: Examples | None = None
        self.outside = OutsideTickets(self.thread, engine_thread, self._refit_soon)  # taught, not loaded
        self._weights: dict[str, float] | None = None  # chosen out of fold by the last fit (None: default)
        self.verdict: RefinementVerdict | None = None  # the refinement's, from the same out-of-fold labels
        self._first: dict[str, float] | None = None  # the first pass's, likewise
        self._version = -1
        self._refitting = LatestTask("refit head")
        self._firsting = LatestTask("first-pass labels")  # of the rows read, after each fit (refitting)
        self._preparing = LatestTask("prepare teaching")
        self._vectorising = LatestTask("vectorise tickets")
        self._vectorised = 0  # rows handed to the store (in order)
        self._fitted_on = 0  # scored rows when the head was last fitted
        self._fitted_embedded = 0  # embedded rows when the head was last fitted
        # The last fit's spread (the hidden state's over the scored rows, the embeddings' mean over the embedded
        # ones: another encoder's rows, another mean) and its job's ``spread_key``
        self._scaler: tuple[tuple, Scaler] | None = None

    # ------------------------------------------------------------- plumbing

    @property
    def busy(self) -> bool:
        return any(t is not None and not t.done() for t in self.tasks())

    def tasks(self) -> list[asyncio.Task]:
        kinds = (self._refitting, self._preparing, self._vectorising, self.outside.scoring, self._firsting)
        return [k.task for k in kinds if k.task is not None]

    def threads(self) -> list[WorkerThread]:
        return [self.thread]

    def _set(self, status: HeadStatus) -> None:
        """``status`` with the taught tickets the fit leaves out: a label the prompt no longer has (W9: after
        Suggest labels and Save, "Learned from 8 taught tickets" of a fit that had none of them)."""
        labels = set(self.table.labels)
        stranded = sum(label not in labels for label in self.taught.values()) if labels else 0
        self.status = status = replace(status, stranded=stranded)
        self.changed.emit(status)

    # ---------------------------------------------------------- taught set

    def items(self) -> list[tuple[str, str]]:
        return list(self.taught.items())

    def restore(self, items: Sequence[tuple[str, str]]) -> None:
        """The taught set saved with a prompt (replaces the current one)."""
        self.taught = {text.strip(): label for text, label in items if text.strip()}
        self.history.clear()
        self._mark_rows(range(len(self.table)))
        self._set(replace(self.status, taught=len(self.taught)))  # known at start, before any file
        self._refit_soon()

    def relabel(self, mapping: dict[str, str]) -> int:
        """Labels renamed in the prompt about to be saved: the tickets taught an old name take the new one
        (its Save's relabel marks the rows); returns how many."""
        renamed = {text: mapping[label] for text, label in self.taught.items() if label in mapping}
        self.taught.update(renamed)
        self.table.renamed = chained(self.table.renamed, mapping)  # the flips read the previous labels so
        if renamed:
            self._changed()
        return len(renamed)

    @undoable("import")
    def add_items(self, items: Sequence[tuple[str, str | None]]) -> int:
        """Teach tickets that need not be loaded (an imported CSV; None: forget, as another window did)."""
        added = 0
        for text, label in items:
            if text.strip() and self.taught.get(text.strip()) != label:
                if label is None:
                    del self.taught[text.strip()]
                else:
                    self.taught[text.strip()] = label
                added += 1
        self._mark_rows(range(len(self.table)))
        self._changed()
        return added

    @undoable("teach")
    def teach(self, rows: Sequence[int], label: str | None) -> None:
        """Set (None: forget) the label of these rows, and of every loaded row with the same text."""
        table = self.table
        rows = [r for r in rows if 0 <= r < len(table) and r not in table.problems]
        if not rows:
            return
        for row in rows:
            text = table.texts[row]
            if label is None:
                self.taught.pop(text, None)
            else:
                self.taught[text] = label
        self._mark_rows(range(len(table)), only={table.texts[r] for r in rows}, label=label)
        self._changed()

    @undoable("accept")
    def accept(self, rows: Sequence[int]) -> dict[str, int]:
        """Teach each row the label it shows (Enter): confirming a right label teaches as much as a fix.
        Returns label -> rows accepted with it (for the status bar)."""
        table = self.table
        by_label: dict[str, list[int]] = {}
        for row in rows:
            decision = decide(table, row) if 0 <= row < len(table) else None
            label = decision.label if decision is not None and not decision.stale else None
            if label is not None and label in table.labels:
                by_label.setdefault(label, []).append(row)
        for label, chosen in by_label.items():
            self.teach(chosen, label)
        return {label: len(chosen) for label, chosen in by_label.items()}

    @undoable("gold")
    def learn_from(self, gold: GoldColumn) -> int:
        """Teach every loaded row whose gold value maps to a label (one undo step)."""
        found, _, _ = gold_teaching(self.table, gold, self.taught)
        for row, label in found.items():
            self.taught[self.table.texts[row]] = label
        self._mark_rows(range(len(self.table)))
        self._changed()
        return len(found)

    @undoable("forget_all")
    def forget_all(self) -> None:
        self.taught.clear()
        table = self.table
        table.teach(table.taught_rows().tolist(), None)
        self._changed()

    def _apply(self, labels: dict[str, str | None]) -> None:
        """Set these texts' taught labels (None: forget) as a teach does: an undo or a redo."""
        for text, label in labels.items():
            if label is None:
                self.taught.pop(text, None)
            else:
                self.taught[text] = label
        self._mark_rows(range(len(self.table)), only=set(labels))
        self._changed()

    def _mark_rows(self, rows: range, only: set[str] | None = None, label: str | None = None) -> None:
        """Show the taught label on loaded rows whose text is taught (or, with ``only``, those texts)."""
        table = self.table
        labels = set(table.labels) if table.labels else None
        changed = []
        for row in rows:
            text = table.texts[row]
            if only is not None and text not in only:
                continue
            taught = self.taught.get(text)
            if labels is not None and taught is not None and taught not in labels:
                taught = None  # a label this prompt no longer has
            if taught != table.taught_label(row):
                table.teach([row], taught)
                changed.append(row)
        if changed:
            self.rows_changed.emit(min(changed), max(changed))

    def _changed(self) -> None:
        self.taught_changed.emit()
        self._refit_soon()

    # ------------------------------------------------------ session hooks

    def new_version(self) -> None:
        """A new prompt version (or model): the prompt's examples go through the encoder first (every
        embedded row relabelled from the prompt-free heads), then through the LLM on the engine thread
        with the taught tickets that are not loaded; each step refits the head."""
        self._version = self.table.version
        self._pseudo, self.head, self._fitted_on, self._fitted_embedded = None, None, 0, 0
        self.outside.new_version()
        self._mark_rows(range(len(self.table)))
        self._refitting.cancel()
        self._preparing.start(self._prepare(self._version))

    def encoder_ready(self) -> None:
        """The sentence encoder arrived after the prompt was built: the prompt's examples go through it
        too, and the head keeps labelling until the refit with embeddings lands (a reset here left the
        rows scored meanwhile with the prompt's labels)."""
        now = self.in_use()
        if now.scorer is None or now.profile is None:
            return
        self._preparing.start(self._prepare(self._version))

    async def _store(self) -> LexicalStore:
        if self.store is None:
            store = await self.thread.run(_new_store)
            if self.store is None:
                self.store = store
        return self.store

    async def _prepare(self, version: int) -> None:
        now = self.in_use()
        scorer, profile, encoder = now.scorer, now.profile, now.encoder
        if scorer is None or profile is None:
            return
        await self._store()
        from ..engine.learning import features_of, prompt_examples, pseudo_set

        texts = [t for t, _ in prompt_examples(profile)]
        k = len(profile.labels)
        if encoder is not None:  # the prompt-free heads first: labels within a fit's time of a Save
            # On the learning thread: the engine thread may hold two micro-batches of the old prompt's
            # scoring (~2 s). The encoder keeps no state, so a second thread may run it.
            quick = await self.thread.run(features_of, None, encoder, texts, k)
            self._pseudo = pseudo_set(profile, quick)
            await asyncio.wait([self._refit_now()])  # a teach meanwhile supersedes it; this goes on
        features = await self.engine_thread.run(features_of, scorer, encoder, texts, k)
        self._pseudo = pseudo_set(profile, features)
        self._refit_now()

    def rows_added(self, rows: range) -> None:
        self._mark_rows(rows)
        if not self._vectorising.active:
            self._vectorising.start(self._vectorise())

    async def _vectorise(self) -> None:
        """Hash the new rows' n-grams on the learning thread, a chunk at a time, in row order."""
        table = self.table
        while self._vectorised < len(table):
            store = await self._store()
            start, stop = self._vectorised, min(len(table), self._vectorised + VECTORISE_CHUNK)
            await self.thread.run(store.add, table.texts[start:stop])
            self._vectorised = stop

    def rows_embedded(self, rows: Sequence[int]) -> None:
        """The first pass: label freshly embedded rows that the language model has not read from the current
        head's prompt-free heads; refit as :meth:`rows_scored` does."""
        idx = np.asarray(rows, dtype=np.int64)
        self._label_rows(idx[~self.table.scored_mask()[idx]], llm=False)

    def rows_scored(self, rows: Sequence[int]) -> None:
        """Label freshly scored rows with the current head."""
        self._label_rows(np.asarray(rows, dtype=np.int64), llm=True)

    def _label_rows(self, idx: np.ndarray, llm: bool) -> None:
        """These rows with the current head (with the language model's features, or the first pass). Refit
        when a taught ticket just got its features, and each time the scored (or embedded) rows have doubled
        (16, 32, 64...): the standardisation then sees the file, not its first tickets; log2(rows) refits."""
        table, n = self.table, len(idx)
        if self.head is not None and self.store is not None and table.head_active and n:
            from ..engine.learning import row_values  # imported with the head

            texts = [table.texts[int(r)] for r in idx]
            table.set_head(self.head.predict_texts(row_values(table, idx, llm), texts, self.store), idx)
            if llm:  # what the first pass gives them too: the reading's changes are counted against it
                table.set_first(idx, self.head.predict_texts(row_values(table, idx, False), texts, self.store))
        grown = self._grown() and not self._refitting.active  # never restart a refit in flight for this: it'd starve
        if grown or any(table.taught_label(int(r)) is not None for r in idx):
            self._refit_soon()

    def _grown(self) -> bool:
        """The scored (or embedded) rows doubled since the last fit, or all of them are scored (embedded) now."""
        table = self.table
        scorable = table.count_scorable()
        scored, embedded = table.count_scored(), int(np.count_nonzero(table.embedded_mask()))
        if scored >= max(16, 2 * self._fitted_on) or scored == scorable > self._fitted_on:
            return True
        return embedded >= max(16, 2 * self._fitted_embedded) or embedded == scorable > self._fitted_embedded

    def baseline_scored(self, rows: Sequence[int]) -> None:
        from ..engine.learning import baseline_labels

        table = self.table
        if self.head is None or self.store is None or not table.head_active:
            return
        found = baseline_labels(table, self.head, self.store, rows)
        table.set_head(np.zeros((0, len(table.labels)), np.float32), np.zeros(0, np.int64), None, found)

    def cleared(self) -> None:
        """The tickets were dropped: every fit in flight read the old file, so none may land on the new
        table; a preparation cut short starts again; nothing chosen on the old file is kept."""
        self._refitting.cancel()
        self._firsting.cancel()
        self._vectorising.cancel()
        self.outside.scoring.cancel()
        if self._preparing.active:
            self._preparing.start(self._prepare(self._version))
        self.store = self._weights = self._first = self._scaler = self.verdict = None  # (3 of 60 labels moved)
        self._vectorised = 0
        self.head, self._fitted_on, self._fitted_embedded, self.suggestions = None, 0, 0, []
        self.suggested.emit([])
        if self.status.state != "off":
            self._set(HeadStatus("off", len(self.taught)))

    def texts_changed(self) -> None:
        self.cleared()
        self.rows_added(range(len(self.table)))
        self.new_version()

    # ------------------------------------------------------------- the refit

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
            self._scaler = (job.spread_key, fit.head.scaler)
        seconds = time.perf_counter() - started
        self._set(HeadStatus("ready", len(self.taught), len(job.pseudo), _described(fit), 1000 * seconds))
        self.rows_changed.emit(0, max(0, len(self.table) - 1))
        # Then, off the critical path: out-of-fold labels, the weights they choose, the next suggestions.
        from ..engine.learning import out_of_fold, reweigh, with_twins

        chosen = await self.thread.run(out_of_fold, job.taught, job.pseudo, fit.head.scaler, job.store, job.k)
        self._weights, self._first, self.verdict = chosen.weights, chosen.first_weights, chosen.verdict
        if (chosen.weights, chosen.first_weights) != (fit.head.weights, fit.head.first_weights):
            fit = await self.thread.run(reweigh, job.source, fit, chosen)
            if not self._land(job, fit):
                return
        oof = with_twins(self.table, chosen.labels)  # a text taught twice in the file: both rows count
        self.table.set_head(np.zeros((0, job.k), np.float32), np.zeros(0, np.int64), oof)
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
        embedded = int(np.count_nonzero(table.embedded_mask()))
        key, cached = (version, scored, embedded, rows, table.embeddings.key), self._scaler
        scaler = cached[1] if cached is not None and cached[0] == key else None
        taught, pseudo = taught_set(table, self.items(), outside), self._pseudo
        return _Job(
            version,
            len(table.labels),
            rows,
            scored,
            embedded,
            taught,
            pseudo,
            row_source(table, rows),
            store,
            self._weights,
            scaler,
            self._first,
            key,
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
