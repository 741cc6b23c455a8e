"""The pieces a ticket table is built of: a record to append, a numpy column that grows, and the codes of
where a label came from."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np


class Source(IntEnum):
    """Where a row's label came from, as the table keeps it (one int8 a row), and ``shown``, the words the
    table's column, the exports' ``label_source``, the detail pane and the random checks use. Not to be
    confused with the heads' feature sources (``engine.learning``), one of which is also the prompt's."""

    UNLABELLED = 0
    PROMPT = 1  # the language model's calibrated label scores
    LEARNED = 2  # the classifier, with the language model's heads
    TAUGHT = 3  # the lead's own label
    FIRST = 4  # the classifier's first pass: its prompt-free heads, before the language model read the ticket

    @property
    def shown(self) -> str:
        return SOURCE_NAMES[self]


SOURCES = tuple(Source)  # by code: ``Source(code)`` cost 4x the rest of reading a row's source
SOURCE_NAMES = ("", "prompt", "learned", "taught", "first pass")  # by code: read for every row shown or exported
NONE = -1  # no label / no version
BLANK = "blank ticket text"  # the problem of a record with no text (the reader's and the table's)


@dataclass
class NewRow:
    """A record to append: its values by column name, the ticket text, where it came from."""

    values: dict[str, str]
    text: str
    source: str = ""
    problem: str | None = None  # why it cannot be scored (blank text, bad JSON line); kept, unlabelled
    language: str | None = None  # detected language code ("" unknown); None: not detected yet


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


JOIN = "\n"  # several text columns read as one ticket: subject, then body, as an e-mail shows them
SEVERAL = " + "  # how a choice of several text columns is written ("subject + body")


def joined(values: Iterable[str]) -> str:
    """Several text columns' values as one ticket: each stripped, the empty ones left out, :data:`JOIN` between
    (the table's rows, :meth:`TicketTable.set_texts`, and a ``--train`` file's, read alike)."""
    return JOIN.join(v for v in (x.strip() for x in values) if v)


def text_parts(column: str, columns: Sequence[str]) -> list[str]:
    """The columns a text-column choice reads: one column's name (even one with " + " in it), or
    several joined by " + ", in that order; the lead chose subject and body to be read together."""
    if column in columns or SEVERAL not in column:
        return [column]
    parts = column.split(SEVERAL)
    return parts if all(p in columns for p in parts) else [column]
