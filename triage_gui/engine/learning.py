"""The taught classifier: what a lead's corrections teach, applied to every loaded ticket at once.

Four logistic-regression heads and the calibrated prompt, combined by :mod:`combination` (a weighted
geometric mean, the weights fitted to the lead's taught tickets once there are enough):

- on the sentence encoder's embedding (all-MiniLM-L6-v2, 384 values, normalised), C=30: the best single
  head on every plain-text dev set, and it does not depend on the prompt, so it labels at once after an edit;
- on the LLM's hidden state at the answer position (computed by the scoring forward anyway), standardised
  over the loaded tickets, C=0.1;
- on word unigram+bigram TF-IDF and on within-word character 3-5-gram TF-IDF of the ticket text
  (:mod:`lexical`), C=10: they win on terse, keyword-like tickets where a model's state is weak.

They learn from the taught tickets plus the prompt's few-shot examples, label descriptions and "name:
description" lines (pseudo-tickets through the same forward passes). Self-training (adding the most
confident loaded tickets) lifted the three heads of version 0.1 but cost the encoder-led combination 1-4
points on every dev set, so it is gone. Taught tickets are scored out-of-fold (:func:`out_of_fold`), so
none counts as correct because it was learned.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from .combination import (
    DEFAULT_WEIGHTS,
    FIRST_HEADS,
    MIN_TAUGHT,
    NO_ENCODER_WEIGHTS,
    choose_weights,
    combine,
    first_pass,
    toward,
)
from .features import BLOCK, FeatureRows
from .lexical import KINDS, LexicalStore

C = {"encoder": 30.0, "hidden": 0.1, "word": 10.0, "char": 10.0}  # accuracy flat within ~1 point nearby
CLASS_WEIGHT = "balanced"  # one lead teaches unevenly: a label taught often must not pull every ticket to it
PSEUDO_WEIGHT = 5.0  # measured: 1, 3, 6 on the dev sets; more lifted K=2-10 by 1-2 points, K=50 unchanged
MIN_DF = {"word": 1, "char": 2}  # character n-grams seen in one ticket only are noise
CHUNK = BLOCK  # rows predicted at a time: a view of one feature block, no copy
Rows = np.ndarray | FeatureRows  # the table's int8 features (or any array, in tests)


def _nan_rows(n: int, dim: int) -> np.ndarray:
    return np.full((n, dim), np.nan, dtype=np.float32)


def _stack(parts: Sequence[np.ndarray], lengths: Sequence[int]) -> np.ndarray:
    """Concatenate row blocks whose width may be 0 (no such features): those become NaN rows."""
    dim = max((p.shape[1] for p in parts if p.ndim == 2), default=0)
    blocks = [p if p.ndim == 2 and p.shape[1] == dim else _nan_rows(n, dim) for p, n in zip(parts, lengths)]
    return np.concatenate(blocks).astype(np.float32) if blocks else _nan_rows(0, dim)


@dataclass
class Examples:
    """Training tickets: per ticket its LLM hidden state, its embedding, the calibrated prompt's
    probabilities (NaN rows where a source has none), text, label index and table row (None: not loaded)."""

    hidden: np.ndarray
    embeddings: np.ndarray
    prompt: np.ndarray
    texts: list[str]
    labels: np.ndarray
    rows: list[int | None] = field(default_factory=list)
    weight: np.ndarray | None = None  # per ticket in the fits (None: 1 each); the prompt's: PSEUDO_WEIGHT

    def __len__(self) -> int:
        return len(self.labels)

    def weights(self) -> np.ndarray:
        return np.ones(len(self), np.float64) if self.weight is None else self.weight

    def subset(self, idx: np.ndarray) -> Examples:
        rows = self.rows or [None] * len(self)
        return Examples(
            self.hidden[idx],
            self.embeddings[idx],
            self.prompt[idx],
            [self.texts[i] for i in idx],
            self.labels[idx],
            [rows[i] for i in idx],
            self.weights()[idx],
        )

    @staticmethod
    def concat(parts: Sequence[Examples]) -> Examples:
        parts = [p for p in parts if len(p)]
        lengths = [len(p) for p in parts]
        return Examples(
            _stack([p.hidden for p in parts], lengths),
            _stack([p.embeddings for p in parts], lengths),
            _stack([p.prompt for p in parts], lengths),
            [t for p in parts for t in p.texts],
            np.concatenate([p.labels for p in parts]) if parts else np.zeros(0, np.int64),
            [r for p in parts for r in (p.rows or [None] * len(p))],
            np.concatenate([p.weights() for p in parts]) if parts else np.zeros(0),
        )


@dataclass
class RowSource:
    """What the heads read of table rows 0..n-1, captured on the loop's thread before a fit is handed to
    the learning thread: views of the feature blocks (rows below n are never rewritten while a version
    lasts) and a copy of the calibrated prompt probabilities (NaN rows: not scored by this version)."""

    hidden: Rows
    embeddings: Rows
    prompt: np.ndarray
    n: int
    scored: np.ndarray | None = None  # rows whose hidden state is this version's (None: all of them)
    embedded: np.ndarray | None = None  # rows embedded when captured (None: all); later ones may be mid-write


@dataclass
class Scaler:
    """Mean and spread of the hidden-state features over the loaded tickets."""

    mean: np.ndarray
    scale: np.ndarray

    @staticmethod
    def fit(features: Rows, rows: int | None = None, scored: np.ndarray | None = None) -> Scaler:
        """From the first ``rows`` rows (those ``scored`` marks), in chunks (never a float32 copy of
        200,000 x 576 values)."""
        total = square = None
        n = 0
        end = len(features) if rows is None else min(rows, len(features))
        for start in range(0, end, CHUNK):
            stop = min(end, start + CHUNK)
            chunk = features[start:stop]  # float32; sums per chunk in float64
            keep = ~np.isnan(chunk[:, 0])
            if scored is not None:
                keep &= scored[start:stop]
            chunk = chunk[keep]
            part, part_sq = chunk.sum(axis=0, dtype=np.float64), np.einsum("ij,ij->j", chunk, chunk, dtype=np.float64)
            total = part if total is None else total + part
            square = part_sq if square is None else square + part_sq
            n += len(chunk)
        if total is None or square is None or not n:
            dim = features.shape[1] if features.ndim == 2 else 0
            return Scaler(np.zeros(dim, np.float32), np.ones(dim, np.float32))
        mean = total / n
        var = np.maximum(square / n - mean * mean, 0)
        return Scaler(mean.astype(np.float32), np.sqrt(var + 1e-6).astype(np.float32))

    def apply(self, features: np.ndarray) -> np.ndarray:
        return (features.astype(np.float32) - self.mean) / self.scale


@dataclass
class Linear:
    """One fitted logistic regression, kept as weights over the columns it saw (hashed n-gram spaces
    have 65,536 columns; a head's training tickets touch a few thousand)."""

    columns: np.ndarray | None  # for sparse inputs: the original column of each weight column
    coef: np.ndarray  # (labels seen, columns)
    intercept: np.ndarray
    classes: np.ndarray  # label index of each row of coef
    n_labels: int
    _full: np.ndarray | None = None  # (hashed columns, labels seen), built at first prediction

    def proba(self, x) -> np.ndarray:
        n = x.shape[0]
        out = np.zeros((n, self.n_labels), dtype=np.float32)
        if len(self.classes) == 1:
            out[:, self.classes[0]] = 1.0
            return out
        if sp.issparse(x):  # weights spread over all hashed columns: one sparse product, no remapping
            if self._full is None:
                self._full = np.zeros((x.shape[1], len(self.coef)), dtype=np.float32)
                self._full[self.columns] = self.coef.T
            z = np.asarray(x @ self._full, dtype=np.float64) + self.intercept
        else:
            z = np.asarray(x @ self.coef.T, dtype=np.float64) + self.intercept
        if len(self.classes) == 2:  # scikit-learn's binary model: one weight vector, a sigmoid
            p1 = 1 / (1 + np.exp(-z[:, 0]))
            out[:, self.classes[0]], out[:, self.classes[1]] = 1 - p1, p1
            return out
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out[:, self.classes] = e / e.sum(axis=1, keepdims=True)
        return out


def _compact(x: sp.csr_matrix, columns: np.ndarray) -> sp.csr_matrix:
    """Only these columns of x, renumbered 0..len(columns)-1."""
    lookup = np.full(x.shape[1], -1, dtype=np.int64)
    lookup[columns] = np.arange(len(columns))
    mapped = lookup[x.indices]
    keep = mapped >= 0
    row_of = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of[keep], minlength=x.shape[0]))])
    return sp.csr_matrix((x.data[keep], mapped[keep], indptr), shape=(x.shape[0], len(columns)))


