"""Groups of tickets found from their encoder embeddings, and the lead's edits of them.

A :class:`Grouping` is every ticket given (its table row, unit embedding and text) with its group number,
-1 for "fits no group". Nothing is dropped: a ticket far from its group's centre is moved to "fits no
group" and counted there, and an edit (merge, split, drop, more or fewer groups) returns a new grouping
of the same tickets. Seeded: the same tickets, seed and edits give the same groups.

Far from the centre: a ticket whose cosine distance to its group's centroid is past the group's upper
Tukey fence (third quartile + 1.5 x the interquartile range), at most ``MAX_NONE`` of the tickets (the
farthest by distance over the fence, in the group's interquartile ranges). Measured on seven dev sets
(``devsets/grouping.py``): 1.9-4.2 % of the tickets, and the adjusted mutual information of the rest with
gold rises by 0.01-0.05 (HDBSCAN alone left 17-66 % of the same tickets in no group).

Shown as such, never hidden: a group is *loose* when its cohesion (the mean cosine of its tickets to their
centre) is below ``LOOSE`` x the grouping's median cohesion. Measured on ten dev sets (482 suggested groups,
``devsets/grouping.py``'s sets and their terse variants): 27 groups fell below 0.8 x the median, their purity
against the gold queue 0.665 against 0.903 for the rest (below 0.75: 14 groups, 0.554; below 0.9: 79 groups,
0.779), so 0.8 flags the groups a lead should read before naming. A group is *small* under ``SMALL`` tickets,
too few to tell its spread (the fence above skips them).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ._choose import Tree, choose_k, grouped, grow_tree, kmeans
from ._terms import Terms, draft_description, draft_name

MAX_NONE = 0.2  # at most this share of the tickets fits no group
REPRESENTATIVES = 5
FENCE = 1.5  # Tukey's: a distance past Q3 + 1.5 IQR is an outlier of its group
LOOSE = 0.8  # a group whose cohesion is below this share of the median group's is loose (module docstring)
SMALL = 8  # a group of fewer tickets is small (and has no far tickets moved out: too few to tell a spread)


@dataclass(frozen=True)
class Group:
    """One group as the lead sees it."""

    name: str
    description: str
    size: int
    terms: list[str]
    representatives: list[int]  # table rows, closest to the centre first
    takes_from: dict[str, int] = field(default_factory=dict)  # current label -> tickets (with a prompt in use)
    cohesion: float = 1.0  # mean cosine of its tickets to their centre
    loose: bool = False  # cohesion below LOOSE x the grouping's median (see the module docstring)

    @property
    def small(self) -> bool:
        return self.size < SMALL

    @property
    def flags(self) -> list[str]:
        """What the lead should know before naming it: "small", "loose" (empty for a tight, sized group)."""
        return [word for word, on in (("small", self.small), ("loose", self.loose)) if on]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1)


class Grouping:
    """See the module docstring. Build one with :func:`find_groups`; the edits return new ones."""

    def __init__(
        self,
        rows: np.ndarray,
        vectors: np.ndarray,
        texts: Sequence[str],
        assignment: np.ndarray,
        seed: int = 0,
        current: Sequence[str | None] | None = None,
        terms: Terms | None = None,
        kept: dict[int, tuple[str, str]] | None = None,
        scores: dict[int, float] | None = None,
        tree: Tree | None = None,
        note: str = "",
    ) -> None:
        self.rows = np.asarray(rows, dtype=np.int64)
        self.vectors = vectors
        self.texts = list(texts)
        self.assignment = np.asarray(assignment, dtype=np.int64)
        self.seed = seed
        self.current = list(current) if current is not None else None
        self.terms = terms if terms is not None else Terms(self.texts)
        self.scores = scores or {}  # the silhouette of each k tried, when the number was chosen
        self.tree = tree  # kept so that more or fewer groups is one more cut
        self.note = note  # which tickets were chosen to group, and why (with a prompt in use)
        count = int(self.assignment.max()) + 1 if len(self.assignment) else 0
        kept = kept or {}
        top = self.terms.top_terms(self.assignment, count)
        taken = {name.casefold() for name, _ in kept.values()}
        self.groups: list[Group] = []
        members_of = [np.flatnonzero(self.assignment == g) for g in range(count)]
        cohesion = [self._cohesion(members) for members in members_of]
        middle = float(np.median(cohesion)) if cohesion else 0.0
        for g, members in enumerate(members_of):
            if g in kept:
                name, description = kept[g]
            else:
                name = draft_name(top[g], taken, g + 1)
                description = draft_description(top[g], len(members))
            taken.add(name.casefold())
            takes: Counter[str] = Counter()
            if self.current:
                takes.update(label for i in members if (label := self.current[i]))
            closest, tight = self._closest(members), cohesion[g]
            loose = tight < LOOSE * middle
            self.groups.append(
                Group(name, description, len(members), top[g], closest, dict(takes.most_common()), tight, loose)
            )

    def _cohesion(self, members: np.ndarray) -> float:
        if not len(members):
            return 0.0
        centre = self.vectors[members].mean(axis=0)
        centre = centre / max(float(np.linalg.norm(centre)), 1e-12)
        return float((self.vectors[members] @ centre).mean())

    def _closest(self, members: np.ndarray) -> list[int]:
        if not len(members):
            return []
        centre = self.vectors[members].mean(axis=0)
        order = np.argsort(-(self.vectors[members] @ centre), kind="stable")[:REPRESENTATIVES]
        return [int(self.rows[members[i]]) for i in order]

    # ------------------------------------------------------------- reading

    @property
    def none_count(self) -> int:
        """Tickets that fit no group."""
        return int((self.assignment < 0).sum())

    def flagged(self, flag: str) -> list[Group]:
        """The groups flagged ``flag`` ("small" or "loose")."""
        return [group for group in self.groups if flag in group.flags]

    def group_of(self) -> dict[int, int]:
        """Table row -> group number (-1: none)."""
        return dict(zip(self.rows.tolist(), self.assignment.tolist(), strict=True))

    def names_by_row(self) -> dict[int, str]:
        """Table row -> its group's name ("" for a ticket that fits no group)."""
        return {r: (self.groups[g].name if g >= 0 else "") for r, g in self.group_of().items()}

    # ---------------------------------------------------------------- edits

    def _with(self, assignment: np.ndarray, kept: dict[int, tuple[str, str]]) -> Grouping:
        return Grouping(
            self.rows,
            self.vectors,
            self.texts,
            assignment,
            self.seed,
            self.current,
            self.terms,
            kept,
            self.scores,
            self.tree,
            self.note,
        )

    def _kept(self, mapping: dict[int, int]) -> dict[int, tuple[str, str]]:
        """Names and descriptions of the groups an edit leaves as they were (old number -> new number)."""
        return {new: (self.groups[old].name, self.groups[old].description) for old, new in mapping.items()}

    def renamed(self, number: int, name: str, description: str | None = None) -> Grouping:
        """The same groups, one with a name (and description) the lead chose: nothing recomputed, so a
        rename in the dialog's cell costs microseconds on the GUI thread."""
        out = copy.copy(self)
        group = self.groups[number]
        out.groups = list(self.groups)
        out.groups[number] = replace(
            group, name=name, description=group.description if description is None else description
        )
        return out

    def merged(self, numbers: Sequence[int]) -> Grouping:
        """Two or more groups as one, in the place of the first; its name and words drafted anew."""
        numbers = sorted(set(numbers))
        if len(numbers) < 2:
            raise ValueError("Choose two or more groups to merge.")
        first = numbers[0]
        order = [g for g in range(len(self.groups)) if g not in numbers[1:]]
        renumber = {old: new for new, old in enumerate(order)}
        for g in numbers[1:]:
            renumber[g] = renumber[first]
        assignment = np.array([renumber[g] if g >= 0 else -1 for g in self.assignment.tolist()], dtype=np.int64)
        kept = self._kept({old: renumber[old] for old in order if old != first})
        return self._with(assignment, kept)

    def split(self, number: int) -> Grouping:
        """One group as two (k-means with k=2 within it); the second goes right after the first."""
        members = np.flatnonzero(self.assignment == number)
        if len(members) < 2:
            raise ValueError("A group needs two or more tickets to split.")
        halves, _ = kmeans(self.vectors[members], 2, self.seed, n_init=3)
        assignment = np.where(self.assignment > number, self.assignment + 1, self.assignment)
        assignment[members[halves == 1]] = number + 1
        kept = self._kept({g: (g if g < number else g + 1) for g in range(len(self.groups)) if g != number})
        return self._with(assignment, kept)

    def dropped(self, number: int) -> Grouping:
        """Without one group: its tickets fit no group (they are still counted there)."""
        assignment = np.where(self.assignment == number, -1, self.assignment)
        assignment = np.where(assignment > number, assignment - 1, assignment)
        kept = self._kept({g: (g if g < number else g - 1) for g in range(len(self.groups)) if g != number})
        return self._with(assignment, kept)

    def regrouped(self, groups: int) -> Grouping:
        """The same tickets in ``groups`` groups (the lead's "more" or "fewer")."""
        out = find_groups(
            self.rows, self.vectors, self.texts, groups, self.seed, self.current, self.terms, self.tree, self.scores
        )
        out.note = self.note
        return out


