"""Scoring tickets: whole-label log-probabilities against the cached prompt prefix (and the naive full
re-encode baseline it is checked against), micro-batches with the encoder's features in the same pass, and
the metrics the command line, the bench and the window report (accuracy against gold, latency).

Imports :mod:`..model`, :mod:`..prompt` and :mod:`..table`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._metrics import (
        GoldReport,
        LatencySummary,
        far_apart,
        latency_summary,
        macro_f1,
        report_from_ids,
        steps_apart,
        wilson_interval,
    )
    from ._runner import as_batch, score_fields_batch, score_micro_batch, score_stream, score_table
    from ._scorer import Scorer, ScoringError

# Imported on first use: torch stays out of the window's start.
__getattr__ = lazy_face(
    __name__,
    {
        "_metrics": [
            "GoldReport",
            "LatencySummary",
            "far_apart",
            "latency_summary",
            "macro_f1",
            "report_from_ids",
            "steps_apart",
            "wilson_interval",
        ],
        "_runner": ["as_batch", "score_fields_batch", "score_micro_batch", "score_stream", "score_table"],
        "_scorer": ["Scorer", "ScoringError"],
    },
)

__all__ = [
    "GoldReport",
    "LatencySummary",
    "Scorer",
    "ScoringError",
    "as_batch",
    "far_apart",
    "latency_summary",
    "macro_f1",
    "report_from_ids",
    "score_fields_batch",
    "score_micro_batch",
    "score_stream",
    "score_table",
    "steps_apart",
    "wilson_interval",
]
