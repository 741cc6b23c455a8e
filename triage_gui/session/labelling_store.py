"""The language model's scores of the last file per prompt version, kept in the user cache: reopening the same
file with the same prompt and model reads them back instead of running the model over every row again (2,000
tickets took 6 minutes in a walkthrough; read back, they land with the file).

One store per prompt version: its key is the model's identity and the prompt prefix's tokens (the stored
prefix's key, :func:`engine.model.prefix_store.key`: the weights' files, the code, dtype and device) with the
prompt's content hash. A store keeps, per ticket text (a 128-bit digest of it), the label log-probabilities
and the hidden-state features exactly as the scorer gave them (float32), the latency and the flags; a
checksum over the key and every array is checked on reading, and a store that fails it (or any other check)
is ignored with a log line, never used. Written atomically (:mod:`engine.files`) when a run ends; the newest
:data:`KEEP` stores are kept. A prompt with several fields keeps a store per field, each under its own scorer's
key (the first field's scorer reads its first field alone, so it is keyed by that field's part): a row takes its
stored scores at once when every field has one (:func:`stored_for_fields`); else the fields read it together and
a field whose score is kept is not read again (:func:`kept_scores`: a Save that changed only the priority reads
only the priority). A new version's memory takes over an older one's (its store as read, and what this session
read since) when they read alike, same key and calibration (:func:`read_memories`): the store is not read again.
Files over :data:`MAX_ROWS` rows are not stored (576 float32 features a SmolLM2 ticket: 46 MB at 20,000 rows).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.files import atomic_path
from ..engine.table import ScoredBatch, TicketScore, TicketTable, calibrated_probs

log = logging.getLogger(__name__)
FORMAT = 1
MAX_ROWS = 20_000
KEEP = 16


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _checksum(key: str, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256(key.encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


@dataclass
class StoredScores:
    """One prompt version's stored scores, looked up by ticket text."""

    index: dict[bytes, int]
    logprobs: np.ndarray  # rows x labels, float32
    features: np.ndarray  # rows x dim, float32 (dim 0: the scorer gave none)
    latency: np.ndarray  # float32, ms
    flags: np.ndarray  # uint8: 1 truncated, 2 split fallback

    def __len__(self) -> int:
        return len(self.index)

    def score(self, text: str, labels: Sequence[str], bias: np.ndarray) -> TicketScore | None:
        """The score the scorer gave this text, or None if it is not stored (or for other labels)."""
        i = self.index.get(digest(text))
        if i is None or self.logprobs.shape[1] != len(labels):
            return None
        logprobs = self.logprobs[i]
        probs = calibrated_probs(logprobs, bias)
        best = int(np.argmax(probs))
        flags = int(self.flags[i])
        features = self.features[i].copy() if self.features.shape[1] else None
        return TicketScore(
            labels[best], float(probs[best]), probs.tolist(), logprobs.tolist(), float(self.latency[i]),
            bool(flags & 1), bool(flags & 2), features=features,
        )  # fmt: skip


