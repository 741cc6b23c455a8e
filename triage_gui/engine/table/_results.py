"""Per-ticket results and run statistics: plain data (numpy, no torch), so the window can import them cheaply."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class TicketScore:
    label: str
    confidence: float
    probs: list[float]  # softmax over the labels' sequence log-probabilities, in label order
    logprobs: list[float]  # log-probability of each label's full token sequence
    latency_ms: float  # for a batch: the batch's wall time divided by its size
    truncated: bool = False
    split_fallback: bool = False
    tokens: int = 0
    # The model's final hidden state at the answer position (float32): what a taught head learns from.
    features: np.ndarray | None = field(default=None, repr=False, compare=False)


def calibrated_probs(logprobs: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """The calibrated prompt's probabilities: a softmax over the labels' sequence log-probabilities plus the
    calibration bias (float32; a vector, or rows x labels). One home for the arithmetic: the scorer's
    confidence of each ticket and the table's prompt head are the same numbers."""
    logits = np.asarray(logprobs, dtype=np.float32) + np.asarray(bias, dtype=np.float32)
    logits = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=-1, keepdims=True)


@dataclass
class AgreementStats:
    """How the cached and baseline paths compare over a run."""

    total: int = 0
    agree: int = 0
    max_logprob_diff: float = 0.0
    disagreements: list[int] = field(default_factory=list)

    def add(self, index: int, cached: TicketScore, full: TicketScore) -> bool:
        """Count one ticket; a NaN or infinite score on either path is a disagreement, whatever the labels.

        The largest difference becomes nan (once seen, for the rest of the run) or inf, so a damaged
        model cannot report "agreement 5/5, max log-prob difference 0.00e+00".
        """
        self.total += 1
        diff = logprob_difference(cached.logprobs, full.logprobs)
        same = cached.label == full.label and math.isfinite(diff)
        self.agree += same
        if not same:
            self.disagreements.append(index)
        if math.isnan(diff) or math.isnan(self.max_logprob_diff):
            self.max_logprob_diff = math.nan
        else:
            self.max_logprob_diff = max(self.max_logprob_diff, diff)
        return same


def logprob_difference(a: list[float], b: list[float]) -> float:
    """Largest |a - b| over the labels: nan if either side holds a NaN, inf if either holds an infinity."""
    worst = 0.0
    for x, y in zip(a, b):
        if math.isnan(x) or math.isnan(y):
            return math.nan
        worst = max(worst, abs(x - y) if math.isfinite(x) and math.isfinite(y) else math.inf)
    return worst
