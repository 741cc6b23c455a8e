"""Per-ticket model features, kept compact: what the taught head learns from and predicts on.

A ticket's feature vector is the model's final hidden state at the answer position (576 values for
SmolLM2-135M, 896 for Qwen2.5-0.5B), already computed by the forward pass that scores the labels.
Kept per row so a correction relabels every ticket without another model forward.

Stored as float16: half of float32's memory (200,000 SmolLM2 rows: 230 MB instead of 460 MB) and, on
the dev sets, the same accuracy to the third decimal (the head standardises the features; float16 keeps
~3 significant digits of values of order 1). A PCA to 128 dimensions would cost 49 MB at <=0.5 points,
but needs a fit before the first ticket is stored; random projections lost 1-6 points.

Rows live in fixed blocks of 8,192: a growing file never copies what is stored (doubling one array
copied 150 MB at 131,072 rows, a 60-100 ms stall of the window).
"""

from __future__ import annotations

import numpy as np

STORAGE = np.float16
BLOCK = 8192  # rows per block; the learning code reads in chunks of the same size (views, no copies)


class FeatureStore:
    """Rows x dim features, growing with the table; rows never scored read as NaN."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.dim = 0
        self._blocks: list[np.ndarray] = []
        self._rows = 0

    def ensure(self, rows: int) -> None:
        """Room for ``rows`` rows (the table calls this as it grows)."""
        self._rows = max(self._rows, rows)
        while self.dim and len(self._blocks) * BLOCK < self._rows:
            self._blocks.append(np.full((BLOCK, self.dim), np.nan, dtype=STORAGE))

    def put(self, rows: np.ndarray, features: np.ndarray) -> None:
        """Store float32 features (len(rows) x dim) for these rows; a new dim (another model) starts over."""
        if features.ndim != 2:
            raise ValueError("features must be a 2-D array")
        if features.shape[1] != self.dim:
            self.dim = int(features.shape[1])
            self._blocks = []
        rows = np.asarray(rows, dtype=np.int64)
        self.ensure(int(rows.max()) + 1 if len(rows) else 0)
        values = features.astype(STORAGE)
        for block in np.unique(rows // BLOCK):
            mine = rows // BLOCK == block
            self._blocks[block][rows[mine] % BLOCK] = values[mine]

    def get(self, rows: np.ndarray) -> np.ndarray:
        """float32 features of these rows."""
        return self.view(self._rows)[np.asarray(rows, dtype=np.int64)].astype(np.float32)

    def view(self, rows: int) -> FeatureRows:
        """The first ``rows`` rows as stored (float16), indexable like an array, without copying."""
        return FeatureRows(self._blocks, min(rows, self._rows), self.dim)

    @property
    def nbytes(self) -> int:
        return sum(b.nbytes for b in self._blocks)


class FeatureRows:
    """Rows 0..n-1 of a store: ``rows[a:b]`` within one block is a view, index arrays gather a copy."""

    def __init__(self, blocks: list[np.ndarray], n: int, dim: int) -> None:
        self._blocks, self._n, self.dim = blocks, n, dim

    @property
    def shape(self) -> tuple[int, int]:
        return (self._n, self.dim)

    @property
    def ndim(self) -> int:
        return 2

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, key: slice | np.ndarray) -> np.ndarray:
        if isinstance(key, slice):
            start, stop, step = key.indices(self._n)
            if step == 1 and stop > start and start // BLOCK == (stop - 1) // BLOCK:
                block = self._blocks[start // BLOCK]
                return block[start % BLOCK : (stop - 1) % BLOCK + 1]
            key = np.arange(start, stop, step)
        rows = np.asarray(key, dtype=np.int64)
        out = np.empty((len(rows), self.dim), dtype=STORAGE)
        if len(rows) and (rows.min() < 0 or rows.max() >= self._n):
            raise IndexError("feature row out of range")
        for block in np.unique(rows // BLOCK):
            mine = rows // BLOCK == block
            out[mine] = self._blocks[block][rows[mine] % BLOCK]
        return out
