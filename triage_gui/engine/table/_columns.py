"""Whole-table reads: one value for every row at once (confidences, the taught mask, latencies, the rows
scored by the current version), for the window's counts and the session's masks; numpy over the columns,
never a Python loop over 200,000 rows. A part of :class:`TicketTable`, kept apart so the row store's own
module holds its writes and per-row reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._rows import NONE

if TYPE_CHECKING:
    from ._rows import Grow


class WholeColumns:
    """The table's columns read whole; :class:`TicketTable` holds the columns."""

    if TYPE_CHECKING:
        _n: int
        version: int
        label_vocab: list[str]
        _label_ids: np.ndarray
        _confidence: Grow
        _final: Grow
        _taught: Grow
        _previous: Grow
        _score_version: Grow
        _latency: Grow
        _flags: Grow
        _first: Grow
        _first_conf: Grow
        _read_seq: Grow
        _logprobs: Grow
        bias: np.ndarray

    def confidences(self) -> np.ndarray:
        """Confidence of every row's shown label (NaN where none)."""
        n = self._n
        out = self._confidence.data[:n].copy()
        out[self._final.data[:n] == NONE] = np.nan
        return out

    def taught_mask(self) -> np.ndarray:
        return self._taught.data[: self._n] != NONE

    def previous_ids(self) -> np.ndarray:
        """Vocab ids of the labels rows showed under the previous prompt version (NONE: none)."""
        return self._previous.data[: self._n]

    def current_index(self, vocab_ids: np.ndarray) -> np.ndarray:
        """Vocab ids -> indices into the current labels (-1: not a current label, or NONE)."""
        lookup = np.full(len(self.label_vocab) + 1, -1, dtype=np.int64)
        lookup[self._label_ids.astype(np.int64)] = np.arange(len(self._label_ids))
        ids = np.asarray(vocab_ids, dtype=np.int64)
        return np.where(ids >= 0, lookup[np.clip(ids, 0, None)], -1)

    def latencies(self) -> np.ndarray:
        """Latency of every row scored by the current version, in the order the language model read them (the
        least sure first, not file order: the chart's newest point is the latest ticket read)."""
        n = self._n
        rows = np.flatnonzero(self._score_version.data[:n] == self.version)
        rows = rows[np.argsort(self._read_seq.data[rows], kind="stable")]
        return self._latency.data[rows]

    def first_pass_ids(self) -> np.ndarray:
        """Vocab ids of every row's first-pass label under this prompt version (NONE: none yet), kept after
        the language model has read the row: what its reading changed is measured against it."""
        return self._first.data[: self._n]

    def first_pass_confidence(self) -> np.ndarray:
        """The first pass's confidence in its label (NaN: no first-pass label)."""
        return self._first_conf.data[: self._n]

    def first_pass_label(self, row: int) -> str | None:
        v = int(self._first.data[row])
        return None if v == NONE else self.label_vocab[v]

    def llm_ids(self) -> np.ndarray:
        """Vocab ids of the language model's own label of every row (the argmax of its calibrated prompt
        scores; NONE where this version has not read the row), whatever the combination decides."""
        n = self._n
        out = np.full(n, NONE, dtype=np.int64)
        rows = np.flatnonzero(self._score_version.data[:n] == self.version)
        if len(rows) and len(self._label_ids):
            logits = self._logprobs.data[rows] + self.bias  # the calibrated softmax's argmax
            out[rows] = self._label_ids[np.argmax(logits, axis=1)]
        return out

    def llm_label(self, row: int) -> str | None:
        """The language model's own label of the row (see :meth:`llm_ids`), None before it read the row."""
        if self._score_version.data[row] != self.version or not len(self._label_ids):
            return None
        return self.label_vocab[int(self._label_ids[int(np.argmax(self._logprobs.data[row] + self.bias))])]

    def scored_mask(self) -> np.ndarray:
        return self._score_version.data[: self._n] == self.version

    def flags_count(self) -> tuple[int, int]:
        """(truncated, split fallback) among the rows scored by this version."""
        flags = self._flags.data[: self._n][self.scored_mask()]
        return int(np.count_nonzero(flags & 1)), int(np.count_nonzero(flags & 2))
