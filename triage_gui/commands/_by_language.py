"""``eval``'s accuracy per ticket language: the same draws and predictions as its tables, the tested tickets
grouped by the table's language column (each ticket's detected language, as the window shows it and the
exports write it; "unknown" where the detector would not say). Shown when the file holds two or more
languages with at least :data:`MIN_TICKETS` gold tickets each, for the methods a lead chooses between.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable

import numpy as np

from ..engine.table import language_name

MIN_TICKETS = 20  # a language with fewer gold tickets gets no row: its accuracy would be noise
# The rows shown, by the method names ``eval`` records (the app's labels with and without the language
# model's heads and without the encoder, the plain baseline, and the language model's own prompt).
METHODS = (
    "calibrated prompt",
    "this app (encoder on)",
    "this app",
    "this app, first pass (no LLM)",
    "this app, encoder off",
    "TF-IDF + logistic regression",
)


class ByLanguage:
    """Accuracy per method, K and ticket language, recorded draw by draw."""

    def __init__(self, codes: np.ndarray, gold_rows: np.ndarray) -> None:
        """``codes``: every row's language code ("" unknown); ``gold_rows``: the rows with a gold label."""
        self.codes = np.asarray(codes, dtype=object)
        counts = Counter(str(c) for c in self.codes[gold_rows])
        self.counts = {c: n for c, n in counts.most_common() if n >= MIN_TICKETS}
        self.results: dict[str, dict[int, dict[str, list[float]]]] = {}

    @property
    def shown(self) -> bool:
        """Whether the file has two or more known languages with enough gold tickets for a table."""
        return sum(1 for c in self.counts if c) >= 2

    def record(self, method: str, k: int, gold: np.ndarray, predicted: np.ndarray, rows: np.ndarray) -> None:
        """One draw's predictions on ``rows`` (``gold``: every row's gold id) for the languages counted."""
        if not self.shown or method not in METHODS:
            return
        codes = self.codes[rows]
        right = np.asarray(predicted) == gold[rows]
        for code in self.counts:
            mask = codes == code
            if mask.any():
                by_k = self.results.setdefault(method, {}).setdefault(k, {})
                by_k.setdefault(code, []).append(float(right[mask].mean()))

    def print(self, ks: list[int], encoder: str, out: Callable[[str], None]) -> None:
        if not self.results:
            return
        out(
            f"\naccuracy per ticket language (the language column; mean over draws; taught tickets excluded; "
            f"sentence encoder: {encoder})\n"
        )
        out("| method | language (tickets) | untaught | " + " | ".join(f"K={k}" for k in ks) + " |")
        out("|---|---|---:|" + "---:|" * len(ks))
        for method in (m for m in METHODS if m in self.results):
            by_k = self.results[method]
            for code, n in self.counts.items():
                cells = []
                for k in [0, *ks]:
                    values = by_k.get(k, {}).get(code, [])
                    cells.append(f"{statistics.mean(values):.3f}" if values else "–")
                out(f"| {method} | {language_name(code) or 'unknown'} ({n}) | " + " | ".join(cells) + " |")
