"""Accuracy against gold labels and latency summaries, shared by the CLI, the bench and the window."""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass
class LabelStats:
    label: str
    precision: float | None  # None when the label was never predicted
    recall: float | None  # None when the label never occurs in the gold column
    support: int


@dataclass
class GoldReport:
    total: int
    correct: int
    per_label: list[LabelStats]
    confusion: list[list[int]]  # confusion[gold][predicted], in label order

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


def gold_report(labels: list[str], gold: list[str], predicted: list[str]) -> GoldReport:
    """Compare predictions with gold labels; gold values match label names ignoring case and spaces."""
    index = {name.strip().casefold(): i for i, name in enumerate(labels)}
    n = len(labels)
    confusion = [[0] * n for _ in range(n)]
    total = correct = 0
    for g, p in zip(gold, predicted):
        gi, pi = index.get(g.strip().casefold()), index.get(p.strip().casefold())
        if gi is None or pi is None:
            continue
        confusion[gi][pi] += 1
        total += 1
        correct += gi == pi
    per_label = []
    for i, name in enumerate(labels):
        predicted_i = sum(confusion[g][i] for g in range(n))
        support = sum(confusion[i])
        per_label.append(
            LabelStats(
                name,
                confusion[i][i] / predicted_i if predicted_i else None,
                confusion[i][i] / support if support else None,
                support,
            )
        )
    return GoldReport(total, correct, per_label, confusion)


@dataclass
class LatencySummary:
    count: int
    median_ms: float
    p90_ms: float
    mean_ms: float


def latency_summary(values: list[float]) -> LatencySummary | None:
    if not values:
        return None
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return LatencySummary(len(values), statistics.median(ordered), p90, statistics.fmean(ordered))
