"""``devsets/anchors.py`` (issue 34): the taught tickets it gives ours and the anchor alike, and its count of
labels two steps from gold. Synthetic rows; the measured run itself needs ../shared and is in the docs."""

from __future__ import annotations

import importlib.util
from collections import Counter

import numpy as np
from helpers import ROOT

_spec = importlib.util.spec_from_file_location("anchors", ROOT / "devsets" / "anchors.py")
assert _spec is not None and _spec.loader is not None
anchors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(anchors)


def _rows() -> list[dict[str, str]]:
    queues = ["cards"] * 30 + ["fees"] * 20 + ["cash"] * 3
    return [{"text": f"t{i}", "queue": q, "priority": "low" if i % 2 else "high"} for i, q in enumerate(queues)]


def test_taught_tickets_are_k_per_first_field_label_from_the_pool_only():
    rows = _rows()
    pool = np.arange(10, len(rows))  # rows 0-9 are the test tickets
    taught = anchors.taught_rows(rows, pool, "queue", 5, seed=1)
    assert set(taught) <= set(pool.tolist())
    # every label K times, a label with fewer in the pool all of them (cash has 3)
    assert Counter(rows[i]["queue"] for i in taught) == {"cards": 5, "fees": 5, "cash": 3}
    assert np.array_equal(taught, anchors.taught_rows(rows, pool, "queue", 5, seed=1))  # ours and the anchor
    assert not np.array_equal(taught, anchors.taught_rows(rows, pool, "queue", 5, seed=2))  # another draw


def test_two_steps_apart_counts_only_low_for_high_and_high_for_low():
    order = ["low", "medium", "high"]
    predicted = ["low", "medium", "high", "high", "low"]
    gold = ["high", "high", "high", "low", "medium"]
    assert anchors.far(predicted, gold, order) == 2
