"""How the taught classifier's heads are combined: a weighted geometric mean, weights fitted to the lead's data.

The heads (:mod:`head_table`: today the sentence encoder's, the LLM's hidden state's, word and character
n-grams', and the calibrated prompt's) each give every label a probability. Their log-probabilities are
averaged with weights, per ticket over the heads it has (a ticket the LLM has not scored yet under a new
prompt is labelled from the encoder and n-gram heads alone), and renormalised.

The weights start at the table's defaults, measured on the dev sets (README, quality section): the
encoder carries most of the weight because it was the best single head on every plain-text set, and the
n-gram heads most of the rest because they are the ones that win on terse, keyword-like tickets. Once the
lead has taught enough tickets (:data:`MIN_TAUGHT`, and at least two for most labels) the weights are chosen
from out-of-fold predictions on the taught tickets (:func:`choose_weights`): a search over the simplex in
steps of 0.1, scored by out-of-fold accuracy with a pull towards the default (:data:`PULL`) so that a handful of
tickets cannot swing them far.

A head the taught tickets changed is moved back towards the same head fitted on the prompt's examples alone,
label by label (:func:`toward`): each label's part keeps n / (n + :data:`TRUST`) of what its n taught tickets
changed. The prompt's descriptions read unlike tickets, so the first taught ticket was the only example written
like one, and every ticket resembled it more than any description (a lead saw 37.5 % -> 29.3 % after one
Purchase ticket). Measured by teaching the suggested tickets one at a time (``eval --strategy``; the first
pass on 1,000 tickets of each of the ten dev sets): the worst step below the untaught accuracy was 0 to
-5.2 points (-2.8 on average) and is -0.9 at most with TRUST 3 (-0.3 on average; -1.4 at most with 2);
the ten sets' mean went from 77.8 % to 79.7 % after 10 taught, 80.4 % to 81.3 % after 20, 82.1 % to 84.0 %
after 40 (random tickets: 78.1 % to 79.2 % after 20, 78.8 % to 79.0 % after 40); on another 1,000 of each,
the worst step went from -7.0 to -0.9 and the mean after 40 from 84.3 % to 85.2 %. The prompt's own heads are
fitted again at each fit: a fit with its out-of-fold weights took 0.55 s against 0.41 s at 40 taught. With the
language model's heads (300 tickets of four sets) the worst step went from -4.4 to -0.4; after 40, one set
(queues8) lost 12 points where the weights chosen out of fold moved to the character head (README).
Whether this shrinkage is what cost 10-taught accuracy between two releases (issue 33) was measured: the
first pass at K=10 and 20 per label (600 tickets, two draws) with TRUST 3 against none: queues5 0.816 / 0.840
against 0.807 / 0.843, queues8 0.757 / 0.789 against 0.756 / 0.790 (K=10: queues5narrow 0.967 against
0.962, clinc-support 0.887 against 0.883, clinc-assistant 0.918 against 0.917); the full path on 300 tickets of queues5
at K=10 (three draws): the language model's heads as weighted before :mod:`refinement` 0.776 with TRUST 3,
0.765 without, the first pass 0.785 and 0.787. The shrinkage costs nothing there; the language model's
heads cost 1-2 points, so they are gated (:mod:`refinement`) and TRUST stays.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Protocol

import numpy as np

from . import _head_table as table

MIN_TAUGHT = 40  # taught tickets before the weights are chosen from them (fewer: the default)
# Accuracy given up per unit of L1 distance from the default weights: the out-of-fold accuracy of a few dozen
# taught tickets is a noisy and flattering judge of the n-gram heads (near-duplicate tickets among them), and at
# 0.05 it moved the first pass to "characters 0.9, words 0.1" on one draw of eight of queues5 at K=10 (50 taught:
# 0.691 against 0.817 with the default weights; the held-back bank queues' 10-taught row fell 0.957 -> 0.943, issue
# 33). At 0.15 (the first pass, classify --fast's path; eval's draws): queues5 K=10, eight draws, mean 0.794 -> 0.809
# (worst 0.691 -> 0.782; no search at all: 0.810); queues5-terse K=10 0.812 -> 0.811; clinc-domains K=10 0.812 ->
# 0.812; queues8 K=10 0.765 -> 0.764; queues5 and clinc-support-terse K=50 the same to three places.
PULL = 0.15
STEP = 10  # grid steps per unit weight
TRUST = 3.0  # taught tickets at which a label's heads move half way from the prompt's examples' (:func:`toward`)


def first_pass(weights: Mapping[str, float]) -> dict[str, float]:
    """The first pass's weights from a full set: the prompt-free heads' weights, renormalised (the
    default when nothing better was chosen out of fold)."""
    kept = {h: float(weights.get(h, 0.0)) for h in table.first_heads()}
    total = sum(kept.values())
    if abs(total - 1.0) < 1e-9:  # already the first pass's: as they are (refined == first pass, bit for bit)
        return kept
    return {h: (w / total if total > 0 else 0.0) for h, w in kept.items()}


class LinearHead(Protocol):
    """A fitted linear head: weights per label seen over its columns (None: dense features), a binary fit's one."""

    columns: np.ndarray | None
    coef: np.ndarray
    intercept: np.ndarray
    classes: np.ndarray


