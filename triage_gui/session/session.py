"""The session: one model, one prompt version in use, the loaded tickets, and the work on them.

Each kind of work is one asyncio task; a newer request of the same kind cancels the older task, and
the cancellation is what supersedes it (no generation counters):

- a model load (its own thread: a slow Hub download can be abandoned while the old model labels on), then
  a prompt rebuild (the prefix forward on the engine thread; a failed one keeps the scorer in use);
- the labelling run: the first pass's embedding blocks, then language-model micro-batches; Stop ends the
  language model's part (the first pass goes on) and Resume takes only the rows still missing;
- file reads, one task per file, batch by batch on the file thread (:mod:`ticket_reading`); the taught
  head's refit (:mod:`teaching`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..defaults import STREAM_BATCH_SIZE
from ..engine.model import ScorerLike, canonical_encoder, encoder_key
from ..engine.prompt import PromptProfile
from ..engine.table import NewRow, ScoredBatch, TicketScore, TicketTable, apply_batch
from .checks import RandomChecks
from .engine import Engine, field_of
from .events import Event
from .failed_build import failed_build
from .fields import FieldLabels
from .intents import Intents
from .labelling import Throughput, WorkQueue, label_stream, run_status
from .labelling_store import ScoreMemory, ScoreStore, bias_of, kept_batches, kept_scores, read_memories
from .languages import LanguageDetection
from .status import ModelStatus, PromptStatus, RunStatus, model_ready
from .suggestions import prepare_grouping
from .tasks import LatestTask
from .teaching import InUse, Teaching
from .ticket_reading import TicketReading
from .workers import WorkerThread

log = logging.getLogger(__name__)


class Session(Intents):
    """See the module docstring. Create and use it on the loop's thread only; the window's door: :mod:`intents`."""

    def __init__(
        self,
        engine: Engine | None = None,
        device: str = "auto",
        batch_size: int = STREAM_BATCH_SIZE,
        encoder: str = "bundled",
    ):
        self.engine = engine or Engine.real()
        self.device = device
        self.batch_size = batch_size
        self.engine_thread = WorkerThread("engine")
        self.loader_thread = WorkerThread("model-loader", transient=True)  # see workers
        self.file_thread = WorkerThread("file-reader")
        self.table = TicketTable()
        self.model: Any = None
        self.model_spec = ""  # what the model in use was loaded from
        self.scorer: ScorerLike | None = None
        self.more: list[ScorerLike] = []  # the further fields' scorers in use (a prompt with several fields)
        self.encoder_spec = encoder  # the sentence encoder ("none": labels learned without one)
        self.encoder: Any = None  # loaded once, beside the first model; it does not depend on the prompt
        self._encoder_loading = LatestTask("encoder")
        self.profile: PromptProfile | None = None  # the prompt the scorer in use was built from
        self.requested: PromptProfile | None = None  # the newest prompt asked for
        self.baseline, self.user_stopped = False, False
        self.calibrate = True  # the prompt's label scores divided by its own label prior (README)
        self.text_column = ""  # the column the ticket text comes from (as the first file's reader chose it)
        self.versions: list[tuple[int, PromptProfile]] = []  # every prompt version applied, oldest first

        self.model_changed: Event[[ModelStatus]] = Event()
        self.prompt_changed: Event[[PromptStatus]] = Event()
        self.run_changed: Event[[RunStatus]] = Event()
        self.rows_added: Event[[range]] = Event()
        self.rows_changed: Event[[int, int]] = Event()  # first, last row whose label or scores changed
        self.table_reset: Event[[]] = Event()
        self.languages_known: Event[[]] = Event()  # every loaded row's language is detected
        self.message: Event[[str, str]] = Event()  # title, text: something failed
        self.save_taught: Event[[]] = Event()  # the taught set changed: keep it with the prompt

        self.model_status = ModelStatus("none")
        self.prompt_status = self._ready = PromptStatus("waiting")  # (_ready: the last "ready" status)
        self.run_status = RunStatus("idle")
        self._loading = LatestTask("load model")
        self._rebuilding = LatestTask("rebuild prompt")
        self._labelling = LatestTask("label")
        files = TicketReading(self.file_thread, self.add_rows, self._first_column, self.refresh_checks, self.message)
        self._files, self.file_changed = files, files.changed
        self._queue, self._stop = WorkQueue(self.table), threading.Event()
        self._reading = 0  # tickets the language model reads in the batch on the engine thread (label_stream)
        self._fields_read: tuple[int, ...] = ()  # the fields it reads in this run (RunStatus.fields_read)
        self._throughput = Throughput()
        # The language model's scores of this version, as the scorer gave them (text -> score): kept in the
        # cache when a run ends, read back when the same file is opened with the same prompt (labelling_store).
        self.scores = ScoreMemory(ScoreStore(self.engine.scores_dir if self.engine.score_key is not None else None))
        self.field_scores: list[ScoreMemory] = []  # each further field's, alike (a prompt with several fields)
        self.teaching = Teaching(self.table, self.engine_thread, self._in_use)
        self.teaching.rows_changed.connect(self.rows_changed.emit)
        self.teaching.rows_changed.connect(lambda *_: self._set_run(self._status(self.run_status.state)))  # counts
        self.teaching.taught_changed.connect(self.save_taught.emit)
        self.checks = RandomChecks(self.table)
        self.languages = LanguageDetection(
            self.table, self.rows_added, self.table_reset, self.rows_changed, self.languages_known
        )
        self.teaching.history.stepped.connect(self.checks.stepped)  # an undone teach takes its verdict back
        self.teaching.changed.connect(lambda status: self.checks.refresh() if status.state == "ready" else None)
        # A prompt's fields after the first (:mod:`fields`), read by the language model on its one thread
        self.fields = FieldLabels(self.table, lambda: self.encoder, self.engine_thread)
        self.fields.rows_changed.connect(self.rows_changed.emit)
        self.fields.taught_changed.connect(self.save_taught.emit)
        self.teaching.history.apply_field = self.fields.apply
        self.teaching.history.stepped.connect(self.fields.checks.stepped)  # each field's verdicts follow its undo
        self.fields.history_named = self._first_field_named
        self.checks.encoder = self.fields.checks.encoder = lambda: self.encoder.name if self.encoder else ""

    def _first_field_named(self, name: str) -> None:
        """A prompt with several fields names its first field in its undo steps and its estimate ("" for one)."""
        self.teaching.history.field_name = name
        if self.checks.name != name:
            self.checks.name = name
            self.checks.refresh()

    def _in_use(self) -> InUse:
        """What the teaching works with now (read on the loop's thread, before work is handed over)."""
        return InUse(self.scorer, self.profile, self.encoder)

    # ================================================================ model

    def load_model(self, spec: str) -> None:
        """Load a model; a newer load (or cancel_load) abandons this one, the model in use stays."""
        self._loading.start(self._load(spec))

    def cancel_load(self) -> None:
        if self._loading.active:
            self._loading.cancel()
            self._set_model(model_ready(self.model, "Loading cancelled."))

    async def _load(self, spec: str) -> None:
        loop = asyncio.get_running_loop()
        self._set_model(ModelStatus("loading", message=f"Loading {spec}…"))

        def progress(fraction: float, text: str) -> None:  # called on the loader thread
            loop.call_soon_threadsafe(
                self._load_progress, task, ModelStatus("loading", message=text, fraction=fraction)
            )

        task = asyncio.current_task()
        try:
            loaded = await self.loader_thread.run(self.engine.load, spec, self.device, progress)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.info("model load failed: %s", exc)
            previous = model_ready(self.model)
            still = f"\n\nStill using {self.model.name}." if self.model is not None else ""
            self._set_model(ModelStatus("failed", previous.name, previous.device, f"{exc}{still}"))
            if self.model is not None:
                self._set_model(previous)
            self.message.emit("Model not loaded", f"{exc}{still}")
            return
        self.model, self.model_spec = loaded, spec
        self.scorer, self.more = None, []
        self._labelling.cancel()
        self._set_model(model_ready(self.model))
        profile = self.requested or self.profile
        if profile is not None:
            self._start_rebuild(profile)
        wanted = self.encoder_spec != "none" and self.engine.load_encoder is not None
        if wanted and self.encoder is None and self._encoder_loading.task is None:
            self._encoder_loading.start(self._load_encoder())
        else:
            prepare_grouping(self.loader_thread)  # Suggest labels then imports nothing (after the encoder's load)

    async def _load_encoder(self) -> None:
        """The sentence encoder, on the loader thread beside the prompt's prefix build: tickets scored
        before it is ready are embedded by the next run (a run only for the missing embeddings)."""
        assert self.engine.load_encoder is not None
        try:
            encoder = await self.loader_thread.run(self.engine.load_encoder, self.encoder_spec)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.info("encoder load failed: %s", exc)
            self.message.emit("Sentence encoder not loaded", f"{exc}\n\nLabels are learned without it.")
            return
        self.encoder = encoder
        self.refresh_checks()  # checks made with another encoder may no longer hold
        prepare_grouping(self.loader_thread)
        self.table.use_encoder(encoder_key(encoder))  # another encoder's embeddings go: every row again
        self.fields.encoder_changed()
        if self.scorer is not None:
            self.teaching.encoder_ready()  # the prompt's examples through the encoder too
        if self.running:
            self._queue.also_embed()  # the run in progress takes the embeddings it skipped
        else:
            self._ensure_running()

    def set_encoder(self, spec: str) -> bool:
        """Another sentence encoder (a name, folder, Hub id or "none"): the run stops (the old encoder's batch is
        not stored), it loads, then every row is embedded again (:meth:`TicketTable.use_encoder`)."""
        spec = canonical_encoder(spec)
        if spec == canonical_encoder(self.encoder_spec):
            return False
        self.encoder_spec = spec
        self._encoder_loading.cancel()
        self._labelling.cancel()  # its batch in flight carries the old encoder's vectors: never stored
        self.encoder = None
        self.fields.encoder_changed()
        if spec == "none" or self.engine.load_encoder is None:
            self.table.use_encoder("none")
            if self.scorer is not None:
                self.teaching.encoder_ready()
        elif self.model is not None:
            self._encoder_loading.start(self._load_encoder())
        self._ensure_running()  # the language model goes on meanwhile, embedding nothing until it is ready
        return True

    def _load_progress(self, task: asyncio.Task | None, status: ModelStatus) -> None:
        if task is not None and self._loading.task is task:  # a cancelled load's progress is not shown
            self._set_model(status)

    def _set_model(self, status: ModelStatus) -> None:
        self.model_status = status
        self.model_changed.emit(status)

    # =============================================================== prompt

    def set_prompt(self, profile: PromptProfile) -> bool:
        """Use this prompt: rebuild the prefix and re-label everything, the language model's pass included
        after a Stop (Save and re-label after Stop left the new version to the first pass alone). Returns
        False (and does nothing) when it is what is already in use or being built and nothing was stopped:
        saving an unchanged prompt costs nothing; after a Stop it resumes the pass. The fields after the first
        (a prompt with several) have their own first pass and scorers, read in the same run (:mod:`fields`)."""
        # The fields this run read, by name: a Save that moved them had the run line name another one (W15).
        read = {name for i, name in enumerate(self.field_names) if i in self._fields_read}
        self.fields.set_prompt(profile)
        self._fields_read = tuple(i for i, name in enumerate(self.field_names) if name in read)
        self.teaching.history.fields_left(len(profile.fields))  # a removed field's undo steps go with it
        if self.requested is not None and profile.content_hash() == self.requested.content_hash():
            if self.profile is not None and self.profile.content_hash() == profile.content_hash():
                self.profile = profile  # what the model does not read is the new one's: a field's labels in order
            if self.prompt_status.state == "failed" and self.profile is profile:  # a Save back to the one in use:
                self._set_prompt(dataclasses.replace(self._ready, notice=""))  # it said "not updated" on (W20)
            self.requested = profile
            if not self.user_stopped or not self._remaining():
                return False
            self.resume()
            return True
        self.requested, self.user_stopped = profile, False
        if self.model is None:
            return True  # built once the model is loaded
        self._start_rebuild(profile)
        return True

    def take_back_renames(self, renamed: Mapping[int, Mapping[str, str]]) -> None:
        """A Save that wrote nothing after :meth:`follow_renames` (a read-only file, a full disk, a conflict): each
        field's taught tickets, undo steps and checks take the old names back, the prompt in use's (W18)."""
        for i, mapping in renamed.items():
            self._relabel(i, {new: old for old, new in mapping.items()})

    def set_calibration(self, on: bool) -> None:
        """Calibrate the prompt's label scores, or not: a new version of the same prompt, re-labelled."""
        if on == self.calibrate:
            return
        self.calibrate, profile = on, self.requested or self.profile
        if self.model is not None and profile is not None:
            self._start_rebuild(profile)

    def _start_rebuild(self, profile: PromptProfile) -> None:
        self._set_prompt(PromptStatus("updating", self.table.version))
        self._rebuilding.start(self._rebuild(profile))

    async def _rebuild(self, profile: PromptProfile) -> None:
        self._labelling.cancel()  # the old version's labels stay shown, marked stale, until replaced
        index = 0  # the field being built
        try:
            scorer = await self.engine_thread.run(self.engine.build, self.model, profile, self.calibrate)
            more = []  # a prompt with several fields: each further field's own prefix, built and stored now too
            for index in range(1, len(profile.fields)):
                more.append(await self.engine_thread.run(self.engine.build, self.model, profile.field_profile(index),
                                                         self.calibrate))  # fmt: skip
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.info("prompt rebuild failed: %s", exc)
            taught = [self.fields.taught_of(i) for i in range(1, len(profile.fields))]
            then = failed_build(profile, self.profile, index, taught, str(exc))
            if not then.left_out:  # (a field the Save added: the window saves the prompt without it, then uses it)
                self.requested = self.profile  # the prompt in use stays in use, every field of it (W13: a further
            if self.profile is not None and then.retry is None and not then.left_out:  # field had switched)
                self.fields.back_to(self.profile, self.more)
            self._set_prompt(PromptStatus("failed", self.table.version, message=then.message, field=field_of(exc),
                                          left_out=then.left_out))  # fmt: skip
            if then.retry is not None:  # the Save moved the fields: in their new order (:mod:`failed_build`)
                self.set_prompt(then.retry)
            elif not then.left_out:
                self._ensure_running()
            return
        memories = await read_memories([self.scores, *self.field_scores], [scorer, *more], self.engine.score_key,
                                        self.engine_thread, self.file_thread)  # fmt: skip
        # Another field first (a Save that moved the priority left of the queue): its labels are no flips of the
        # queue's (the Flipped tab listed all 300 tickets "account and security → high", walkthrough W).
        same = self.profile is None or self.profile.field_name == profile.field_name
        self.scorer, self.profile, self.more = scorer, profile, more
        version = self.table.version + 1
        bias = getattr(scorer, "bias", None)
        self.table.start_version(version, list(scorer.labels), [] if bias is None else [float(b) for b in bias], same)
        self.versions.append((version, profile))
        self.scores, self.field_scores = memories[0], memories[1:]
        self.fields.new_version(more)
        prefix = getattr(scorer, "prefix", None)
        self._set_prompt(
            PromptStatus(
                "ready",
                version,
                int(getattr(scorer, "prefix_length", 0)),
                float(getattr(prefix, "build_seconds", 0.0)),
                bool(getattr(scorer, "prefix_from_disk", False)),
                bool(getattr(scorer, "calibrated", False)),
                notice=getattr(scorer, "prefix_problem", None) or "",
            )
        )
        self._changed_all()
        self.teaching.new_version()
        self._from_store(range(len(self.table)))
        self._ensure_running()

    def _set_prompt(self, status: PromptStatus) -> None:
        self.prompt_status, self._ready = status, status if status.state == "ready" else self._ready
        self.prompt_changed.emit(status)

    # ============================================================== tickets

    def add_rows(self, rows: Sequence[NewRow]) -> range:
        added = self.table.add(rows)
        if len(added):
            self.teaching.rows_added(added)
            self.rows_added.emit(added)
            self._from_store(added)
            self._ensure_running()
        return added

    def paste(self, rows: Sequence[NewRow], text_column: str = "text") -> range:
        self.user_stopped = False
        if not len(self.table):
            self.text_column = text_column
        return self.add_rows(rows)

    def open_file(self, path: str | Path, replace: bool = False, sheet: str | None = None) -> asyncio.Task:
        """Read a ticket file (a workbook's ``sheet``) in the background, appending its rows (or replacing)."""
        if replace:
            self.clear()
        self.user_stopped = False
        return self._files.open(Path(path), sheet)

    def _first_column(self, column: str) -> None:
        if not len(self.table):  # the first file's reader chose it
            self.text_column = column

    @property
    def ticket_files(self) -> list[Path]:
        """The files the loaded tickets were read from, in the order opened (an export may not replace one)."""
        return list(self._files.files)

    @property
    def reading(self) -> bool:
        return bool(self._files.tasks)

    def clear(self) -> None:
        """Drop every loaded ticket (and stop reading and labelling them)."""
        self._files.clear()
        self._labelling.cancel()
        self.table.clear()
        self.text_column = ""
        self.teaching.cleared()
        self.fields.cleared()
        self.checks.clear()
        self.fields.checks.clear()
        self._set_run(RunStatus("idle"))  # before the reset: what redraws on it reads the run status
        self.table_reset.emit()

    def set_text_column(self, column: str) -> None:
        if column == self.text_column:
            return
        self.text_column = column
        self._labelling.cancel()
        self.table.set_texts(column)
        self.fields.cleared()
        self.languages.restart()
        self._changed_all()
        self.teaching.texts_changed()
        self._ensure_running()

    # ============================================================ labelling

    def stop(self) -> None:
        """Stop the language model and reading; every label so far stays, the batch in flight's too (~1 s;
        seconds with several fields on a CPU): its tickets are read already in part, and a lead who stopped to
        look would rather have them than see them thrown away. Until it lands the run status says how many it
        holds (:attr:`RunStatus.finishing`, "Stopping" on the run line), so the count of tickets not read that
        follows "Stopped" is the one that stays (it said "71 not read", then the batch landed: walkthrough)."""
        self.user_stopped = True
        self._files.cancel()
        self._stop.set()
        self._set_run(self._status("stopped" if self._remaining() else "done"))

    def resume(self) -> None:
        """Label what is missing again. Resume before the batch in flight at Stop has landed goes on with the
        same run (its batch kept, not read a second time); a first-pass-only run after a Stop is replaced."""
        self.user_stopped = False
        if self.running and self._stop.is_set() and self._reading:
            self._stop.clear()  # the stream takes the language model's work again after this batch
            return self._set_run(self._status("running"))
        if self.running and self._stop.is_set():  # a first-pass-only run after a Stop: one with the LLM instead
            self._labelling.cancel()
        self._ensure_running()

    def set_baseline(self, on: bool) -> None:
        """Also run the full re-encode; only rows that lack it are computed, labels are kept."""
        if on == self.baseline:
            return
        self.baseline = on
        self._labelling.cancel()  # restart so the queue includes (or skips) baseline work
        self._ensure_running()

    @property
    def running(self) -> bool:
        return self._labelling.active

    def _remaining(self) -> int:
        return len(self.table.pending(0, self.baseline, self.encoder is not None)) + len(self.fields.unread())

    def _ensure_running(self) -> None:
        """Label what is missing; else the run status still counts the table now (bar and summary read it)."""
        if self.running:  # rows may have arrived: count them now, not at the next batch
            return self._set_run(self._status(self.run_status.state))
        remaining, rebuilding = self._remaining(), self._rebuilding.active and not self._rebuilding.is_current()
        queue = WorkQueue(self.table, self.baseline, self.encoder is not None, self.fields)
        wanted = (remaining and not self.user_stopped) or queue.first_pass_left()  # Stop never stops the first pass
        if self.scorer is None or rebuilding or not wanted:  # labels follow a build
            done = len(self.table) and not remaining and self.scorer is not None  # no prompt in use: none is (W17)
            self._set_run(self._status("done" if done else "stopped" if self.user_stopped else "idle"))
            return
        self._queue, self._stop = queue, threading.Event()
        if self.user_stopped:
            self._stop.set()  # the first pass only
        self._labelling.start(self._run(self.scorer, self._stop))

    async def _run(self, scorer: ScorerLike, stop: threading.Event) -> None:
        version = self.table.version
        self._throughput.start()
        self._fields_read = ()
        self._set_run(self._status("running"))
        try:
            take = self._queue.take
            more = list(self.fields.scorers)  # every further field read in the same micro-batches (:mod:`fields`)
            memories = [self.scores, *self.field_scores]  # a field kept (a Save changed another) is not read again

            def kept(rows: list[int]) -> list[list[TicketScore | None]]:
                return kept_scores(self.table, rows, [scorer, *more], memories)

            def in_hand(tickets: int) -> None:  # this run's, not a cancelled one's last word after the next began
                if stop is self._stop:
                    self._reading = tickets

            def reads(fields: tuple[int, ...]) -> None:  # which fields (a Save that changed one: that one)
                if stop is self._stop and fields != self._fields_read:
                    self._fields_read = fields
                    self._set_run(self._status("running"))

            stream = label_stream(
                self.engine_thread, scorer, take, self.batch_size, stop, True, lambda: self.encoder, more,
                kept if more and len(memories) == len(more) + 1 else None, in_hand, reads,
            )  # fmt: skip
            async for batch in stream:
                self._apply(batch, version, "stopped" if stop.is_set() else "running")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("labelling failed")
            self.user_stopped = True
            self._set_run(self._status("stopped"))
            self.message.emit("Labelling stopped", str(exc))
            return
        self._keep_scores(self.file_thread.submit)  # the scores this run read, kept for a reopen
        self.fields.run_ended()  # each further field fitted on every ticket read (a Stop)
        self._set_run(self._status("stopped" if self._remaining() else "done"))

    def _from_store(self, rows: range) -> None:
        """Rows the language model read with this prompt and model before take those scores: no forward pass."""
        if self.scorer is None:
            return
        batch = self.scores.found(self.table, rows, bias_of(self.scorer))
        if batch is None:
            return
        for kept in kept_batches(self.table, batch, self.fields.scorers, self.field_scores):
            self._apply(kept, self.table.version, self.run_status.state, read=False)
        log.info("%d tickets took their stored scores (no forward pass)", len(batch.rows))

    def _apply(self, batch: ScoredBatch, version: int, state: str, read: bool = True) -> None:
        tickets = sum(s is not None for s in batch.scores)
        if batch.more and version == self.table.version:  # a row read for the further fields alone: its first
            first = [None if self.table.scored(r) else s for r, s in zip(batch.rows, batch.scores, strict=True)]
            batch = dataclasses.replace(batch, scores=first)  # field's score, kept, was taken with the version
        done = apply_batch(self.table, batch, version)
        this = [r for r in batch.rows if self.table.scored(r)] if version == self.table.version else []
        if read:
            self.scores.remember(self.table, batch, done.scored)
            for memory, (scores, _) in zip(self.field_scores, batch.more):
                memory.keep(self.table, batch.rows, scores, this)
        if done.embedded:
            self.teaching.rows_embedded(done.embedded)
            self.fields.rows_embedded()
        if done.scored:
            self.teaching.rows_scored(done.scored)
        if done.based:
            self.teaching.baseline_scored(done.based)
        further = bool(this) and any(s is not None for scores, _ in batch.more for s in scores)
        if batch.more and (done.scored or done.based or further):  # this version's: the further fields' scores
            self.fields.rows_read(batch.rows, batch.more)
        if read:
            self._throughput.add(tickets)
        self.rows_changed.emit(min(batch.rows), max(batch.rows))
        self._set_run(self._status(state))

    def _status(self, state: str) -> RunStatus:
        finishing = self._reading if self.running else 0
        embedding = self.encoder is not None
        unread = len(self.fields.unread())
        fields = self._fields_read
        return run_status(self.table, state, self.baseline, self._throughput, finishing, embedding, fields, unread)

    def _set_run(self, status: RunStatus) -> None:
        self.run_status = status
        self.run_changed.emit(status)

    def _changed_all(self) -> None:
        if len(self.table):
            self.rows_changed.emit(0, len(self.table) - 1)

    # ================================================================ close

    def _keep_scores(self, call: Any) -> None:
        """Write the scores read since the last write, for a reopen (``call``: how, now or on a thread)."""
        for memory in (self.scores, *self.field_scores):
            if written := memory.to_write():
                call(memory.store.write, *written)

    def shutdown(self) -> None:
        """As :meth:`Intents.shutdown`, the scores read so far written first, once the threads are done: a quit
        mid-reading cancels the run, which wrote them only when it ended (W17: 600 tickets read again)."""
        super().shutdown()
        self._keep_scores(lambda write, *args: write(*args))

    def _tasks(self) -> list[asyncio.Task]:
        kinds = (self._loading, self._encoder_loading, self._rebuilding, self._labelling)
        parts = [*self._files.tasks, *self.teaching.tasks(), *self.fields.tasks()]
        tasks = [k.task for k in kinds if k.pending] + parts
        return [t for t in tasks if t is not None and not t.done()]

    def _threads(self) -> list[WorkerThread]:
        threads = [self.engine_thread, self.loader_thread, self.file_thread, self.languages.thread]
        return [*threads, *self.teaching.threads(), *self.fields.threads()]
