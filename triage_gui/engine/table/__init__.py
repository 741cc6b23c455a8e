"""The loaded tickets: the columnar per-row store (texts, scores, features, taught and learned labels, the
decision and where it came from), the records it is built of, and the per-ticket results the scorer hands it.

A leaf of the engine: it imports no other part, so the window, the session, the scorer and the learning code
all share one row store without depending on each other.
"""

from __future__ import annotations

from ._batch import Applied, ScoredBatch, apply_batch
from ._features import BLOCK, FeatureRows
from ._results import TicketScore, calibrated_probs, logprob_difference
from ._rows import NewRow, Source
from ._table import BLANK, NONE, SEVERAL, TicketTable, text_parts

__all__ = [
    "BLANK",
    "BLOCK",
    "NONE",
    "SEVERAL",
    "Applied",
    "FeatureRows",
    "NewRow",
    "ScoredBatch",
    "Source",
    "TicketScore",
    "TicketTable",
    "apply_batch",
    "calibrated_probs",
    "logprob_difference",
    "text_parts",
]
