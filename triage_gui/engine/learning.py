"""The taught classifier: what a lead's corrections teach, applied to every loaded ticket at once.

Three logistic-regression heads, their probabilities averaged (a fixed average: choosing between heads
by cross-validation on a few taught tickets picked the worse one in 20-30% of draws at K=2):

- on the model's hidden state at the answer position (computed by the scoring forward anyway),
  standardised over the loaded tickets, C=0.1;
- on word unigram+bigram TF-IDF and on within-word character 2-5-gram TF-IDF of the ticket text
  (:mod:`lexical`), C=10: they win on terse, keyword-like tickets where the small model's state is weak.

They learn from the taught tickets plus the prompt's few-shot examples, label descriptions and
"name: description" lines (pseudo-tickets through the same forward), then once more adding the 30%
of loaded tickets each head-average labels most confidently per label (self-training). Taught
tickets are scored out-of-fold (:func:`out_of_fold`), so none counts as correct because it was
learned. Measured on the dev sets in the README (quality section).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from .features import BLOCK, FeatureRows
from .lexical import KINDS, LexicalStore

C_HIDDEN = 0.1  # accuracy was flat within ~1 point for C in 0.1-100 on the dev sets; these were best
C_LEXICAL = 10.0
SELF_SHARE = 0.3  # of each label's most confident loaded tickets, added in the self-training round
SELF_ROUNDS = 1
SELF_POOL = 5_000  # self-training candidates: at most this many loaded rows (keeps a refit under ~1 s)
MIN_DF = {"word": 1, "char": 2}  # character n-grams seen in one ticket only are noise
CHUNK = BLOCK  # rows predicted at a time: a view of one feature block, no copy
Rows = np.ndarray | FeatureRows  # the table's float16 features (or any array, in tests)


@dataclass
class Examples:
    """Training tickets: features, texts, label indices, and the table row of each (None: not loaded)."""

    features: np.ndarray  # (n, d) float32
    texts: list[str]
    labels: np.ndarray  # (n,) int
    rows: list[int | None] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.labels)

    def subset(self, idx: np.ndarray) -> Examples:
        rows = self.rows or [None] * len(self)
        return Examples(self.features[idx], [self.texts[i] for i in idx], self.labels[idx], [rows[i] for i in idx])

    @staticmethod
    def concat(parts: Sequence[Examples]) -> Examples:
        parts = [p for p in parts if len(p)]
        if not parts:
            return Examples(np.zeros((0, 0), np.float32), [], np.zeros(0, np.int64), [])
        return Examples(
            np.concatenate([p.features for p in parts]),
            [t for p in parts for t in p.texts],
            np.concatenate([p.labels for p in parts]),
            [r for p in parts for r in (p.rows or [None] * len(p))],
        )


@dataclass
class Scaler:
    """Mean and spread of the hidden-state features over the loaded tickets."""

    mean: np.ndarray
    scale: np.ndarray

    @staticmethod
    def fit(features: Rows, rows: int | None = None) -> Scaler:
        """From the first ``rows`` float16 rows, in chunks (never a float32 copy of 200,000 x 576 values)."""
        total = square = None
        n = 0
        for start in range(0, len(features) if rows is None else rows, CHUNK):
            stop = start + CHUNK if rows is None else min(rows, start + CHUNK)
            chunk = features[start:stop]  # float32; sums per chunk in float64 keep the accuracy
            chunk = chunk[~np.isnan(chunk[:, 0])]
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
    have a million columns; a head's training tickets touch a few thousand)."""

    columns: np.ndarray | None  # for sparse inputs: the original column of each weight column
    coef: np.ndarray  # (labels seen, columns)
    intercept: np.ndarray
    classes: np.ndarray  # label index of each row of coef
    n_labels: int
    _lookup: np.ndarray | None = None
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

    def _compact(self, x: sp.csr_matrix) -> sp.csr_matrix:
        assert self.columns is not None
        if self._lookup is None:
            self._lookup = np.full(x.shape[1], -1, dtype=np.int64)
            self._lookup[self.columns] = np.arange(len(self.columns))
        mapped = self._lookup[x.indices]
        keep = mapped >= 0
        row_of = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of[keep], minlength=x.shape[0]))])
        return sp.csr_matrix((x.data[keep], mapped[keep], indptr), shape=(x.shape[0], len(self.columns)))


