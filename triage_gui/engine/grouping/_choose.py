"""How many groups, and which: fine k-means "micro-groups", a Ward tree over their centres, the tree cut at
the number of groups whose silhouette on a sample is best, then a few k-means steps over every ticket from
the cut's centres.

The embeddings are L2-normalised, so k-means on them is spherical k-means (Euclidean distance between unit
vectors is a function of the cosine). Trying each k with its own k-means was measured first: 20 s to choose
among 22 k for 1,500 tickets on this (busy) 2-core machine, against well under a second for the tree, whose
every cut is free; asking for more or fewer groups cuts the same tree again.

How many groups unasked: the cut with the best silhouette among 2 .. :func:`most_groups` (``2 n^(1/4)``:
10 for 600 tickets, 11 for 1,000, 15 for 3,000, 24 for 20,000). On sentence embeddings there is structure at
every scale, so no statistic alone says where a lead's queues are: on the ten dev sets (``devsets/grouping.py``)
the silhouette of the cuts rose with k up to 60 on eight of them (the old bound ``1.5 sqrt(n)``, 47 groups
for 1,000 tickets, decided), and so did a gap statistic against a Gaussian reference with the embeddings'
covariance (Tibshirani's rule then chose 6-33 groups: 9 of 12 set/queue pairs at or above k-means given the
true number, against 10 of 12 here); the knee of the Ward tree's merge heights chose 4-8, too few (7 of 12);
a silhouette penalised by ``lambda log k`` swung between 2 and 60 groups with lambda. Within the bound the
silhouette still decides where the data has a peak (queues5narrow: 7 groups for its 5 queues of 3 intents).
Measured (docs/labels-you-can-trust.md), the adjusted mutual information with the gold queues is at or above
k-means given the true number on 10 of the 12 set/queue pairs (11 against k-means' mean over three seeds) and
on four larger sets from all of CLINC150 (5,000-22,500 tickets); the misses are queues5narrow-terse (by
0.001) and clinc-assistant-terse, whose 4 queues over 56 intents only 3-9 groups match. A lead who wants
intents asks for more groups (the same tree, cut again).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SAMPLE = 1500  # tickets the silhouette is measured on (and the micro-groups fitted on)
MICRO = 120  # micro-groups at most: the tree's leaves, and the most groups a lead can ask for from the tree
MOST_FACTOR = 2.0  # at most MOST_FACTOR * n ** (1/4) groups chosen unasked (module docstring); ask for more
# k-means steps over every ticket from the cut's centres: 3 and 10 steps gave the same AMI on four dev sets
# (within 0.005 either way), and 10 cost 2.3 s of the 6 s for 20,000 tickets.
REFINE_STEPS = 3


def prepare() -> None:
    """Import what grouping runs on (scikit-learn's k-means and text counts, SciPy's tree, threadpoolctl),
    so that *Suggest labels* imports nothing: on a worker thread a first import holds the interpreter lock in
    stretches, and the objects it makes set off full garbage collections (80-217 ms each, measured in a
    fresh process), both of which stalled the window. The session calls this on its loader thread once the
    model (and the sentence encoder) has loaded. Never raises: a missing module fails where it is used."""
    try:
        import scipy.cluster.hierarchy  # noqa: F401
        import sklearn.cluster
        import sklearn.feature_extraction.text  # noqa: F401
        import threadpoolctl  # noqa: F401
    except ImportError:
        pass


def most_groups(n: int) -> int:
    """The most groups chosen unasked for ``n`` tickets: ``2 n^(1/4)`` (module docstring)."""
    return int(max(2, round(MOST_FACTOR * n**0.25)))


def candidates(n: int) -> list[int]:
    """The numbers of groups tried for ``n`` tickets: every k to 12, then steps of about 15 %, up to
    :func:`most_groups`."""
    high = int(min(most_groups(n), n - 1))
    found = list(range(2, min(high, 12) + 1))
    k = 12
    while k < high:
        k = min(high, max(k + 1, round(k * 1.15)))
        found.append(k)
    return found


def kmeans(
    vectors: np.ndarray, k: int, seed: int, n_init: int = 1, init: np.ndarray | None = None, steps: int = 100
) -> tuple[np.ndarray, np.ndarray]:
    """(assignment, centroids) of a seeded k-means (k-means++ start, or from ``init``)."""
    from sklearn.cluster import KMeans

    start = "k-means++" if init is None else init
    model = KMeans(n_clusters=k, n_init=1 if init is not None else n_init, init=start, random_state=seed)
    model.set_params(max_iter=steps).fit(vectors)
    return model.labels_.astype(np.int64), model.cluster_centers_.astype(np.float32)


def sample_of(n: int, seed: int, size: int = SAMPLE) -> np.ndarray:
    """A seeded sample of row positions (every row when ``n`` is small), in order."""
    if n <= size:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size, replace=False))


@dataclass
class Tree:
    """Every ticket's micro-group, and the Ward tree over the micro-groups' centres."""

    micro: np.ndarray  # ticket -> micro-group
    centres: np.ndarray  # micro-group centres
    linkage: np.ndarray | None  # scipy linkage matrix (None: a single micro-group)

    def cut(self, k: int) -> np.ndarray:
        """Every ticket's group when the tree is cut into ``k`` groups (0..k-1)."""
        if self.linkage is None or k <= 1:
            return np.zeros(len(self.micro), dtype=np.int64)
        from scipy.cluster.hierarchy import fcluster

        k = min(k, len(self.centres))
        leaves = fcluster(self.linkage, k, criterion="maxclust") - 1
        return leaves[self.micro].astype(np.int64)


