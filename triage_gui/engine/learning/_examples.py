"""What the heads learn from and read, by feature source name (:mod:`head_table`): training tickets
(:class:`Examples`), table rows captured for a fit (:class:`RowSource`), and the spread of the sources a
head standardises (:class:`Scaler`). Carried by name, so a head over a new source needs no new field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..table import BLOCK
from . import _head_table as table
from ._head_table import Rows

CHUNK = BLOCK  # rows predicted at a time: a view of one feature block, no copy
Values = dict[str, np.ndarray]  # a table source's name -> (n, width) values (width 0 or NaN rows: none)


def _nan_rows(n: int, dim: int) -> np.ndarray:
    return np.full((n, dim), np.nan, dtype=np.float32)


def _stack(parts: Sequence[np.ndarray], lengths: Sequence[int]) -> np.ndarray:
    """Concatenate row blocks whose width may be 0 (no such features): those become NaN rows."""
    dim = max((p.shape[1] for p in parts if p.ndim == 2), default=0)
    blocks = [p if p.ndim == 2 and p.shape[1] == dim else _nan_rows(n, dim) for p, n in zip(parts, lengths)]
    return np.concatenate(blocks).astype(np.float32) if blocks else _nan_rows(0, dim)


def _empty(n: int) -> np.ndarray:
    return np.zeros((n, 0), np.float32)


@dataclass
class Examples:
    """Training tickets: per ticket the values of each table source the heads read, by source name
    (``hidden``, ``embeddings``, ``prompt``, …; NaN rows where a ticket has none, a missing name or width 0
    where no ticket has any), text, label index and table row (None: not loaded)."""

    features: Values
    texts: list[str]
    labels: np.ndarray
    rows: list[int | None] = field(default_factory=list)
    weight: np.ndarray | None = None  # per ticket in the fits (None: 1 each); the prompt's: PSEUDO_WEIGHT

    def __len__(self) -> int:
        return len(self.labels)

    def weights(self) -> np.ndarray:
        return np.ones(len(self), np.float64) if self.weight is None else self.weight

    def values(self, name: str) -> np.ndarray:
        return self.features.get(name, _empty(len(self)))

    def subset(self, idx: np.ndarray) -> Examples:
        rows = self.rows or [None] * len(self)
        return Examples(
            {name: v[idx] for name, v in self.features.items()},
            [self.texts[i] for i in idx],
            self.labels[idx],
            [rows[i] for i in idx],
            self.weights()[idx],
        )

    @staticmethod
    def concat(parts: Sequence[Examples]) -> Examples:
        parts = [p for p in parts if len(p)]
        lengths = [len(p) for p in parts]
        names = dict.fromkeys(n for p in parts for n in p.features)
        return Examples(
            {n: _stack([p.values(n) for p in parts], lengths) for n in names},
            [t for p in parts for t in p.texts],
            np.concatenate([p.labels for p in parts]) if parts else np.zeros(0, np.int64),
            [r for p in parts for r in (p.rows or [None] * len(p))],
            np.concatenate([p.weights() for p in parts]) if parts else np.zeros(0),
        )


@dataclass
class RowSource:
    """What the heads read of table rows 0..n-1, captured on the loop's thread before a fit is handed to
    the learning thread, by source name: views of the feature blocks (rows below n are never rewritten
    while a version lasts) and a copy of the calibrated prompt probabilities (NaN rows: not scored by this
    version); ``present``: each source's rows that had its values when captured (missing or None: all;
    ``hidden``: this version's state, ``embeddings``: later rows may be mid-write)."""

    features: dict[str, Rows]
    n: int
    present: dict[str, np.ndarray | None] = field(default_factory=dict)

    def values(self, name: str) -> Rows:
        return self.features.get(name, _empty(self.n))


