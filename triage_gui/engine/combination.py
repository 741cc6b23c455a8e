"""How the taught classifier's heads are combined: a weighted geometric mean, weights fitted to the lead's data.

Five heads each give every label a probability (:mod:`learning`): the sentence encoder's, the LLM's hidden
state's, word and character n-grams', and the calibrated prompt's. Their log-probabilities are averaged with
weights, per ticket over the heads it has (a ticket the LLM has not scored yet under a new prompt is labelled
from the encoder and n-gram heads alone), and renormalised.

The weights start at :data:`DEFAULT_WEIGHTS`, measured on the dev sets (README, quality section): the
encoder carries most of the weight because it was the best single head on every plain-text set, and the
n-gram heads most of the rest because they are the ones that win on terse, keyword-like tickets. Once the
lead has taught enough tickets (:data:`MIN_TAUGHT`, and at least two for most labels) the weights are chosen
from out-of-fold predictions on the taught tickets (:func:`choose_weights`): a grid over the simplex, steps
of 0.1, scored by out-of-fold accuracy with a small pull towards the default so that a handful of tickets
cannot swing them far.

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
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

HEADS = ("encoder", "hidden", "word", "char", "prompt")
# The heads that need the language model's forward (its hidden state, its calibrated label scores); the others
# label a ticket as soon as the sentence encoder has embedded it: the first pass.
LLM_HEADS = ("hidden", "prompt")
FIRST_HEADS = tuple(h for h in HEADS if h not in LLM_HEADS)
# Measured on the dev sets (README): on plain text the encoder alone beat every other head at every K;
# the character head was the next best on terse text; the prompt alone is weak but not useless.
DEFAULT_WEIGHTS = {"encoder": 0.6, "hidden": 0.1, "word": 0.1, "char": 0.15, "prompt": 0.05}
# Without an encoder (switched off, or it failed to load): the three heads of version 0.1 and the prompt.
NO_ENCODER_WEIGHTS = {"encoder": 0.0, "hidden": 0.3, "word": 0.3, "char": 0.3, "prompt": 0.1}
MIN_TAUGHT = 40  # taught tickets before the weights are chosen from them (fewer: the default)
PULL = 0.05  # accuracy given up per unit of L1 distance from the default weights
STEP = 10  # grid steps per unit weight
TRUST = 3.0  # taught tickets at which a label's heads move half way from the prompt's examples' (:func:`toward`)


def first_pass(weights: Mapping[str, float]) -> dict[str, float]:
    """The first pass's weights from a full set: the prompt-free heads' weights, renormalised (the
    default when nothing better was chosen out of fold)."""
    kept = {h: float(weights.get(h, 0.0)) for h in FIRST_HEADS}
    total = sum(kept.values())
    return {h: (w / total if total > 0 else 0.0) for h, w in kept.items()}


def combine(
    parts: Mapping[str, np.ndarray], weights: Mapping[str, float], first: Mapping[str, float] | None = None
) -> np.ndarray:
    """Weighted geometric mean of each head's (n, labels) probabilities over the heads each row has (a
    head's NaN rows: not available), renormalised. A row the language model has not read (no LLM head
    available) is combined with the first pass's weights ``first`` (default: ``weights``' prompt-free
    part), so its label is the first pass's whether or not other rows are scored. Rows with neither the
    encoder nor the hidden state (nothing a model computed) come back NaN."""
    head0 = next(iter(parts.values()))
    n, k = head0.shape
    first = first_pass(weights) if first is None else first
    llm_row = np.zeros(n, dtype=bool)
    for head in LLM_HEADS:
        if head in parts:
            llm_row |= ~np.isnan(parts[head][:, 0])
    z = np.zeros((n, k), dtype=np.float64)
    total = np.zeros(n, dtype=np.float64)
    modelled = np.zeros(n, dtype=bool)
    for head, probs in parts.items():
        available = ~np.isnan(probs[:, 0])
        if head in ("encoder", "hidden"):
            modelled |= available
        weight = np.where(llm_row, float(weights.get(head, 0.0)), float(first.get(head, 0.0)))
        use = available & (weight > 0)
        if not use.any():
            continue
        z[use] += weight[use, None] * np.log(np.clip(probs[use], 1e-6, 1.0))
        total[use] += weight[use]
    out = np.full((n, k), np.nan, dtype=np.float32)
    ok = modelled & (total > 0)
    if ok.any():
        scaled = z[ok] / total[ok, None]
        scaled -= scaled.max(axis=1, keepdims=True)
        e = np.exp(scaled)
        out[ok] = e / e.sum(axis=1, keepdims=True)
    return out


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


def _grid(heads: Sequence[str]) -> np.ndarray:
    """Every weight vector over these heads in steps of 1/STEP that sums to one."""
    rows = [w for w in itertools.product(range(STEP + 1), repeat=len(heads)) if sum(w) == STEP]
    return np.array(rows, dtype=np.float64) / STEP


def choose_weights(
    oof: Mapping[str, np.ndarray],
    labels: np.ndarray,
    scored: np.ndarray,
    default: Mapping[str, float],
    among: Sequence[str] = HEADS,
) -> dict[str, float]:
    """Weights for the heads from their out-of-fold probabilities (head -> (n, labels), NaN rows: the head
    had no features there) on training tickets with these labels; only the ``scored`` ones (the taught
    tickets: the prompt's own examples are too easy to judge by) count. Out-of-fold accuracy minus
    :data:`PULL` per unit of distance from ``default``, ties to the smaller log-loss."""
    heads = [h for h in among if h in oof and default.get(h, 0.0) >= 0 and not np.isnan(oof[h][scored, 0]).all()]
    if not heads or not scored.any():
        return dict(default)
    y = labels[scored]
    logs = {}
    for h in heads:
        p = oof[h][scored]
        logs[h] = np.where(np.isnan(p), np.nan, np.log(np.clip(p, 1e-6, 1.0)))
    base = np.array([default.get(h, 0.0) for h in heads])
    best_score, best = -np.inf, base
    for w in _grid(heads):
        z = np.zeros((len(y), logs[heads[0]].shape[1]))
        total = np.zeros(len(y))
        for weight, h in zip(w, heads):
            if weight:
                ok = ~np.isnan(logs[h][:, 0])
                z[ok] += weight * logs[h][ok]
                total[ok] += weight
        if not (total > 0).all():
            continue
        z /= total[:, None]
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        accuracy = float((logp.argmax(axis=1) == y).mean())
        loss = float(-logp[np.arange(len(y)), y].mean())
        score = accuracy - PULL * float(np.abs(w - base).sum()) - 1e-3 * loss
        if score > best_score:
            best_score, best = score, w
    chosen = {h: 0.0 for h in among}
    chosen.update({h: float(x) for h, x in zip(heads, best)})
    return chosen


def describe(weights: Mapping[str, float]) -> str:
    """ "encoder 0.6, characters 0.15, …": the weights in words, largest first."""
    names = {"encoder": "encoder", "hidden": "LLM state", "word": "words", "char": "characters", "prompt": "prompt"}
    parts = sorted(((w, h) for h, w in weights.items() if w > 0), reverse=True)
    return ", ".join(f"{names.get(h, h)} {w:.2g}" for w, h in parts)
