"""Per-ticket results and run statistics: plain data, no torch, so the window can import them cheaply."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


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


@dataclass
class AgreementStats:
    """How the cached and baseline paths compare over a run."""

    total: int = 0
    agree: int = 0
    max_logprob_diff: float = 0.0
    disagreements: list[int] = field(default_factory=list)

    def add(self, index: int, cached: TicketScore, full: TicketScore) -> bool:
        self.total += 1
        same = cached.label == full.label
        self.agree += same
        if not same:
            self.disagreements.append(index)
        diff = max((abs(a - b) for a, b in zip(cached.logprobs, full.logprobs)), default=0.0)
        if not math.isnan(diff):
            self.max_logprob_diff = max(self.max_logprob_diff, diff)
        return same
