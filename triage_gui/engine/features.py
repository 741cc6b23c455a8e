"""Per-ticket model features, kept compact: what the taught head learns from and predicts on.

A ticket's feature vector is the model's final hidden state at the answer position (576 values for
SmolLM2-135M, 896 for Qwen2.5-0.5B), already computed by the forward pass that scores the labels.
Kept per row so a correction relabels every ticket without another model forward. Stored as float16:
half of float32's memory (200,000 SmolLM2 rows: 230 MB instead of 460 MB) and, measured on the
dev sets in the README, no change in the taught head's accuracy (the head standardises the features;
float16 keeps ~3 significant digits of values of order 1).
"""

from __future__ import annotations

import numpy as np

STORAGE = np.float16


class FeatureStore:
    """Rows x dim features, growing with the table; rows never scored read as NaN."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.dim = 0
        self._data = np.zeros((0, 0), dtype=STORAGE)
        self._rows = 0

    def ensure(self, rows: int) -> None:
        """Room for ``rows`` rows (the table calls this as it grows)."""
        self._rows = max(self._rows, rows)
        if self.dim and rows > len(self._data):
            bigger = np.full((max(rows, 2 * len(self._data), 1024), self.dim), np.nan, dtype=STORAGE)
            bigger[: len(self._data)] = self._data
            self._data = bigger

    def put(self, rows: np.ndarray, features: np.ndarray) -> None:
        """Store float32 features (len(rows) x dim) for these rows; a new dim (another model) starts over."""
        if features.ndim != 2:
            raise ValueError("features must be a 2-D array")
        if features.shape[1] != self.dim:
            self.dim = int(features.shape[1])
            self._data = np.full((max(self._rows, 1024), self.dim), np.nan, dtype=STORAGE)
        self.ensure(int(rows.max()) + 1 if len(rows) else 0)
        self._data[rows] = features.astype(STORAGE)

    def get(self, rows: np.ndarray) -> np.ndarray:
        """float32 features of these rows."""
        if not self.dim:
            return np.zeros((len(rows), 0), dtype=np.float32)
        return self._data[rows].astype(np.float32)

    def view(self, rows: int) -> np.ndarray:
        """The first ``rows`` rows as stored (float16, no copy): for statistics and prediction in chunks."""
        return self._data[:rows]

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)