def fit_linear(x, y: np.ndarray, c: float, n_labels: int, allowed: np.ndarray | None = None) -> Linear:
    classes = np.unique(y)
    columns = None
    if sp.issparse(x):
        columns = np.unique(x.indices)
        if allowed is not None and allowed[columns].any():
            columns = columns[allowed[columns]]
        x = Linear(columns, np.zeros((0, 0)), np.zeros(0), classes, n_labels)._compact(sp.csr_matrix(x))
    if len(classes) == 1 or x.shape[1] == 0:  # one label, or no n-gram to learn from: the label prior
        prior = np.bincount(y, minlength=n_labels)[classes] / len(y)
        if len(classes) == 1:
            return Linear(columns, np.zeros((1, x.shape[1])), np.zeros(1), classes, n_labels)
        intercept = np.log(prior) if len(classes) > 2 else np.log(prior[1:] / prior[:1])
        return Linear(columns, np.zeros((len(intercept), x.shape[1]), np.float32), intercept, classes, n_labels)
    # Newton-CG: same accuracy as lbfgs on the dev sets, 0.5 s a refit against 8-15 s. L-BFGS's update
    # costs grow with the ~40,000 character-n-gram weights per label; Newton-CG needs a handful of steps.
    model = LogisticRegression(C=c, solver="newton-cg", max_iter=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x, y)
    return Linear(columns, model.coef_.astype(np.float32), model.intercept_.astype(np.float64), classes, n_labels)


@dataclass
class Head:
    """The fitted heads; predicts label probabilities for table rows or for any texts with features."""

    scaler: Scaler
    hidden: Linear
    lexical: dict[str, Linear]
    idf: dict[str, np.ndarray]
    n_labels: int

    def predict(self, features: np.ndarray, lexical: dict[str, sp.csr_matrix]) -> np.ndarray:
        probs = self.hidden.proba(self.scaler.apply(features))
        for kind, fitted in self.lexical.items():
            probs += fitted.proba(lexical[kind])
        return probs / (1 + len(self.lexical))

    def predict_rows(self, features: Rows, store: LexicalStore, rows: np.ndarray | int | None = None) -> np.ndarray:
        """Table rows (these, or the first ``rows``, or all), in chunks; rows not scored yet (NaN
        features) come back NaN, and keep their prompt label."""
        if rows is None or isinstance(rows, int):
            picked = np.arange(len(features) if rows is None else rows)
        else:
            picked = np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(picked), self.n_labels), dtype=np.float32)
        for a in range(0, len(picked), CHUNK):
            chunk_rows = picked[a : a + CHUNK]
            contiguous = len(chunk_rows) and chunk_rows[-1] - chunk_rows[0] == len(chunk_rows) - 1
            where = slice(int(chunk_rows[0]), int(chunk_rows[-1]) + 1) if contiguous else chunk_rows
            chunk = features[where].astype(np.float32)
            unscored = np.isnan(chunk[:, 0])
            chunk[unscored] = 0
            lexical = {kind: store.tfidf(kind, where, self.idf[kind]) for kind in self.lexical}
            probs = self.predict(chunk, lexical)
            probs[unscored] = np.nan
            out[a : a + len(chunk_rows)] = probs
        return out

    def predict_texts(self, features: np.ndarray, texts: list[str], store: LexicalStore) -> np.ndarray:
        lexical = {kind: store.transform(kind, texts, self.idf[kind]) for kind in self.lexical}
        return self.predict(features, lexical)


def fit_head(train: Examples, scaler: Scaler, store: LexicalStore, n_labels: int) -> Head:
    """The three heads on these examples (texts vectorised with the store's current IDF; loaded rows'
    n-grams come from the store, not from their text again)."""
    idf = {kind: store.idf(kind) for kind in KINDS}
    hidden = fit_linear(scaler.apply(train.features), train.labels, C_HIDDEN, n_labels)
    rows = train.rows or [None] * len(train)
    stored = [i for i, r in enumerate(rows) if r is not None and r < len(store)]
    other = [i for i, r in enumerate(rows) if r is None or r >= len(store)]
    labels = train.labels[stored + other]
    lexical = {}
    for kind in KINDS:
        parts = []
        if stored:
            parts.append(store.tfidf(kind, np.array([rows[i] for i in stored]), idf[kind]))
        if other:
            parts.append(store.transform(kind, [train.texts[i] for i in other], idf[kind]))
        x = sp.vstack(parts, format="csr") if len(parts) > 1 else parts[0]
        lexical[kind] = fit_linear(x, labels, C_LEXICAL, n_labels, store.df(kind) >= MIN_DF[kind])
    return Head(scaler, hidden, lexical, idf, n_labels)


