"""Accuracy against gold labels and latency summaries, shared by the CLI, the bench and the window."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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


def report_from_ids(labels: list[str], gold: np.ndarray, predicted: np.ndarray) -> GoldReport:
    """Compare predictions with gold labels, as label indices (-1: no gold or no prediction, not counted;
    matching gold values to label names is the caller's, ``session.gold``);
    vectorised, so the window can recount 200,000 rows between two frames."""
    n = len(labels)
    valid = (gold >= 0) & (predicted >= 0) & (gold < n) & (predicted < n)
    g, p = gold[valid], predicted[valid]
    confusion = np.bincount(g * n + p, minlength=n * n).reshape(n, n) if n else np.zeros((0, 0), dtype=np.int64)
    total, correct = int(valid.sum()), int(np.trace(confusion)) if n else 0
    predicted_per = confusion.sum(axis=0)
    support = confusion.sum(axis=1)
    per_label = [
        LabelStats(
            name,
            float(confusion[i, i] / predicted_per[i]) if predicted_per[i] else None,
            float(confusion[i, i] / support[i]) if support[i] else None,
            int(support[i]),
        )
        for i, name in enumerate(labels)
    ]
    return GoldReport(total, correct, per_label, confusion.tolist())


def far_apart(gold: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Per ticket, whether its label is two or more steps from the gold one in an ordered field (low given
    for high), as label indices in the field's order (-1: no gold or no label, never far): the mistakes that
    matter most in a priority. The one rule ``eval``, the Accuracy tab and the ticket table's mark read."""
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    return (gold >= 0) & (predicted >= 0) & (np.abs(predicted - gold) >= 2)


def steps_apart(gold: np.ndarray, predicted: np.ndarray) -> int:
    """How many tickets are :func:`far_apart`."""
    return int(far_apart(gold, predicted).sum())


def macro_f1(report: GoldReport) -> float:
    """Mean F1 over the labels that occur in the gold column (a label never predicted scores 0)."""
    scores = []
    for stats in report.per_label:
        if not stats.support:
            continue
        p, r = stats.precision or 0.0, stats.recall or 0.0
        scores.append(2 * p * r / (p + r) if p + r else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


@dataclass
class LatencySummary:
    count: int
    median_ms: float
    p90_ms: float
    mean_ms: float


def latency_summary(values: list[float] | np.ndarray) -> LatencySummary | None:
    """Count, median, 90th percentile and mean; numpy, so 200,000 latencies take a millisecond."""
    array = np.asarray(values, dtype=np.float64)
    if not len(array):
        return None
    ordered = np.sort(array)
    p90 = float(ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))])
    return LatencySummary(len(array), float(np.median(ordered)), p90, float(ordered.mean()))


def wilson_interval(correct: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95 % for z=1.96): unlike the normal approximation it
    stays inside [0, 1] and keeps its coverage at 30 checks and at accuracies near 100 %
    (tests/test_checks.py simulates it)."""
    if total <= 0:
        return 0.0, 1.0
    p = correct / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * float(np.sqrt(p * (1 - p) / total + z * z / (4 * total * total))) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
