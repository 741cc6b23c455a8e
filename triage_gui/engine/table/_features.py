"""Per-ticket model features, kept compact: what the taught head learns from and predicts on.

Two stores per table: the LLM's final hidden state at the answer position (576 values for SmolLM2-135M,
896 for Qwen2.5-0.5B), already computed by the forward pass that scores the labels, and the sentence
encoder's embedding (384 values for all-MiniLM-L6-v2). Kept per row so a correction relabels every
ticket without another model forward.

Embeddings as int8 with a row scale too: 386 bytes a ticket (77 MB for 200,000 rows, against 307 MB as
float32); on two dev sets the combination's accuracy moved by at most 0.3 points at any K.

Stored as int8 with one float16 scale per row (578 bytes a SmolLM2 ticket, 116 MB for 200,000 rows,
against 460 MB as float32). Measured on the dev sets (README): the taught classifier's accuracy moved by
at most 0.8 points either way (float16: no change; a PCA to 128 dimensions: up to 0.5 points lost, but
it needs a fit before the first ticket is stored; random projections: 1-6 points lost). With the model
(~940 MB resident) that keeps a 200,000-row file near the 1.2 GB budget.

Kept per model: a store has a ``key`` (the encoder's identity, :func:`engine.model.encoder_key`), and a put
under another key, or of another width, starts over. Keyed by width alone, all-MiniLM-L6-v2 and
multilingual-e5-small (384 both) mixed silently: rows embedded before a switch kept the old encoder's
vectors beside the new one's.

Rows live in fixed blocks of 8,192: a growing file never copies what is stored (doubling one array
copied 150 MB at 131,072 rows, a 60-100 ms stall of the window).
"""

from __future__ import annotations

import numpy as np

BLOCK = 8192  # rows per block; the learning code reads in chunks of the same size


class FeatureStore:
    """Rows x dim features, growing with the table; rows never scored read as NaN."""

    def __init__(self) -> None:
        self.clear()

    def clear(self, key: str = "") -> None:
        """Drop every row; the store is for the model ``key`` from now on."""
        self.key = key
        self.dim = 0
        self._values: list[np.ndarray] = []  # int8 (BLOCK, dim)
        self._scales: list[np.ndarray] = []  # float16 (BLOCK,); NaN: never scored
        self._rows = 0

    def ensure(self, rows: int) -> None:
        """Room for ``rows`` rows (the table calls this as it grows)."""
        self._rows = max(self._rows, rows)
        while self.dim and len(self._values) * BLOCK < self._rows:
            self._values.append(np.zeros((BLOCK, self.dim), dtype=np.int8))
            self._scales.append(np.full(BLOCK, np.nan, dtype=np.float16))

    def put(self, rows: np.ndarray, features: np.ndarray, key: str | None = None) -> None:
        """Store float32 features (len(rows) x dim) for these rows; another model's (a new ``key``; None: the
        store's own) or a new dim starts over, so one store never holds two models' features."""
        if features.ndim != 2:
            raise ValueError("features must be a 2-D array")
        if key is not None and key != self.key:
            rows_before = self._rows
            self.clear(key)
            self._rows = rows_before  # the table's rows stay; their features are gone
        if features.shape[1] != self.dim:
            self.dim = int(features.shape[1])
            self._values, self._scales = [], []
        rows = np.asarray(rows, dtype=np.int64)
        self.ensure(int(rows.max()) + 1 if len(rows) else 0)
        values = np.asarray(features, dtype=np.float32)
        scale = (np.abs(values).max(axis=1) / 127).astype(np.float16)
        scale[scale == 0] = 1
        quantised = np.clip(np.round(values / scale.astype(np.float32)[:, None]), -127, 127).astype(np.int8)
        for block in np.unique(rows // BLOCK):
            mine = rows // BLOCK == block
            self._values[block][rows[mine] % BLOCK] = quantised[mine]
            self._scales[block][rows[mine] % BLOCK] = scale[mine]

    def get(self, rows: np.ndarray) -> np.ndarray:
        """float32 features of these rows ((n, 0) before any row has features)."""
        if not self.dim:
            return np.zeros((len(rows), 0), dtype=np.float32)
        return self.view(self._rows)[np.asarray(rows, dtype=np.int64)]

    def view(self, rows: int) -> FeatureRows:
        """The first ``rows`` rows, indexable like a float32 array (dequantised on read). Before the first
        row is scored the dimension is unknown: the view is empty."""
        return FeatureRows(self._values, self._scales, min(rows, self._rows) if self.dim else 0, self.dim)

    def present(self, rows: int) -> np.ndarray:
        """Which of the first ``rows`` rows hold features (of this store's model)."""
        out = np.zeros(rows, dtype=bool)
        for block, scales in enumerate(self._scales):
            start = block * BLOCK
            if start >= rows:
                break
            out[start : start + BLOCK] = ~np.isnan(scales[: rows - start])
        return out

    @property
    def nbytes(self) -> int:
        return sum(v.nbytes for v in self._values) + sum(s.nbytes for s in self._scales)


def roundtrip(features: np.ndarray) -> np.ndarray:
    """Features as a store gives them back (quantised and restored): for features kept elsewhere, such as
    the baseline's, so both paths reach the learned head through the same rounding."""
    store = FeatureStore()
    store.put(np.arange(len(features)), features)
    return store.get(np.arange(len(features)))


class FeatureRows:
    """Rows 0..n-1 of a store, read as float32: ``rows[a:b]`` and ``rows[index_array]``."""

    def __init__(self, values: list[np.ndarray], scales: list[np.ndarray], n: int, dim: int) -> None:
        self._values, self._scales, self._n, self.dim = values, scales, n, dim

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
                block, a, b = start // BLOCK, start % BLOCK, (stop - 1) % BLOCK + 1
                return self._values[block][a:b] * self._scales[block][a:b, None].astype(np.float32)
            key = np.arange(start, stop, step)
        rows = np.asarray(key, dtype=np.int64)
        out = np.empty((len(rows), self.dim), dtype=np.float32)
        if len(rows) and (rows.min() < 0 or rows.max() >= self._n):
            raise IndexError("feature row out of range")
        for block in np.unique(rows // BLOCK):
            mine = rows // BLOCK == block
            local = rows[mine] % BLOCK
            out[mine] = self._values[block][local] * self._scales[block][local, None].astype(np.float32)
        return out