def fit_linear(
    x, y: np.ndarray, c: float, n_labels: int, allowed: np.ndarray | None = None, weight: np.ndarray | None = None
) -> Linear:
    classes = np.unique(y)
    columns = None
    if sp.issparse(x):
        x = sp.csr_matrix(x)
        columns = np.unique(x.indices)
        if allowed is not None and allowed[columns].any():
            columns = columns[allowed[columns]]
        x = _compact(x, columns)
    if len(classes) == 1 or x.shape[1] == 0:  # one label, or no n-gram to learn from: the label prior
        prior = np.bincount(y, minlength=n_labels)[classes] / len(y)
        if len(classes) == 1:
            return Linear(columns, np.zeros((1, x.shape[1])), np.zeros(1), classes, n_labels)
        intercept = np.log(prior) if len(classes) > 2 else np.log(prior[1:] / prior[:1])
        return Linear(columns, np.zeros((len(intercept), x.shape[1]), np.float32), intercept, classes, n_labels)
    # Newton-CG: same accuracy as lbfgs on the dev sets, 0.5 s a refit against 8-15 s. L-BFGS's update
    # costs grow with the ~40,000 character-n-gram weights per label; Newton-CG needs a handful of steps.
    model = LogisticRegression(C=c, solver="newton-cg", max_iter=300, class_weight=CLASS_WEIGHT)
    with warnings.catch_warnings():
        # Newton-CG on near-separable few-ticket fits: no convergence or a failed line search; the weights
        # it stops at are the fit we use (same accuracy as lbfgs run to the end, on the dev sets).
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("ignore", message="Line Search failed")
        warnings.filterwarnings("ignore", message="The line search algorithm did not converge")
        model.fit(x, y, sample_weight=weight)
    return Linear(columns, model.coef_.astype(np.float32), model.intercept_.astype(np.float64), classes, n_labels)


