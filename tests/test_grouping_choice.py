"""How many groups *Suggest labels* chooses unasked (engine/grouping/_choose.py): the silhouette's best cut
up to ``2 n^(1/4)`` groups, so a set with structure at every scale gets a number a lead reads (not the 47
the old bound ``1.5 sqrt(n)`` gave for 1,000 tickets), a clear peak below the bound is still found, and
asking for more still gives more."""

from __future__ import annotations

import numpy as np

from triage_gui.engine.grouping import candidates, find_groups
from triage_gui.engine.grouping._choose import most_groups


def topics(n: int, count: int, spread: float, seed: int = 0, dim: int = 48) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 1, (count, dim)).astype(np.float32)
    topic = rng.integers(0, count, n)
    vectors = (centres[topic] + rng.normal(0, spread, (n, dim))).astype(np.float32)
    return vectors, [f"ticket about thing{t} and matter{t}" for t in topic.tolist()]


def test_the_bound_grows_slowly_with_the_number_of_tickets():
    assert [most_groups(n) for n in (600, 1_000, 3_000, 20_000)] == [10, 11, 15, 24]
    assert max(candidates(1_000)) == 11 and max(candidates(20_000)) == 24  # was 47 and 60
    assert max(candidates(30)) <= 29


def test_many_fine_topics_give_a_number_a_lead_reads_and_more_is_one_click_away():
    vectors, texts = topics(1_000, 120, 0.35)  # 120 tight topics: the silhouette rises to the last k tried
    grouping = find_groups(np.arange(1_000), vectors, texts)
    assert 5 <= len(grouping.groups) <= most_groups(1_000) == 11
    assert max(grouping.scores) == most_groups(1_000)  # every k up to the bound was tried, none past it
    more = grouping.regrouped(40)
    assert len(more.groups) == 40 and sum(g.size for g in more.groups) + more.none_count == 1_000


def test_a_clear_number_below_the_bound_is_found():
    vectors, texts = topics(1_000, 6, 0.3, seed=1)
    grouping = find_groups(np.arange(1_000), vectors, texts)
    assert len(grouping.groups) == 6