class ScoreStore:
    """The stores in one folder (None: storing is off, as in the session tests on the fake engine)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".npz")

    def read(self, key: str | None) -> StoredScores | None:
        """The verified store for this key, or None (none, or damaged: logged and ignored)."""
        path = self._path(key) if key else None
        if path is None or not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
            meta = json.loads(arrays.pop("meta").tobytes().decode("utf-8"))
            if meta.get("format") != FORMAT or meta.get("key") != key:
                raise ValueError("written for another model, prompt or format")
            if meta.get("checksum") != _checksum(key or "", arrays):
                raise ValueError("checksum mismatch")
            texts, logprobs, features = arrays["texts"], arrays["logprobs"], arrays["features"]
            n = len(texts)
            if not (len(logprobs) == len(features) == len(arrays["latency"]) == len(arrays["flags"]) == n):
                raise ValueError("arrays of different lengths")
            index = {bytes(t): i for i, t in enumerate(texts)}
        except Exception as exc:  # truncated, altered, foreign: never used
            log.warning("stored scores %s ignored: %s", path.name, exc)
            return None
        return StoredScores(index, logprobs, features, arrays["latency"], arrays["flags"])

    def write(self, key: str | None, texts: Sequence[str], scores: Sequence[TicketScore]) -> bool:
        """Keep these scores for this key, replacing the last file's (on a worker thread: ~0.1 s per
        1,000 SmolLM2 rows). False when off, too many rows, or the write failed (logged)."""
        path = self._path(key) if key else None
        if path is None or not scores or len(scores) > MAX_ROWS:
            return False
        try:
            dims = {0 if s.features is None else len(s.features) for s in scores}
            dim = dims.pop() if len(dims) == 1 else 0
            features = np.zeros((len(scores), dim), np.float32)
            if dim:
                features = np.stack([np.asarray(s.features, np.float32) for s in scores])
            arrays = {
                "texts": np.frombuffer(b"".join(digest(t) for t in texts), dtype="S16").copy(),
                "logprobs": np.array([s.logprobs for s in scores], dtype=np.float32),
                "features": features,
                "latency": np.array([s.latency_ms for s in scores], dtype=np.float32),
                "flags": np.array([int(s.truncated) | 2 * int(s.split_fallback) for s in scores], np.uint8),
            }
            meta = {"format": FORMAT, "key": key, "checksum": _checksum(key or "", arrays)}
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_path(path, ".npz") as tmp, open(tmp, "wb") as handle:
                arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
                np.savez(handle, **arrays)  # type: ignore[arg-type]
        except Exception as exc:
            log.warning("scores not stored: %s", exc)
            return False
        self._prune(path)
        return True

    def _prune(self, kept: Path) -> None:
        """The newest :data:`KEEP` stores stay."""
        try:
            stores = sorted(kept.parent.glob("*.npz"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in stores[KEEP:]:
                if old != kept:
                    old.unlink(missing_ok=True)
        except OSError as exc:
            log.info("old stored scores not pruned: %s", exc)


class ScoreMemory:
    """The session's side of the store: this prompt version's scores as the scorer gave them (text -> score,
    up to :data:`MAX_ROWS`; a file reopened in the same session finds them too), the store read when the
    version was built, and what is still to be written."""

    def __init__(self, store: ScoreStore) -> None:
        self.store = store
        self.key: str | None = None
        self.bias: np.ndarray | None = None  # the calibration the memo's label probabilities were made with
        self.stored: StoredScores | None = None
        self.memo: dict[str, TicketScore] = {}
        self._written = 0  # memo entries the store holds already

    async def read(
        self,
        scorer: Any,
        make_key: Callable[[Any], str | None] | None,
        engine: Any,
        files: Any,
        older: Sequence[ScoreMemory] = (),
    ) -> None:
        """A new prompt version's scorer: its key (on the engine thread), then what an ``older`` memory of the same
        key and calibration holds (a field a Save left as it was: its store as read then and what this session
        read since, written or not), else its store (on the file thread)."""
        self.key, self.bias, self.stored, self.memo, self._written = None, None, None, {}, 0
        if self.store.folder is None or make_key is None:
            return
        same = None
        try:
            key, bias = await engine.run(make_key, scorer), bias_of(scorer)
            same = next((o for o in older if o.reads_as(key, bias)), None)
            stored = same.stored if same is not None else await files.run(self.store.read, key)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # no stored scores: the language model reads every row
            log.info("stored scores not read: %s", exc)
            return
        self.key, self.bias, self.stored = key, bias, stored
        if same is not None:
            self.memo, self._written = same.memo, same._written

    def reads_as(self, key: str | None, bias: np.ndarray) -> bool:
        """Whether a scorer of this key and calibration reads as this memory's did."""
        return key is not None and key == self.key and self.bias is not None and np.array_equal(self.bias, bias)

    def found(self, table: TicketTable, rows: range, bias: np.ndarray) -> ScoredBatch | None:
        """The rows of ``rows`` not scored yet whose text has a score kept (None: none)."""
        if self.key is None:
            return None
        out: list[tuple[int, TicketScore]] = []
        for row in rows:
            if row in table.problems or table.scored(row):
                continue
            if (score := self.lookup(table.texts[row], table.labels, bias)) is not None:
                out.append((row, score))
        return ScoredBatch.of_rows([r for r, _ in out], [s for _, s in out]) if out else None

    def lookup(self, text: str, labels: Sequence[str], bias: np.ndarray) -> TicketScore | None:
        """This text's score kept for this version (read in this session, or stored), for these labels and
        calibration; None when there is none."""
        if self.key is None:
            return None
        score = self.memo.get(text)
        if score is None and self.stored is not None:
            score = self.stored.score(text, labels, bias)
            if score is not None and len(self.memo) < MAX_ROWS:
                self.memo[text] = score
                self._written += 1
        return score

    def remember(self, table: TicketTable, batch: ScoredBatch, scored: Sequence[int]) -> None:
        """Scores the language model just gave (``scored``: the rows of ``batch`` the table took)."""
        self.keep(table, batch.rows, batch.scores, scored)

    def keep(
        self, table: TicketTable, rows: Sequence[int], scores: Sequence[TicketScore | None], scored: Sequence[int]
    ) -> None:
        """Scores of these ``rows`` (a further field's, whose rows are the table's), those of ``scored`` kept."""
        if self.key is None or not scored:
            return
        by_row = dict(zip(rows, scores))
        for row in scored:
            score = by_row.get(row)
            if score is not None and len(self.memo) < MAX_ROWS:
                self.memo[table.texts[row]] = score

    def to_write(self) -> tuple[str, list[str], list[TicketScore]] | None:
        """What a run's end should write (None: nothing new since the last write)."""
        if self.key is None or len(self.memo) <= self._written:
            return None
        self._written = len(self.memo)
        return self.key, list(self.memo), list(self.memo.values())