@dataclass
class Fit:
    head: Head
    store: LexicalStore  # the lexical features the head predicts from
    probs: np.ndarray  # (rows, labels) for table rows 0..rows-1 (NaN where not scored)
    taught: int
    pseudo: int
    self_trained: int
    seconds: float


def self_training(
    head: Head, features: Rows, store: LexicalStore, texts: Sequence[str], exclude: set[int], rows: int
) -> Examples:
    """The loaded tickets the head labels most confidently: SELF_SHARE of each predicted label's rows,
    from a pool of at most SELF_POOL rows (evenly spread, so the same rows every refit)."""
    step = max(1, rows // SELF_POOL)
    pool = np.array([r for r in range(0, rows, step) if r not in exclude], dtype=np.int64)
    if not len(pool):
        return Examples.concat([])
    probs = head.predict_rows(features, store, pool)
    valid = ~np.isnan(probs[:, 0])
    pool, probs = pool[valid], probs[valid]
    best, confidence = probs.argmax(axis=1), probs.max(axis=1)
    chosen: list[int] = []
    for label in range(head.n_labels):
        mine = np.flatnonzero(best == label)
        chosen += mine[np.argsort(-confidence[mine])[: int(SELF_SHARE * len(mine))]].tolist()
    idx = np.array(sorted(chosen), dtype=np.int64)
    picked = pool[idx]
    return Examples(features[picked].astype(np.float32), [texts[i] for i in picked], best[idx], picked.tolist())


def fit_all(
    taught: Examples,
    pseudo: Examples,
    features: Rows,
    store: LexicalStore,
    texts: Sequence[str],
    rows: int,
    n_labels: int,
    self_train: bool = True,
    scaler: Scaler | None = None,
) -> Fit:
    """Fit on taught + pseudo (+ self-training) and predict table rows 0..rows-1. ``scaler``: the
    features' spread from an earlier fit over the same rows (a correction adds no rows: 0.3 s saved at
    100,000 tickets)."""
    with threadpool_limits(1, user_api="blas"):  # small matrices; threads only contend with the engine's
        return _fit_all(taught, pseudo, features, store, texts, rows, n_labels, self_train, scaler)


def _fit_all(
    taught: Examples,
    pseudo: Examples,
    features: Rows,
    store: LexicalStore,
    texts: Sequence[str],
    rows: int,
    n_labels: int,
    self_train: bool,
    scaler: Scaler | None,
) -> Fit:
    started = time.perf_counter()
    base = Examples.concat([taught, pseudo])
    scaler = scaler or Scaler.fit(features, rows)
    if not scaler.mean.any() and len(base):  # nothing loaded is scored yet: the training tickets' own spread
        scaler = Scaler.fit(base.features)
    head = fit_head(base, scaler, store, n_labels)
    added = 0
    exclude = {int(r) for r in taught.rows if r is not None}
    for _ in range(SELF_ROUNDS if self_train and rows else 0):
        extra = self_training(head, features, store, texts, exclude, rows)
        if not len(extra):
            break
        head = fit_head(Examples.concat([base, extra]), scaler, store, n_labels)
        added = len(extra)
    probs = head.predict_rows(features, store, rows)
    return Fit(head, store, probs, len(taught), len(pseudo), added, time.perf_counter() - started)


def out_of_fold(taught: Examples, pseudo: Examples, scaler: Scaler, store: LexicalStore, n_labels: int):
    """For each taught ticket, the label a head trained without it gives (five folds, or one per ticket
    below five), and the accuracy that makes: the estimate shown to the lead. The prompt's examples stay
    in every fold; self-training is left out here (it would need the whole table per fold)."""
    if len(taught) < 2:
        return {}, None
    with threadpool_limits(1, user_api="blas"):
        return _out_of_fold(taught, pseudo, scaler, store, n_labels)


def _out_of_fold(taught: Examples, pseudo: Examples, scaler: Scaler, store: LexicalStore, n_labels: int):
    folds = min(5, len(taught))
    order = np.random.default_rng(0).permutation(len(taught))
    predicted = np.full(len(taught), -1)
    for f in range(folds):
        held = order[f::folds]
        keep = np.setdiff1d(np.arange(len(taught)), held)
        head = fit_head(Examples.concat([taught.subset(keep), pseudo]), scaler, store, n_labels)
        probs = head.predict_texts(taught.features[held], [taught.texts[i] for i in held], store)
        predicted[held] = probs.argmax(axis=1)
    rows = taught.rows or [None] * len(taught)
    oof = {int(r): int(p) for r, p in zip(rows, predicted) if r is not None}
    return oof, float((predicted == taught.labels).mean())
