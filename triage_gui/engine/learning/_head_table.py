"""The heads of the taught classifier as one table: a head is one row, and everything that fits, weighs,
combines, evaluates or names heads reads this table (:mod:`heads`, :mod:`combination`, ``eval``, the
status bar's tooltip). Adding a head is adding a row to :data:`HEADS` (and, for features the table does not
keep yet, a :class:`TableFeatures` that says where they are).

A head reads one feature source: a per-row block the ticket table keeps (:class:`TableFeatures`: which
store, which rows have it now) or the n-gram store's counts of the ticket text (:class:`NGrams`). Training
tickets (``Examples``) and captured table rows (``RowSource``) carry the table sources' values by source
name, so a new head over a new source needs no new field anywhere.

Only numpy here: the window imports this table (its tooltip) without scikit-learn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..table import FeatureRows, TicketTable

Rows = np.ndarray | FeatureRows  # the table's int8 features (or any array, in tests)


@dataclass(frozen=True)
class TableFeatures:
    """A feature block the ticket table keeps per row: rows 0..n-1 as a fit reads them (a view, no copy,
    where the store allows), copies of some rows, and the rows that have it now (``present``: the current
    prompt version's scores, the embedded rows; None: every row, NaN where missing). ``encoder``: computed
    by the sentence encoder (a table without it is weighted with the heads' ``no_encoder`` weights)."""

    name: str
    view: Callable[[TicketTable, int], Rows]
    get: Callable[[TicketTable, np.ndarray], np.ndarray]
    present: Callable[[TicketTable], np.ndarray] | None = None
    encoder: bool = False


@dataclass(frozen=True)
class NGrams:
    """The n-gram store's TF-IDF of the ticket text (:mod:`lexical`): its kind, and the fewest tickets an
    n-gram must be seen in to be learned from."""

    name: str
    min_df: int = 1


HIDDEN = TableFeatures(
    "hidden", lambda t, n: t.features.view(n), lambda t, rows: t.features.get(rows), lambda t: t.scored_mask()
)
EMBEDDINGS = TableFeatures(
    "embeddings",
    lambda t, n: t.embeddings.view(n),
    lambda t, rows: t.embeddings.get(rows),
    lambda t: t.embedded_mask(),
    encoder=True,
)
# The prompt's calibrated label scores as features (not the label-source code ``table.Source.PROMPT``).
PROMPT_SCORES = TableFeatures(
    "prompt", lambda t, n: t.prompt_probs(np.arange(n)), lambda t, rows: t.prompt_probs(rows), lambda t: t.scored_mask()
)


@dataclass(frozen=True)
class HeadRow:
    """One head: its name (the key of its weight and of its probabilities), what it reads, how it is fitted
    (``c``: the logistic regression's inverse regularisation; None: not fitted, the source's values are
    the head's probabilities; ``standardise``: features scaled to mean 0 and spread 1 over the loaded
    tickets first; ``centre``: unit vectors moved by the loaded tickets' mean and put back on the unit
    sphere first), the words it is shown with (``title`` in the weights, ``noun`` in "the … head"), its
    default weights (measured, with and without the sentence encoder), whether it needs the language
    model's forward (``llm``: not in the first pass), and whether its features alone give a row a label
    (``labels``: something a model computed; n-grams or the prompt alone do not)."""

    name: str
    source: TableFeatures | NGrams
    title: str
    noun: str
    default: float
    no_encoder: float
    llm: bool = False
    c: float | None = None
    standardise: bool = False
    labels: bool = True
    centre: bool = False

    @property
    def fitted(self) -> bool:
        return self.c is not None

    @property
    def scaled(self) -> bool:
        """Its features pass through the loaded tickets' :class:`Scaler` (standardised or centred)."""
        return self.standardise or self.centre

    @property
    def alone(self) -> str:
        """Its row in ``eval``'s tables."""
        return f"{self.noun} head alone"


# Measured on the dev sets (README): on plain text the encoder alone beat every other head at every K;
# the character head was the next best on terse text; the prompt alone is weak but not useless. Without an
# encoder (switched off, or it failed to load): the three heads of version 0.1 and the prompt. C: accuracy
# flat within ~1 point nearby. Hidden state standardised over the loaded tickets.
# Embeddings centred on the loaded tickets' mean (``centre``): a file's tickets share one domain (all bank, all
# IT), and on raw embeddings that shared part decided which label description a ticket was nearest: untaught,
# the encoder head put 367 of 600 bank tickets in the priority "high" (99 are), whose description lists most
# bank topics. Measured untaught on 13 dev-set fields, three draws of 500-600 tickets (first pass, the
# classify --fast path), centred minus raw: bank queues +0.4 to +2.1 points, bank priority +4.6 to +7.7,
# clinc-fields' domain -0.4 to -1.8, the other ten fields -0.6 to +0.5 on average; with 10 and 50 taught a
# label (two draws) every field within -0.2 to +3.3 (priority at 10); devsets/anchors.py's taught rows (three
# draws, taught per queue or domain) -0.7 to +0.2. 40 and 8 tickets a file (six and ten draws): no field lower by
# more than 1.3 points, priority +7.5 and +5.0.
HEADS: list[HeadRow] = [
    HeadRow("encoder", EMBEDDINGS, "encoder", "encoder", 0.6, 0.0, c=30.0, centre=True),
    HeadRow("hidden", HIDDEN, "LLM state", "LLM-state", 0.1, 0.3, llm=True, c=0.1, standardise=True),
    HeadRow("word", NGrams("word", 1), "words", "word", 0.1, 0.3, c=10.0, labels=False),
    # character n-grams seen in one ticket only are noise
    HeadRow("char", NGrams("char", 2), "characters", "character", 0.15, 0.3, c=10.0, labels=False),
    HeadRow("prompt", PROMPT_SCORES, "prompt", "prompt", 0.05, 0.1, llm=True, labels=False),
]


def heads() -> list[HeadRow]:
    """The table as it is now (a test may add a row)."""
    return list(HEADS)


def names() -> tuple[str, ...]:
    return tuple(h.name for h in HEADS)


def head(name: str) -> HeadRow | None:
    return next((h for h in HEADS if h.name == name), None)


def llm_heads() -> tuple[str, ...]:
    """The heads that need the language model's forward (its hidden state, its calibrated label scores)."""
    return tuple(h.name for h in HEADS if h.llm)


def first_heads() -> tuple[str, ...]:
    """The others: they label a ticket as soon as the sentence encoder has embedded it (the first pass)."""
    return tuple(h.name for h in HEADS if not h.llm)


def table_sources() -> dict[str, TableFeatures]:
    """The table's feature blocks the heads read, by name (each once)."""
    return {h.source.name: h.source for h in HEADS if isinstance(h.source, TableFeatures)}


def defaults(has_encoder: bool = True) -> dict[str, float]:
    """The measured default weights, with or without the sentence encoder's features."""
    return {h.name: (h.default if has_encoder else h.no_encoder) for h in HEADS}


def titles() -> dict[str, str]:
    return {h.name: h.title for h in HEADS}


def in_words() -> str:
    """ "Encoder, LLM-state, word and character heads and the prompt": the heads, as the status bar says."""

    def join(words: list[str]) -> str:
        return ", ".join(words[:-1]) + (" and " if len(words) > 1 else "") + words[-1] if words else ""

    fitted = join([h.noun for h in HEADS if h.fitted])
    rest = join([h.noun for h in HEADS if not h.fitted])
    text = (f"{fitted} heads" if fitted else "") + (" and the " if fitted and rest else "") + rest
    return text[:1].upper() + text[1:]
