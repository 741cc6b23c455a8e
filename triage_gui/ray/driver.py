"""``classify --ray``: score a ticket file on a Ray cluster, one model per actor, results applied on the driver.

Ray core actors with our own queue of blocks, not Ray Data: the job is one list of (row, text) pairs for
stateful workers that each load the model and build the prompt prefix once, which is what an actor is. Our
queue keeps the fault rules plain: a block lost with its worker goes back to the front of the queue, and
the same block failing three times stops the job. Ray Data would add pandas and pyarrow, which the
``cluster`` extra (Ray core only) does not install, and retry and ordering rules of its own.

Tickets go out in blocks of consecutive pending rows, at most :data:`BLOCK_TICKETS` of them, a multiple of
``--batch-size`` so every actor forms the same micro-batches :func:`engine.scoring.score_table` forms in one
process. Each actor has one call in flight at a time, so a dead actor costs one block. Blocks come back
as numpy arrays and are applied on the driver in any order: rows carry their indices, so the output keeps
input order. Features travel as float32, exactly as the scorer made them (590 KB per 256 tickets): the
table quantises them itself (int8 with a per-row scale), and quantising float16 copies instead moved codes
by one step (0.34 on values up to 44), enough to shift the learned head's confidences in the 3rd decimal
and flip one of 40 BANKING77 labels against the one-process run.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.table import ScoredBatch, TicketTable, apply_batch
from ..words import counted
from .worker import FAULT_ENV, ScoredBlock, ScoringWorker, WorkerOptions, first_line

NEEDS_RAY = "classify --ray needs Ray: pip install 'triage-gui[cluster]' (or pip install 'ray>=2.60,<2.61')."
BLOCK_TICKETS = 256  # upper bound; small jobs use smaller blocks so every actor gets several
BLOCKS_PER_ACTOR = 4  # at least this many blocks per actor where the file allows (load balance, cheap retries)
MAX_BLOCK_FAILURES = 3  # the same block failing this often stops the job
MAX_RESTARTS = 3  # restarts of one actor (Ray restarts it; its constructor loads the model again)
# No call answered for this long (nothing schedulable, a restarted actor that cannot be placed): stop. A block
# of 256 tickets with --baseline takes ~100 s on two cores (~0.4 s per full re-encode).
STALL_TIMEOUT_S = 900.0
# Passed to the actors' runtime_env where set on the driver: a test's temp cache, offline Hub use.
PASS_ENV = ("TRIAGE_GUI_CACHE_DIR", "HF_HUB_OFFLINE", "HF_ENDPOINT", FAULT_ENV)


@dataclass
class _Slot:
    """The driver's view of one actor: starting (info call in flight), idle, busy or dropped."""

    actor: Any
    state: str = "starting"  # starting, idle, busy, restarting, dropped
    deaths: int = 0
    retry_at: float = 0.0  # restarting: when to ask it again
    info: dict[str, Any] = field(default_factory=dict)