def find_groups(
    rows: Sequence[int] | np.ndarray,
    vectors: np.ndarray,
    texts: Sequence[str],
    groups: int | None = None,
    seed: int = 0,
    current: Sequence[str | None] | None = None,
    terms: Terms | None = None,
    tree: Tree | None = None,
    scores: dict[int, float] | None = None,
) -> Grouping:
    """Group these tickets (table rows, their encoder embeddings and texts): ``groups`` groups, or as
    many as the data says (:func:`choose_k`), the tickets far from their group's centre in none."""
    from threadpoolctl import threadpool_limits

    unit = unit_rows(vectors)
    n = len(unit)
    if n == 0:
        return Grouping(np.asarray(rows), unit, texts, np.zeros(0, dtype=np.int64), seed, current, terms)
    # One thread: on this shared 2-core machine k-means' OpenMP team ran 20x slower than one thread
    # (1.03 s against 0.05 s for 600 tickets, k=10, with other processes busy).
    with threadpool_limits(1):
        if tree is None:
            tree = grow_tree(unit, seed)
        if groups is None:
            groups, scores = choose_k(unit, tree, seed)
        else:  # --groups 1000 on 30 tickets of 6 texts split one text over two groups ("Parcel", "Parcel 2")
            groups = min(int(groups), distinct(unit))
        assignment = grouped(unit, tree, int(groups), seed)
    assignment = _ordered(_far_to_none(unit, assignment))
    return Grouping(np.asarray(rows), unit, texts, assignment, seed, current, terms, None, scores, tree)


