"""The Ray actor of ``classify --ray`` (:mod:`cluster` drives it): one model and prompt prefix per worker
process, blocks of tickets scored as in one process, results packed as numpy arrays."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.table import TicketScore

# Test-only: a marker file path (the first block any worker starts makes it and kills that worker), or "raise".
FAULT_ENV = "TRIAGE_GUI_TEST_KILL_WORKER"


@dataclass
class WorkerOptions:
    """What an actor needs to build the same scorer as the driver. The profile travels as an object, so
    a ``--prompt`` file on the driver's disk need not exist on the workers."""

    model: str
    device: str
    threads: int
    dtype: str
    profile: Any  # engine.prompt.PromptProfile
    calibrate: bool
    batch_size: int
    baseline: bool
    encoder: str = "none"  # the sentence encoder's spec ("none": no embeddings)


@dataclass
class PackedScores:
    """A block's TicketScores as arrays: a few KB plus the features, instead of a pickled object per ticket."""

    label: np.ndarray  # int16 index into the block's labels
    confidence: np.ndarray  # float64: the scorer's values exactly
    probs: np.ndarray  # (n, labels) float64
    logprobs: np.ndarray  # (n, labels) float64
    latency_ms: np.ndarray
    truncated: np.ndarray  # bool
    split_fallback: np.ndarray  # bool
    tokens: np.ndarray  # int32
    features: np.ndarray | None  # (n, dim) float32, as the scorer made them (see the module docstring)

    @classmethod
    def pack(cls, scores: list[TicketScore], labels: list[str]) -> PackedScores:
        feats = [s.features for s in scores if s.features is not None]
        return cls(
            label=np.array([labels.index(s.label) for s in scores], dtype=np.int16),
            confidence=np.array([s.confidence for s in scores], dtype=np.float64),
            probs=np.array([s.probs for s in scores], dtype=np.float64).reshape(len(scores), len(labels)),
            logprobs=np.array([s.logprobs for s in scores], dtype=np.float64).reshape(len(scores), len(labels)),
            latency_ms=np.array([s.latency_ms for s in scores], dtype=np.float64),
            truncated=np.array([s.truncated for s in scores], dtype=bool),
            split_fallback=np.array([s.split_fallback for s in scores], dtype=bool),
            tokens=np.array([s.tokens for s in scores], dtype=np.int32),
            features=np.stack(feats).astype(np.float32) if feats and len(feats) == len(scores) else None,
        )

    def unpack(self, labels: list[str]) -> list[TicketScore]:
        return [
            TicketScore(
                label=labels[int(self.label[i])],
                confidence=float(self.confidence[i]),
                probs=self.probs[i].tolist(),
                logprobs=self.logprobs[i].tolist(),
                latency_ms=float(self.latency_ms[i]),
                truncated=bool(self.truncated[i]),
                split_fallback=bool(self.split_fallback[i]),
                tokens=int(self.tokens[i]),
                features=None if self.features is None else self.features[i],
            )
            for i in range(len(self.label))
        ]


@dataclass
class ScoredBlock:
    block: int
    rows: np.ndarray  # int64 table rows, in the block's order
    labels: list[str]
    cached: PackedScores
    baseline: PackedScores | None
    seconds: float  # the worker's scoring time for the block
    embeddings: np.ndarray | None = None  # (n, dim) float32, as the encoder made them


class ScoringWorker:
    """The actor: one model and prompt prefix per process, built once; blocks are scored with
    :func:`engine.scoring.score_stream`, as in one process. A load failure is kept and reported by
    :meth:`info` (it would fail the same way after every restart)."""

    def __init__(self, options: WorkerOptions) -> None:
        started = time.perf_counter()
        self.options = options
        self.error: str | None = None
        self.scorer: Any = None
        self.encoder: Any = None
        self.load_s, self.prefix_s, self.prefix_stored = 0.0, 0.0, False
        try:
            from ..engine.model import load_model
            from ..engine.scoring import Scorer

            loaded = load_model(options.model, options.device, None, options.threads, options.dtype)
            self.load_s = time.perf_counter() - started
            self.scorer = Scorer(loaded, options.profile, calibrate=options.calibrate)
            self.prefix_s = self.scorer.prefix.build_seconds
            self.prefix_stored = self.scorer.prefix_from_disk
            if options.encoder != "none":
                from ..engine.model import load_encoder

                self.encoder = load_encoder(options.encoder, "cpu")
        except Exception as exc:  # reported by info(), so the driver stops with the worker's reason
            self.error = first_line(exc)

    def info(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "host": socket.gethostname(),
            "load_s": self.load_s,
            "prefix_s": self.prefix_s,
            "prefix_stored": self.prefix_stored,
            "labels": list(self.scorer.labels) if self.scorer is not None else [],
        }

    def score(self, block: int, rows: np.ndarray, texts: list[str]) -> ScoredBlock:
        from ..engine.scoring import score_stream

        _test_fault()
        started = time.perf_counter()
        options, labels = self.options, list(self.scorer.labels)
        cached: list[TicketScore] = []
        based: list[TicketScore] = []
        embedded: list[np.ndarray] = []
        stream = score_stream(self.scorer, enumerate(texts), options.batch_size, options.baseline, encoder=self.encoder)
        for batch in stream:
            cached += [s.cached for s in batch if s.cached is not None]
            based += [s.baseline for s in batch if s.baseline is not None]
            embedded += [s.embedding for s in batch if s.embedding is not None]
        if len(cached) != len(texts) or (options.baseline and len(based) != len(texts)):
            raise RuntimeError(f"block {block}: {len(cached)} of {len(texts)} tickets scored")
        return ScoredBlock(
            block,
            np.asarray(rows, dtype=np.int64),
            labels,
            PackedScores.pack(cached, labels),
            PackedScores.pack(based, labels) if options.baseline else None,
            time.perf_counter() - started,
            np.stack(embedded).astype(np.float32) if len(embedded) == len(texts) and embedded else None,
        )


def _test_fault() -> None:
    """Test hook (:data:`FAULT_ENV`): kill this worker process as a crash or an OOM kill would, once per
    marker file; or with "raise", fail every block with an error (retried like any unexpected error)."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    if spec == "raise":
        raise RuntimeError("test fault")
    try:
        os.close(os.open(spec, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return  # some worker died for this marker already
    os._exit(1)


def first_line(exc: BaseException | None) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
