"""The loaded tickets: the columnar per-row store (texts, scores, features, taught and learned labels, the
decision and where it came from, each ticket's language), one ticket's decision read as one value
(:func:`decide`), the records it is built of, and the per-ticket results the scorer hands it.

A leaf of the engine: it imports no other part, so the window, the session, the scorer and the learning code
all share one row store without depending on each other.
"""

from __future__ import annotations

from ._batch import Applied, ScoredBatch, apply_batch
from ._decision import Decision
from ._features import BLOCK, FeatureRows
from ._field_table import embedded_count, field_table
from ._language import (
    LANGUAGE_SAMPLE,
    LANGUAGES,
    detect_language,
    detect_languages,
    language_name,
    language_summary,
    not_english,
    sample_languages,
    stop_words,
)
from ._results import TicketScore, calibrated_probs, logprob_difference
from ._rows import SEVERAL, NewRow, Source, joined, text_parts
from ._table import BLANK, NONE, TicketTable, decide, fill_languages

__all__ = [
    "BLANK",
    "BLOCK",
    "LANGUAGES",
    "LANGUAGE_SAMPLE",
    "NONE",
    "SEVERAL",
    "Applied",
    "Decision",
    "FeatureRows",
    "NewRow",
    "ScoredBatch",
    "Source",
    "TicketScore",
    "TicketTable",
    "apply_batch",
    "calibrated_probs",
    "decide",
    "detect_language",
    "detect_languages",
    "embedded_count",
    "field_table",
    "fill_languages",
    "joined",
    "language_name",
    "language_summary",
    "logprob_difference",
    "not_english",
    "sample_languages",
    "stop_words",
    "text_parts",
]