@dataclass
class Scaler:
    """Mean and spread of each scaled head's features over the loaded tickets: the hidden state's
    (standardised), the embeddings' (centred, :attr:`HeadRow.centre`)."""

    spread: dict[str, Spread]

    @staticmethod
    def fit(source: RowSource) -> Scaler:
        return Scaler({h.source.name: Spread.fit(source.values(h.source.name), source.n,
                       source.present.get(h.source.name), h.centre) for h in table.HEADS if h.scaled})  # fmt: skip

    def fill(self, train: Examples) -> Scaler:
        """Sources nothing loaded has yet (nothing scored): their spread over the examples."""
        spread = dict(self.spread)
        for name, s in self.spread.items():
            values = train.values(name)
            if not s.mean.any() and len(train) and values.shape[1]:
                spread[name] = Spread.fit(values[~np.isnan(values[:, 0])], centre=s.centre)
        return Scaler(spread)

    def apply(self, name: str, features: np.ndarray) -> np.ndarray:
        return self.spread[name].apply(features) if name in self.spread else features


@dataclass
class Spread:
    """One source's mean and spread; ``centre``: only the mean is taken away, and each row is put back on
    the unit sphere (the embeddings: their direction is what the encoder means)."""

    mean: np.ndarray
    scale: np.ndarray
    centre: bool = False

    @staticmethod
    def fit(features: Rows, rows: int | None = None, scored: np.ndarray | None = None, centre: bool = False) -> Spread:
        """From the first ``rows`` rows (those ``scored`` marks), in chunks (never a float32 copy of
        200,000 x 576 values). Centred, the mean of n rows is taken times n / (n + 1), as if the origin were
        one more row: one ticket alone is never centred onto itself (a zero vector), and on it the centring
        changes nothing (its direction is kept); at 40 tickets it is 0.98 of the mean."""
        total = square = None
        n = 0
        if features.ndim != 2 or not features.shape[1]:
            return Spread(np.zeros(0, np.float32), np.ones(0, np.float32), centre)
        end = len(features) if rows is None else min(rows, len(features))
        for start in range(0, end, CHUNK):
            stop = min(end, start + CHUNK)
            chunk = features[start:stop]  # float32; sums per chunk in float64
            keep = ~np.isnan(chunk[:, 0])
            if scored is not None:
                keep &= scored[start:stop]
            chunk = chunk[keep]
            part = chunk.sum(axis=0, dtype=np.float64)
            total = part if total is None else total + part
            if not centre:  # the spread: centred rows are put back on the unit sphere instead
                part_sq = np.einsum("ij,ij->j", chunk, chunk, dtype=np.float64)
                square = part_sq if square is None else square + part_sq
            n += len(chunk)
        if total is None or not n:
            dim = features.shape[1] if features.ndim == 2 else 0
            return Spread(np.zeros(dim, np.float32), np.ones(dim, np.float32), centre)
        mean = total / n
        if centre or square is None:  # (square is None only when centred)
            return Spread((mean * (n / (n + 1))).astype(np.float32), np.ones(len(mean), np.float32), True)
        var = np.maximum(square / n - mean * mean, 0)
        return Spread(mean.astype(np.float32), np.sqrt(var + 1e-6).astype(np.float32))

    def apply(self, features: np.ndarray) -> np.ndarray:
        moved = features.astype(np.float32) - self.mean
        if self.centre:  # row norms by einsum: 0.05 s at 100,000 x 384 against np.linalg.norm's 0.49 s
            moved /= np.maximum(np.sqrt(np.einsum("ij,ij->i", moved, moved))[:, None], np.float32(1e-6))
            return moved
        return moved / self.scale


def _read(features: Rows, where: slice | np.ndarray, n: int) -> np.ndarray:
    """Rows of a feature view, or an empty (n, 0) block when the view has none (no such features yet)."""
    if features.ndim != 2 or not features.shape[1] or len(features) == 0:
        return np.zeros((n, 0), dtype=np.float32)
    if isinstance(where, slice) and where.stop > len(features):
        part = features[where.start : len(features)]
        return np.concatenate([part, _nan_rows(n - len(part), features.shape[1])])
    if not isinstance(where, slice) and len(where) and where.max() >= len(features):
        out = _nan_rows(n, features.shape[1])
        inside = where < len(features)
        out[inside] = features[where[inside]]
        return out
    return np.asarray(features[where], dtype=np.float32)