def grow_tree(unit: np.ndarray, seed: int) -> Tree:
    """Micro-groups fitted on a sample, every ticket given its nearest, the tree over their centres."""
    from scipy.cluster.hierarchy import linkage

    n = len(unit)
    sample = unit[sample_of(n, seed, max(SAMPLE, 4 * MICRO))]
    count = int(min(MICRO, max(2, len(sample) // 8), len(sample)))
    if count < 2:
        return Tree(np.zeros(n, dtype=np.int64), unit[:1].copy(), None)
    _, centres = kmeans(sample, count, seed)
    micro = nearest(unit, centres)
    return Tree(micro, centres, linkage(centres.astype(np.float64), method="ward"))


def nearest(unit: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Each ticket's nearest centre (in blocks: 20,000 x 120 distances at a time is small)."""
    squared = (centres**2).sum(axis=1)
    out = np.empty(len(unit), dtype=np.int64)
    for start in range(0, len(unit), 8192):
        block = unit[start : start + 8192]
        out[start : start + 8192] = np.argmin(squared[None, :] - 2 * block @ centres.T, axis=1)
    return out


def choose_k(unit: np.ndarray, tree: Tree, seed: int = 0) -> tuple[int, dict[int, float]]:
    """The number of groups with the best silhouette on a sample, and every candidate's score."""
    n = len(unit)
    if n < 4 or tree.linkage is None:
        return 1, {}
    picked = sample_of(n, seed)
    sample = unit[picked]
    distance = np.sqrt(np.maximum(2 - 2 * (sample @ sample.T), 0)).astype(np.float32)
    scores: dict[int, float] = {}
    for k in candidates(n):
        if k > len(tree.centres):
            break
        assignment = tree.cut(k)[picked]
        if len(np.unique(assignment)) < 2:
            continue
        scores[k] = silhouette(distance, assignment)
    if not scores:
        return 1, scores
    return max(scores, key=lambda k: (scores[k], -k)), scores


def silhouette(distance: np.ndarray, assignment: np.ndarray) -> float:
    """The mean silhouette (scikit-learn's ``silhouette_score``, to 1e-6) from a precomputed distance
    matrix: one product with the groups' indicator per cut, where scikit-learn recomputed the distances
    for every cut (0.25 s each for 1,500 tickets, 22 cuts: 5.5 s, against 0.3 s for all of them)."""
    k = int(assignment.max()) + 1
    onehot = np.zeros((len(assignment), k), dtype=np.float32)
    onehot[np.arange(len(assignment)), assignment] = 1
    sums = distance @ onehot  # each ticket's summed distance to every group
    sizes = onehot.sum(axis=0)
    own = sizes[assignment]
    rows = np.arange(len(assignment))
    a = sums[rows, assignment] / np.maximum(own - 1, 1)
    others = sums / np.maximum(sizes, 1)
    others[rows, assignment] = np.inf
    b = others.min(axis=1)
    s = np.where(own > 1, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(s.mean())


def grouped(unit: np.ndarray, tree: Tree, k: int, seed: int) -> np.ndarray:
    """``k`` groups: the tree's cut, refined by a few k-means steps from its centres (a k beyond the
    tree's leaves: k-means from k-means++)."""
    n = len(unit)
    k = max(1, min(k, n))
    if k == 1:
        return np.zeros(n, dtype=np.int64)
    if k > len(tree.centres):
        return kmeans(unit, k, seed)[0]
    cut = tree.cut(k)
    init = np.stack([unit[cut == g].mean(axis=0) for g in range(k)])
    return kmeans(unit, k, seed, init=init, steps=REFINE_STEPS)[0]