@dataclass
class Head:
    """The fitted heads and their weights; predicts label probabilities for table rows or any texts."""

    scaler: Scaler
    linear: dict[str, Linear]  # "encoder", "hidden", "word", "char": those that had training tickets
    idf: dict[str, np.ndarray]
    weights: dict[str, float]
    n_labels: int
    first_weights: dict[str, float] | None = None  # rows the LLM has not read (None: ``weights``' own part)

    def combine(self, parts: Mapping[str, np.ndarray]) -> np.ndarray:
        return combine(parts, self.weights, self.first_weights)

    def parts(
        self, hidden: np.ndarray, embeddings: np.ndarray, lexical: Mapping[str, sp.csr_matrix], prompt: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Each head's probabilities (n, labels); NaN rows where a row lacks that head's features."""
        n = len(prompt)
        out: dict[str, np.ndarray] = {"prompt": prompt.astype(np.float32)}
        for name, values in (("hidden", hidden), ("encoder", embeddings)):
            fitted = self.linear.get(name)
            probs = _nan_rows(n, self.n_labels)
            if fitted is not None and values.ndim == 2 and values.shape[1] and len(values) == n:
                ok = ~np.isnan(values[:, 0])
                if ok.any():
                    x = self.scaler.apply(values[ok]) if name == "hidden" else values[ok]
                    probs[ok] = fitted.proba(x)
            out[name] = probs
        for kind in KINDS:
            if kind in self.linear:
                out[kind] = self.linear[kind].proba(lexical[kind])
        return out

    def predict_rows(self, source: RowSource, store: LexicalStore, rows: np.ndarray | None = None) -> np.ndarray:
        """Table rows (these, or all of the source's), in chunks; rows with neither model feature come back
        NaN (they keep the label they have)."""
        picked = np.arange(source.n) if rows is None else np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(picked), self.n_labels), dtype=np.float32)
        for a in range(0, len(picked), CHUNK):
            chunk_rows = picked[a : a + CHUNK]
            contiguous = len(chunk_rows) and chunk_rows[-1] - chunk_rows[0] == len(chunk_rows) - 1
            where = slice(int(chunk_rows[0]), int(chunk_rows[-1]) + 1) if contiguous else chunk_rows
            lexical = {kind: store.tfidf(kind, where, self.idf[kind]) for kind in self.linear if kind in KINDS}
            hidden = _read(source.hidden, where, len(chunk_rows))
            if source.scored is not None and hidden.shape[1]:  # an older prompt version's state: not used
                hidden[~source.scored[where]] = np.nan
            embeddings = _read(source.embeddings, where, len(chunk_rows))
            if source.embedded is not None and embeddings.shape[1]:  # embedded after the capture: not read
                embeddings[~source.embedded[where]] = np.nan
            parts = self.parts(hidden, embeddings, lexical, source.prompt[where])
            out[a : a + len(chunk_rows)] = self.combine(parts)
        return out

    def predict_texts(
        self, hidden: np.ndarray, embeddings: np.ndarray, prompt: np.ndarray, texts: list[str], store: LexicalStore
    ) -> np.ndarray:
        return self.combine(self.text_parts(hidden, embeddings, prompt, texts, store))

    def text_parts(
        self, hidden: np.ndarray, embeddings: np.ndarray, prompt: np.ndarray, texts: list[str], store: LexicalStore
    ) -> dict[str, np.ndarray]:
        lexical = {kind: store.transform(kind, texts, self.idf[kind]) for kind in self.linear if kind in KINDS}
        return self.parts(hidden, embeddings, lexical, prompt)


def _read(features: Rows, where: slice | np.ndarray, n: int) -> np.ndarray:
    """Rows of a feature view, or an empty (n, 0) block when the view has none (no such features yet)."""
    if features.ndim != 2 or not features.shape[1] or len(features) == 0:
        return np.zeros((n, 0), dtype=np.float32)
    if isinstance(where, slice) and where.stop > len(features):
        part = features[where.start : len(features)]
        return np.concatenate([part, _nan_rows(n - len(part), features.shape[1])])
    if not isinstance(where, slice) and len(where) and where.max() >= len(features):
        out = _nan_rows(n, features.shape[1])
        inside = where < len(features)
        out[inside] = features[where[inside]]
        return out
    return np.asarray(features[where], dtype=np.float32)


def default_weights(train: Examples) -> dict[str, float]:
    """The measured default: encoder-led where the tickets have embeddings, else version 0.1's heads."""
    has_encoder = train.embeddings.shape[1] > 0 and not np.isnan(train.embeddings[:, 0]).all()
    return dict(DEFAULT_WEIGHTS if has_encoder else NO_ENCODER_WEIGHTS)


def fit_head(
    train: Examples,
    scaler: Scaler,
    store: LexicalStore,
    n_labels: int,
    weights: Mapping[str, float],
    first: Mapping[str, float] | None = None,
    prompt: Examples | None = None,
) -> Head:
    """The heads on these examples, each on the tickets that have its features (texts vectorised with the
    store's current IDF; loaded rows' n-grams come from the store, not from their text again); those that
    are not the ``prompt``'s move each label's heads only by as much as that label's count earns (:func:`toward`)."""
    idf = {kind: store.idf(kind) for kind in KINDS}
    linear: dict[str, Linear] = {}
    weight = train.weights()
    for name, values in (("hidden", train.hidden), ("encoder", train.embeddings)):
        if values.shape[1] and len(values):
            ok = ~np.isnan(values[:, 0])
            if ok.any():
                x = scaler.apply(values[ok]) if name == "hidden" else values[ok]
                linear[name] = fit_linear(x, train.labels[ok], C[name], n_labels, weight=weight[ok])
    rows = train.rows or [None] * len(train)
    stored = [i for i, r in enumerate(rows) if r is not None and r < len(store)]
    other = [i for i, r in enumerate(rows) if r is None or r >= len(store)]
    labels = train.labels[stored + other]
    order_weight = weight[stored + other]
    for kind in KINDS if len(train) else ():
        parts = []
        if stored:
            parts.append(store.tfidf(kind, np.array([rows[i] for i in stored]), idf[kind]))
        if other:
            parts.append(store.transform(kind, [train.texts[i] for i in other], idf[kind]))
        x = sp.vstack(parts, format="csr") if len(parts) > 1 else parts[0]
        linear[kind] = fit_linear(x, labels, C[kind], n_labels, store.df(kind) >= MIN_DF[kind], order_weight)
    if prompt is not None and 0 < len(prompt) < len(train):
        taught = np.bincount(train.labels, minlength=n_labels) - np.bincount(prompt.labels, minlength=n_labels)
        untaught = fit_head(prompt, scaler, store, n_labels, weights, first).linear
        for h in set(linear) & set(untaught):
            linear[h] = Linear(*toward(untaught[h], linear[h], taught), linear[h].classes, n_labels)
    return Head(scaler, linear, idf, dict(weights), n_labels, first_pass(weights) if first is None else dict(first))


@dataclass
class Fit:
    head: Head
    store: LexicalStore  # the lexical features the head predicts from
    probs: np.ndarray  # (rows, labels) for table rows 0..rows-1 (NaN where no model feature yet)
    taught: int
    pseudo: int
    seconds: float


def fit_all(
    taught: Examples,
    pseudo: Examples,
    source: RowSource,
    store: LexicalStore,
    n_labels: int,
    weights: Mapping[str, float] | None = None,
    scaler: Scaler | None = None,
    first: Mapping[str, float] | None = None,
) -> Fit:
    """Fit on taught + pseudo and predict table rows 0..n-1 with these weights (default: the measured
    default). ``scaler``: the hidden state's spread from an earlier fit over the same rows (a correction
    adds no rows: 0.3 s saved at 100,000 tickets); ``first``: the first pass's weights (default: the
    prompt-free part of ``weights``)."""
    with threadpool_limits(1, user_api="blas"):  # small matrices; threads only contend with the engine's
        started = time.perf_counter()
        base = Examples.concat([taught, pseudo])
        scaler = scaler or Scaler.fit(source.hidden, source.n, source.scored)
        if not scaler.mean.any() and len(base) and base.hidden.shape[1]:  # nothing scored yet: the examples'
            scaler = Scaler.fit(base.hidden[~np.isnan(base.hidden[:, 0])])
        head = fit_head(base, scaler, store, n_labels, weights or default_weights(base), first, pseudo)
        probs = head.predict_rows(source, store)
        return Fit(head, store, probs, len(taught), len(pseudo), time.perf_counter() - started)


@dataclass
class OutOfFold:
    """Each taught row's out-of-fold label (row -> label index), the weights chosen from them, and the
    taught tickets' out-of-fold accuracy under those weights (None: fewer than two taught)."""

    labels: dict[int, int]
    weights: dict[str, float]
    accuracy: float | None
    first_weights: dict[str, float] | None = None  # the first pass's, chosen among the prompt-free heads


def out_of_fold(taught: Examples, pseudo: Examples, scaler: Scaler, store: LexicalStore, n_labels: int) -> OutOfFold:
    """For each taught ticket, every head's probabilities from heads trained without it (five folds, or
    one per ticket below five); the weights chosen from them once there are :data:`MIN_TAUGHT` taught
    tickets and at least two of most labels (before: the default); and the labels that makes. The
    prompt's examples stay in every fold."""
    everything = Examples.concat([taught, pseudo])
    default = default_weights(everything)
    if len(taught) < 2:
        return OutOfFold({}, default, None, first_pass(default))
    with threadpool_limits(1, user_api="blas"):
        folds = min(5, len(taught))
        order = np.random.default_rng(0).permutation(len(taught))
        oof: dict[str, np.ndarray] = {}
        for f in range(folds):
            held = order[f::folds]
            keep = np.setdiff1d(np.arange(len(taught)), held)
            train = Examples.concat([taught.subset(keep), pseudo])
            head = fit_head(train, scaler, store, n_labels, default, prompt=pseudo)
            part = taught.subset(held)
            found = head.text_parts(part.hidden, part.embeddings, part.prompt, part.texts, store)
            for name, probs in found.items():
                oof.setdefault(name, _nan_rows(len(taught), n_labels))[held] = probs
    counts = np.bincount(taught.labels, minlength=n_labels)
    enough = len(taught) >= MIN_TAUGHT and (counts >= 2).sum() >= max(2, (counts > 0).sum() - 1)
    everyone = np.ones(len(taught), bool)
    weights = choose_weights(oof, taught.labels, everyone, default) if enough else default
    first = first_pass(default)
    if enough:  # chosen on their own: the first pass is a classifier a lead sees, not a remainder
        first = choose_weights(oof, taught.labels, everyone, first, FIRST_HEADS)
    predicted = combine(oof, weights, first)
    labels = np.where(np.isnan(predicted[:, 0]), -1, np.nan_to_num(predicted).argmax(axis=1))
    rows = taught.rows or [None] * len(taught)
    known = labels >= 0
    accuracy = float((labels[known] == taught.labels[known]).mean()) if known.any() else None
    oof_labels = {int(r): int(p) for r, p in zip(rows, labels) if r is not None and p >= 0}
    return OutOfFold(oof_labels, weights, accuracy, first)