def distinct(unit: np.ndarray) -> int:
    """How many different tickets the embeddings tell apart (:func:`distinct_rows`): a group per copy is no
    group."""
    return len(distinct_rows(unit))


def distinct_rows(unit: np.ndarray) -> np.ndarray:
    """The first row of each different ticket, in row order: one text's embeddings differ in the last bits
    from batch to batch (padding), so they are compared to 5 decimals (``+ 0.0``: -0 and 0 alike).

    A dict of each row's bytes, not ``np.unique(axis=0)``: that sorted the rows as records, 264-488 ms for
    20,000 x 384 at a load of 4 on this 2-core machine, holding the interpreter lock for 39-46 ms at a
    stretch (the window stalled on *More* or *Fewer groups*); this takes 87-145 ms and lets the window's
    thread in between rows."""
    rounded = np.round(unit, 5) + 0.0
    first: dict[bytes, int] = {}
    for i, row in enumerate(rounded):
        first.setdefault(row.tobytes(), i)
    return np.fromiter(first.values(), dtype=np.int64, count=len(first))


def _far_to_none(unit: np.ndarray, assignment: np.ndarray) -> np.ndarray:
    """``assignment`` with each group's far tickets (past its fence, see the module docstring) at -1."""
    out = assignment.copy()
    over = np.full(len(unit), -np.inf)
    for g in np.unique(assignment):
        members = np.flatnonzero(assignment == g)
        if len(members) < SMALL:  # too few to tell a spread
            continue
        centre = unit[members].mean(axis=0)
        centre /= max(float(np.linalg.norm(centre)), 1e-12)
        distance = 1 - unit[members] @ centre
        q1, q3 = np.quantile(distance, [0.25, 0.75])
        spread = max(float(q3 - q1), 1e-6)
        over[members] = (distance - (q3 + FENCE * spread)) / spread
    far = np.flatnonzero(over > 0)
    limit = int(MAX_NONE * len(unit))
    if len(far) > limit:
        far = far[np.argsort(-over[far], kind="stable")[:limit]]
    out[far] = -1
    return out


def _ordered(assignment: np.ndarray) -> np.ndarray:
    """Groups numbered by size, largest first (ties: by their first ticket), -1 kept."""
    numbers = [g for g in np.unique(assignment) if g >= 0]
    first = {g: int(np.argmax(assignment == g)) for g in numbers}
    order = sorted(numbers, key=lambda g: (-int((assignment == g).sum()), first[g]))
    renumber = {g: i for i, g in enumerate(order)}
    return np.array([renumber[g] if g >= 0 else -1 for g in assignment.tolist()], dtype=np.int64)