def block_size(pending: int, actors: int, batch_size: int) -> int:
    """Tickets per block: a multiple of ``batch_size`` (same micro-batches as one process), at most about
    :data:`BLOCK_TICKETS`, and small enough that each actor gets :data:`BLOCKS_PER_ACTOR` blocks."""
    target = min(BLOCK_TICKETS, -(-pending // (actors * BLOCKS_PER_ACTOR)))
    return max(1, -(-target // batch_size)) * batch_size


def score_on_ray(args: argparse.Namespace, table: TicketTable, console: Console | None = None) -> None:
    """Score every pending row of ``table`` on Ray actors, as :func:`engine.scoring.score_table` would in one
    process (same scores, features and baseline, applied under ``table.version``). ``console``: where the
    progress line goes (the command line's; None: none).

    ``args.ray`` is ``"local"`` (start a Ray instance on this machine, shut it down at the end) or a
    cluster address (connect, leave the cluster running). Ctrl+C kills the actors, shuts down what we
    started and re-raises KeyboardInterrupt.
    """
    try:
        import ray
    except ImportError:
        raise ValueError(NEEDS_RAY) from None
    from ..engine.prompt import load_profile

    actors_wanted = getattr(args, "ray_actors", None)
    if any(value is not None and value < 1 for value in (actors_wanted, args.threads)):
        raise ValueError("--ray-actors and --threads must be at least 1")
    rows = [int(r) for r in table.pending(0)]
    if not rows:
        return
    profile = load_profile(args.prompt)  # read here: the workers need not see the driver's files
    connecting = time.perf_counter()
    started_ray = _connect(ray, args.ray, actors_wanted, args.threads)
    up_s = time.perf_counter() - connecting
    with terminate_as_interrupt():  # set after ray.init, which installs a SIGTERM handler of its own
        _run_job(ray, args, table, rows, profile, started_ray, actors_wanted, up_s, console or Console())


def _run_job(
    ray: Any,
    args: argparse.Namespace,
    table: TicketTable,
    rows: list[int],
    profile: Any,
    started_ray: bool,
    actors_wanted: int | None,
    up_s: float,
    console: Console,
) -> None:
    """The job once connected: actors made, blocks scored, actors killed and what we started shut down."""
    slots: list[_Slot] = []
    job: _Job | None = None
    try:
        total_cpus = float(ray.cluster_resources().get("CPU", 1.0))
        node_cpus = max([1, *(int(n["Resources"].get("CPU", 0)) for n in ray.nodes() if n.get("Alive"))])
        actors = actors_wanted or max(1, int(total_cpus) // 2)
        threads = args.threads or max(1, min(node_cpus, int(total_cpus) // actors))
        calibrate, baseline = not args.no_calibration, bool(args.baseline)
        encoder = "none"  # the first pass embedded every row on the driver (engine/learning/_first_pass.py)
        options = WorkerOptions(
            args.model, args.device, threads, args.dtype, profile, calibrate, args.batch_size, baseline, encoder
        )
        size = block_size(len(rows), actors, args.batch_size)
        note = f"{counted(len(rows), 'ticket')} in blocks of {size}; Ray up in {up_s:.1f} s"
        print(f"Ray: {actors} workers x {threads} threads on {total_cpus:g} CPUs, {note}", file=sys.stderr)
        gpus = 1 if str(args.device).startswith("cuda") else 0
        if gpus and not ray.cluster_resources().get("GPU"):
            raise ValueError(f"--device {args.device} needs GPUs, and the Ray cluster has none.")
        remote = ray.remote(ScoringWorker).options(
            num_cpus=min(threads, node_cpus),  # an actor's threads must fit on one node
            num_gpus=gpus,
            max_restarts=MAX_RESTARTS,
            max_task_retries=0,  # a lost block is resubmitted by _Job, which counts its failures
            runtime_env={"env_vars": {k: os.environ[k] for k in PASS_ENV if os.environ.get(k)}},
        )
        slots = [_Slot(remote.remote(options)) for _ in range(actors)]
        blocks = [rows[i : i + size] for i in range(0, len(rows), size)]
        job = _Job(ray, table, slots, blocks, console)
        job.run()
    except KeyboardInterrupt:
        print("Ray: interrupted; cancelling the outstanding blocks and stopping the workers", file=sys.stderr)
        for ref in job.calls if job else ():
            with contextlib.suppress(Exception):  # finished or lost meanwhile
                ray.cancel(ref)
        raise
    finally:
        for slot in slots:
            with contextlib.suppress(Exception):  # already gone
                ray.kill(slot.actor, no_restart=True)  # also fails its queued and running calls
        if started_ray:
            ray.shutdown()


PROBE_TIMEOUT_S = 5.0


def probe_address(address: str) -> None:
    """Refuse in seconds a cluster address where nothing listens: ``ray.init`` retries such an address for
    minutes with no output (``--ray 127.0.0.1:1`` had not answered after 200 s)."""
    if address in ("local", "auto"):
        return
    where = address.removeprefix("ray://")
    host, _, port = where.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--ray {address} is not a cluster address; give HOST:PORT (such as head:6379) or local.")
    try:
        with socket.create_connection((host, int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc)).lower()
        raise ValueError(
            f"Cannot connect to the Ray cluster at {address}: nothing answers there ({reason}); start it with "
            "ray start --head, or check the address."
        ) from None


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM ends a Ray job as Ctrl+C does (workers cancelled and killed, exit 130), not with Ray's own
    handler's exit 1 and native stack dump. Only the main thread may set signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _connect(ray: Any, address: str, actors: int | None, threads: int | None) -> bool:
    """Start a local instance (True: ours to shut down) or connect to ``address`` (False: leave it running)."""
    if ray.is_initialized():  # an embedding program's own connection: use it, leave it
        return False
    probe_address(address)
    # Ray Client (ray://) would pass these on to the server's ray.init, with a warning: leave them out there.
    quiet = {} if address.startswith("ray://") else {"logging_level": logging.WARNING, "log_to_driver": False}
    try:
        if address == "local":
            cpus = os.cpu_count() or 1
            cpus = max(cpus, (actors or 1) * (threads or 1))  # an explicit oversubscription still schedules
            ray.init(address="local", num_cpus=cpus, include_dashboard=False, **quiet)
            return True
        ray.init(address=address, **quiet)
        return False
    except Exception as exc:
        where = "start a local Ray instance" if address == "local" else f"connect to the Ray cluster at {address}"
        raise ValueError(f"Cannot {where}: {first_line(exc)}") from None


@dataclass(frozen=True)
class Console:
    """Where the driver's progress goes: the command line hands its progress line (``done, total, started,
    extra``) and the call that ends it, so the scale-out path imports nothing of the command line."""

    progress: Callable[[int, int, float, str], None] = lambda done, total, started, extra: None
    end: Callable[[], None] = lambda: None


class _Job:
    """The driver's loop: hand blocks to idle actors, apply results, resubmit blocks lost with a worker."""

    def __init__(
        self, ray: Any, table: TicketTable, slots: list[_Slot], blocks: list[list[int]], console: Console
    ) -> None:
        self.ray, self.table, self.slots, self.blocks, self.console = ray, table, slots, blocks, console
        self.queue = collections.deque(range(len(blocks)))
        self.failures: collections.Counter[int] = collections.Counter()
        self.calls: dict[Any, tuple[_Slot, int]] = {}  # ref -> (slot, block; -1 for an info call)
        self.total = sum(len(b) for b in blocks)
        self.applied: set[int] = set()
        self.done = self.rescored = 0
        self.last_answer = self.busy_s = 0.0
        self.first_ready: float | None = None  # when the first actor had its model: scoring starts

    def run(self) -> None:
        progress_line, end_line = self.console.progress, self.console.end
        for slot in self.slots:
            self._ask_info(slot)
        started = self.last_answer = time.perf_counter()
        try:
            while len(self.applied) < len(self.blocks):
                self._step()
                alive = sum(s.state in ("idle", "busy") for s in self.slots)
                progress_line(self.done, self.total, started, f", {alive}/{len(self.slots)} workers")
        finally:
            end_line()  # end the progress line, also before an error or an interrupt
        self._report()

    def _step(self) -> None:
        """Wait up to a second for one answer and act on it; ask restarted actors again when due."""
        for slot in self.slots:
            if slot.state == "restarting" and time.perf_counter() >= slot.retry_at:
                self._ask_info(slot)
        if not self.calls:
            time.sleep(0.2)  # every live worker is restarting
            return
        ready, _ = self.ray.wait(list(self.calls), num_returns=1, timeout=1.0)
        if not ready:
            if time.perf_counter() - self.last_answer > STALL_TIMEOUT_S:
                raise ValueError(
                    f"No Ray worker answered for {STALL_TIMEOUT_S:.0f} s; check that the cluster has the CPUs "
                    "asked for and that the workers can load the model (see the Ray logs)."
                )
            return
        slot, block = self.calls.pop(ready[0])
        result = self._get(ready[0], slot, block)
        if result is not None:
            self.last_answer = time.perf_counter()
            slot.state = "idle"
            if block < 0:
                slot.info, self.first_ready = result, self.first_ready or time.perf_counter()
                self._check_worker(slot)
            elif result.block not in self.applied:
                self.applied.add(result.block)
                self._apply(result)
                self.done += len(result.rows)
        self._dispatch()

    def _ask_info(self, slot: _Slot) -> None:
        slot.state = "starting"
        self.calls[slot.actor.info.remote()] = (slot, -1)

    def _dispatch(self) -> None:
        for slot in self.slots:
            if slot.state == "idle" and self.queue:
                block = self.queue.popleft()
                rows = self.blocks[block]
                texts = [self.table.texts[r] for r in rows]
                self.calls[slot.actor.score.remote(block, np.asarray(rows, dtype=np.int64), texts)] = (slot, block)
                slot.state = "busy"

    def _get(self, ref: Any, slot: _Slot, block: int) -> Any:
        """The call's result, or None after handling a failure (block requeued, actor restarting or dropped)."""
        from ray.exceptions import ActorDiedError, RayError, RayTaskError

        try:
            return self.ray.get(ref)
        except RayTaskError as exc:  # an exception in our code on the worker
            cause = exc.cause
            if _user_error(cause):
                raise cause from None  # the ticket or the model, as in one process: no point retrying
            self._failed(block, first_line(cause))
            slot.state = "idle"
        except RayError as exc:  # the worker process or its node is gone (crash, OOM kill, node lost)
            if block >= 0:  # a score call: the process died under it (an info call fails while it restarts)
                slot.deaths += 1
                self._failed(block, "its worker process died")
            if isinstance(exc, ActorDiedError) or slot.deaths > MAX_RESTARTS:
                slot.state = "dropped"
                if all(s.state == "dropped" for s in self.slots):
                    last = first_line(exc)
                    raise ValueError(
                        f"Every Ray worker died (last: {last}); see the Ray logs on the workers."
                    ) from None
            else:  # Ray restarts it; ask again until its constructor has run (model loaded)
                slot.state, slot.retry_at = "restarting", time.perf_counter() + (0.0 if block >= 0 else 1.0)
        return None

    def _failed(self, block: int, reason: str) -> None:
        if block < 0:
            return
        self.failures[block] += 1
        if self.failures[block] >= MAX_BLOCK_FAILURES:
            rows = self.blocks[block]
            raise ValueError(
                f"Tickets {rows[0] + 1}-{rows[-1] + 1} failed {self.failures[block]} times on the Ray workers "
                f"(last: {reason}); see the Ray logs."
            )
        self.rescored += 1
        self.queue.appendleft(block)

    def _check_worker(self, slot: _Slot) -> None:
        info = slot.info
        if info["error"]:
            raise ValueError(f"A Ray worker on {info['host']} cannot load the model: {info['error']}")
        if info["labels"] != self.table.labels:
            raise ValueError(
                f"The Ray worker on {info['host']} labels with {info['labels']}, the driver with "
                f"{self.table.labels}; install the same triage-gui version everywhere."
            )

    def _apply(self, result: ScoredBlock) -> None:
        baseline = result.baseline.unpack(result.labels) if result.baseline is not None else None
        scored = ScoredBatch.of_rows(
            result.rows.tolist(), result.cached.unpack(result.labels), baseline, result.embeddings
        )
        apply_batch(self.table, scored, self.table.version)
        self.busy_s += result.seconds

    def _report(self) -> None:
        """Worker start-up and scoring speed: what one more worker costs and brings (packaging/cluster_scaling.py)."""
        infos = [s.info for s in self.slots if s.info]
        if infos:
            loads, prefixes = [i["load_s"] for i in infos], [i["prefix_s"] for i in infos]
            stored = sum(bool(i["prefix_stored"]) for i in infos)
            scoring = time.perf_counter() - (self.first_ready or time.perf_counter())
            print(
                f"Ray workers: model load {min(loads):.1f}-{max(loads):.1f} s, prefix {min(prefixes):.2f}-"
                f"{max(prefixes):.2f} s ({stored}/{len(infos)} from the prefix store); "
                f"{counted(self.done, 'ticket')} in "
                f"{scoring:.1f} s from the first ready worker ({self.done / max(scoring, 1e-9):.1f}/s), "
                f"{self.done / max(self.busy_s, 1e-9):.1f}/s per busy worker",
                file=sys.stderr,
            )
        deaths = sum(s.deaths for s in self.slots)
        if deaths or self.rescored:
            print(f"Ray: {deaths} worker deaths, {self.rescored} blocks scored again", file=sys.stderr)


def _user_error(exc: BaseException | None) -> bool:
    """Failures that would be the same on any worker and in one process (a damaged model, a bad layout)."""
    from ..engine.model import ModelLoadError
    from ..engine.prompt import LayoutError
    from ..engine.scoring import ScoringError

    return isinstance(exc, ScoringError | LayoutError | ModelLoadError)