def bias_of(scorer: Any) -> np.ndarray:
    """The scorer's calibration (its label prior's log; zeros where it has none), as the stored scores take it."""
    labels = list(getattr(scorer, "labels", []))
    return np.asarray(getattr(scorer, "bias", np.zeros(len(labels))), dtype=np.float32)


async def read_memories(
    older: Sequence[ScoreMemory],
    scorers: Sequence[Any],
    make_key: Callable[[Any], str | None] | None,
    engine: Any,
    files: Any,
) -> list[ScoreMemory]:
    """A new version's memory per scorer (the first field's, then each further field's), each taking over an
    ``older`` memory of the same key and calibration (a field moved, or another field changed), else read
    from its store."""
    out = []
    for scorer in scorers:
        memory = ScoreMemory(older[0].store)
        await memory.read(scorer, make_key, engine, files, older)
        out.append(memory)
    return out


def kept_scores(
    table: TicketTable, rows: Sequence[int], scorers: Sequence[Any], memories: Sequence[ScoreMemory]
) -> list[list[TicketScore | None]]:
    """Per scorer (a field's, with its memory), the score kept of each row's text, or None (to be read)."""
    out = []
    for scorer, memory in zip(scorers, memories, strict=True):
        labels, bias = list(scorer.labels), bias_of(scorer)
        out.append([memory.lookup(table.texts[row], labels, bias) for row in rows])
    return out


def stored_for_fields(
    table: TicketTable, batch: ScoredBatch, scorers: Sequence[Any], memories: Sequence[ScoreMemory]
) -> ScoredBatch | None:
    """A prompt with several fields: of ``batch`` (rows whose first field's score is kept), the rows whose every
    further field's score is kept too (each field's own store: its scorer's key is its own prefix and part of
    the prompt), with those scores (None: no such row). A row is read for every field in one micro-batch, so a
    row short of one field's score is read again for all of them."""
    if len(memories) != len(scorers):
        return None
    found = kept_scores(table, batch.rows, scorers, memories)
    keep = [i for i in range(len(batch.rows)) if all(scores[i] is not None for scores in found)]
    if not keep:
        return None
    none: list[None] = [None] * len(keep)  # no baseline, no embedding: the first pass has its own
    more = [([scores[i] for i in keep], none) for scores in found]
    return ScoredBatch([batch.rows[i] for i in keep], [batch.scores[i] for i in keep], none, none, more)


def kept_batches(
    table: TicketTable, batch: ScoredBatch, scorers: Sequence[Any], memories: Sequence[ScoreMemory]
) -> list[ScoredBatch]:
    """What rows whose first field's score is kept (``batch``) take with no forward pass, in order: where every
    further field's score is kept too, all of them (:func:`stored_for_fields`); then the first field's alone for
    the rest, the run reading their further fields (``session.fields.FieldLabels.unread``). After a Save that changed
    only the tone the queue looked unread, its labels the first pass's, until the run came by each row (W17)."""
    if not scorers:
        return [batch]
    whole = stored_for_fields(table, batch, scorers, memories)
    done = set(whole.rows) if whole is not None else set()
    rest = [(r, s) for r, s in zip(batch.rows, batch.scores, strict=True) if r not in done]
    first = ScoredBatch.of_rows([r for r, _ in rest], [s for _, s in rest]) if rest else None
    return [b for b in (whole, first) if b is not None]