def toward(
    untaught: LinearHead, fitted: LinearHead, taught: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """The ``fitted`` head's (columns, weights, intercept) moved back towards the ``untaught`` one (fitted on the
    prompt's examples alone) label by label: a label's logit keeps n / (n + :data:`TRUST`) of what its n
    ``taught`` tickets (per label index) changed. A binary fit's one vector is plus and minus its half for its
    two labels (as an L2 fit of both has), so it moves by their mean trust. Heads of different labels: as fitted."""
    if len(fitted.classes) < 2 or not np.array_equal(untaught.classes, fitted.classes):
        return fitted.columns, fitted.coef, fitted.intercept
    trust = taught[fitted.classes] / (taught[fitted.classes] + TRUST)
    trust = trust.mean(keepdims=True) if len(fitted.classes) == 2 else trust
    (c0, w0), (columns, w1) = (untaught.columns, untaught.coef), (fitted.columns, fitted.coef)
    if c0 is not None and columns is not None:  # n-gram heads: over the columns either saw
        c1, columns = columns, np.union1d(columns, c0)
        w0, w1 = _spread(w0, c0, columns), _spread(w1, c1, columns)
    coef = w0 + trust[:, None] * (w1 - w0)
    return columns, coef.astype(np.float32), untaught.intercept + trust * (fitted.intercept - untaught.intercept)


def _spread(coef: np.ndarray, own: np.ndarray, columns: np.ndarray) -> np.ndarray:
    out = np.zeros((len(coef), len(columns)), np.float32)
    out[:, np.searchsorted(columns, own)] = coef
    return out


def _logs(probs: np.ndarray) -> np.ndarray:
    """Log-probabilities, clipped (NaN rows stay NaN: the head is not available there)."""
    return np.log(np.clip(probs, 1e-6, 1.0))


def _mean_log(logs: Iterable[tuple[np.ndarray, np.ndarray]], shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The weighted geometric mean's arithmetic, shared by :func:`combine` and :func:`choose_weights`: per
    row, the sum of weight x log-probability and of the weights over the heads available there (``logs``:
    (log-probabilities with NaN rows, each row's weight))."""
    z = np.zeros(shape, dtype=np.float64)
    total = np.zeros(shape[0], dtype=np.float64)
    for logp, weight in logs:
        use = ~np.isnan(logp[:, 0]) & (weight > 0)
        if use.any():
            z[use] += weight[use, None] * logp[use]
            total[use] += weight[use]
    return z, total


def _log_normalised(z: np.ndarray, total: np.ndarray) -> np.ndarray:
    scaled = z / total[:, None]
    scaled -= scaled.max(axis=1, keepdims=True)
    return scaled - np.log(np.exp(scaled).sum(axis=1, keepdims=True))


def combine(
    parts: Mapping[str, np.ndarray], weights: Mapping[str, float], first: Mapping[str, float] | None = None
) -> np.ndarray:
    """Weighted geometric mean of each head's (n, labels) probabilities over the heads each row has (a
    head's NaN rows: not available), renormalised. A row the language model has not read (no LLM head
    available) is combined with the first pass's weights ``first`` (default: ``weights``' prompt-free
    part), so its label is the first pass's whether or not other rows are scored. Rows with none of the
    heads whose features alone label a row (the table's ``labels``: today the encoder and the hidden
    state, nothing n-grams or the prompt alone give) come back NaN; a head the table does not know counts
    as one that labels (a new head is never silently ignored)."""
    head0 = next(iter(parts.values()))
    n, k = head0.shape
    first = first_pass(weights) if first is None else first
    llm = set(table.llm_heads())
    unlabelling = {h.name for h in table.HEADS if not h.labels}
    llm_row = np.zeros(n, dtype=bool)
    modelled = np.zeros(n, dtype=bool)
    for head, probs in parts.items():
        available = ~np.isnan(probs[:, 0])
        if head in llm:
            llm_row |= available
        if head not in unlabelling:
            modelled |= available
    logs = []
    for head, probs in parts.items():
        weight = np.where(llm_row, float(weights.get(head, 0.0)), float(first.get(head, 0.0)))
        if (weight > 0).any():
            logs.append((_logs(probs), weight))
    z, total = _mean_log(logs, (n, k))
    out = np.full((n, k), np.nan, dtype=np.float32)
    ok = modelled & (total > 0)
    if ok.any():
        out[ok] = np.exp(_log_normalised(z[ok], total[ok]))
    return out


def _start(base: np.ndarray) -> np.ndarray:
    """A grid point near the default: its steps rounded down, the rest to the largest remainders in turn
    (the default's heads without features there are left out, so its weights may sum to less than one)."""
    units = np.floor(base * STEP + 1e-9)
    order = np.argsort(units - base * STEP, kind="stable")
    for t in range(max(0, STEP - int(units.sum()))):
        units[order[t % len(order)]] += 1
    return units


def _moves(units: np.ndarray) -> Iterator[np.ndarray]:
    """Every grid point one move away: any amount of weight from one head to another."""
    for i, j in itertools.permutations(range(len(units)), 2):
        for amount in range(1, int(units[i]) + 1):
            moved = units.copy()
            moved[i] -= amount
            moved[j] += amount
            yield moved


def _pairs(units: np.ndarray) -> Iterator[np.ndarray]:
    """Two one-step moves at once (where accuracy is flat along each alone)."""
    for i, j in itertools.permutations(range(len(units)), 2):
        if units[i]:
            once = units.copy()
            once[i] -= 1
            once[j] += 1
            for a, b in itertools.permutations(range(len(units)), 2):
                if once[a] and (a, b) != (j, i):
                    twice = once.copy()
                    twice[a] -= 1
                    twice[b] += 1
                    yield twice


def choose_weights(
    oof: Mapping[str, np.ndarray],
    labels: np.ndarray,
    scored: np.ndarray,
    default: Mapping[str, float],
    among: Sequence[str] | None = None,
) -> dict[str, float]:
    """Weights for the heads from their out-of-fold probabilities (head -> (n, labels), NaN rows: the head
    had no features there) on training tickets with these labels; only the ``scored`` ones (the taught
    tickets: the prompt's own examples are too easy to judge by) count. Out-of-fold accuracy minus
    :data:`PULL` per unit of distance from ``default``, ties to the smaller log-loss, over weights in steps
    of 1/:data:`STEP` that sum to one (every ticket must have a head with weight).

    The search climbs from a grid point near the default: each round tries every move of weight from one
    head to another (any amount: 40 points for five heads) and takes the best; where none helps, two
    one-step moves at once; it stops where neither does. The whole grid it replaced enumerated 11^n tuples
    to score C(n+9, n-1) points (1,001 for five heads, 3,003 for six, 8,008 for seven); the climb scored a
    median 137, 258 and 461 (random cases, 150 tickets). Measured against that grid: the same weights on
    394 of 400 random synthetic five-head cases (the others within 0.008 of its score: under one ticket in
    a hundred), on the tests' cases, and on two dev sets' first pass (queues5narrow and clinc-support-terse,
    K=10 and 20 taught per label, three draws each: the same weights and accuracy in all twelve).
    """
    among = table.names() if among is None else among
    heads = [h for h in among if h in oof and default.get(h, 0.0) >= 0 and not np.isnan(oof[h][scored, 0]).all()]
    if not heads or not scored.any():
        return dict(default)
    y = labels[scored]
    logs = [_logs(oof[h][scored]) for h in heads]
    shape = (len(y), logs[0].shape[1])
    base = np.array([default.get(h, 0.0) for h in heads])
    ones = np.ones(len(y))
    seen: dict[tuple[int, ...], float] = {}

    def score(units: np.ndarray) -> float:
        key = tuple(int(u) for u in units)
        if key not in seen:
            w = units / STEP
            z, total = _mean_log(((lp, ones * x) for lp, x in zip(logs, w) if x), shape)
            if not (total > 0).all():
                seen[key] = -np.inf
            else:
                logp = _log_normalised(z, total)
                accuracy = float((logp.argmax(axis=1) == y).mean())
                loss = float(-logp[np.arange(len(y)), y].mean())
                seen[key] = accuracy - PULL * float(np.abs(w - base).sum()) - 1e-3 * loss
        return seen[key]

    best = _start(base)
    best_score = score(best)
    wide = False  # single moves first; two at once only where no single move helps
    while True:
        move, move_score = None, best_score
        for units in _pairs(best) if wide else _moves(best):
            tried = score(units)
            if tried > move_score:
                move, move_score = units, tried
        if move is None and wide:
            break
        wide = move is None
        if move is not None:
            best, best_score = move, move_score
    chosen = {h: 0.0 for h in among}
    weights = base if best_score == -np.inf else best / STEP  # no weights cover every ticket: the default's
    chosen.update({h: float(x) for h, x in zip(heads, weights)})
    return chosen


def describe(weights: Mapping[str, float]) -> str:
    """ "encoder 0.6, characters 0.15, …": the weights in words, largest first."""
    names = table.titles()
    parts = sorted(((w, h) for h, w in weights.items() if w > 0), reverse=True)
    return ", ".join(f"{names.get(h, h)} {w:.2g}" for w, h in parts)
