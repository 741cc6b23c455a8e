"""The pieces a ticket table is built of: a record to append, a numpy column that grows, and the codes of
where a label came from."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Where a row's label came from; 0: no label yet. FIRST: the classifier's first pass (the prompt-free heads,
# before the language model has read the ticket); LEARNED: the classifier with the language model's heads.
PROMPT, LEARNED, TAUGHT, FIRST = 1, 2, 3, 4
SOURCE_NAMES = {0: "", PROMPT: "prompt", LEARNED: "learned", TAUGHT: "taught", FIRST: "first pass"}
NONE = -1  # no label / no version
BLANK = "blank ticket text"  # the problem of a record with no text (the reader's and the table's)


@dataclass
class NewRow:
    """A record to append: its values by column name, the ticket text, where it came from."""

    values: dict[str, str]
    text: str
    source: str = ""
    problem: str | None = None  # why it cannot be scored (blank text, bad JSON line); kept, unlabelled


class Grow:
    """A numpy array that grows by doubling along axis 0."""

    def __init__(self, dtype: type | np.dtype, width: int | None = None, fill: float = 0) -> None:
        self.dtype, self.width, self.fill = np.dtype(dtype), width, fill
        self.data = self._empty(1024)

    def _empty(self, n: int) -> np.ndarray:
        shape = (n,) if self.width is None else (n, self.width)
        return np.full(shape, self.fill, dtype=self.dtype)

    def ensure(self, n: int) -> None:
        if n > len(self.data):
            bigger = self._empty(max(n, 2 * len(self.data)))
            bigger[: len(self.data)] = self.data
            self.data = bigger
