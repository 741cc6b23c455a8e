"""The taught classifier: what a lead's corrections teach, applied to every loaded ticket at once.

Four logistic-regression heads and the calibrated prompt, combined by :mod:`combination` (a weighted
geometric mean, the weights fitted to the lead's taught tickets once there are enough); each head is one
row of :mod:`head_table` (its source, scaling, C, weights), and this module fits and predicts whatever rows
that table holds:

- on the sentence encoder's embedding (all-MiniLM-L6-v2, 384 values, normalised): the best single
  head on every plain-text dev set, and it does not depend on the prompt, so it labels at once after an edit;
- on the LLM's hidden state at the answer position (computed by the scoring forward anyway), standardised
  over the loaded tickets;
- on word unigram+bigram TF-IDF and on within-word character 3-5-gram TF-IDF of the ticket text
  (:mod:`lexical`): they win on terse, keyword-like tickets where a model's state is weak.

They learn from the taught tickets plus the prompt's few-shot examples, label descriptions and "name:
description" lines (pseudo-tickets through the same forward passes). Self-training (adding the most
confident loaded tickets) lifted the three heads of version 0.1 but cost the encoder-led combination 1-4
points on every dev set, so it is gone. Taught tickets are scored out-of-fold (:func:`out_of_fold`), so
none counts as correct because it was learned.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from . import _head_table as table
from . import _joint as joint_head
from ._combination import MIN_TAUGHT, choose_weights, combine, first_pass, toward
from ._examples import CHUNK, Examples, RowSource, Scaler, _empty, _nan_rows, _read
from ._head_table import NGrams
from ._lexical import KINDS, LexicalStore, weigh
from ._refinement import NO_ENCODER, RefinementVerdict, labels_of, refinement_verdict, without_llm

CLASS_WEIGHT = "balanced"  # one lead teaches unevenly: a label taught often must not pull every ticket to it
PSEUDO_WEIGHT = 5.0  # measured: 1, 3, 6 on the dev sets; more lifted K=2-10 by 1-2 points, K=50 unchanged


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
    linear: dict[str, Linear]  # by head name: those of the table's fitted heads that had training tickets
    idf: dict[str, np.ndarray]
    weights: dict[str, float]
    n_labels: int
    first_weights: dict[str, float] | None = None  # rows the LLM has not read (None: ``weights``' own part)
    joint: joint_head.Joint | None = None  # mixed into the first pass (:mod:`joint`; None: not fitted)

    def combine(self, parts: Mapping[str, np.ndarray]) -> np.ndarray:
        return combine(parts, self.weights, self.first_weights)

    def joint_words(self) -> str:
        """ "; the joint head mixed in at 0.9", after the weights in words, where it has one."""
        return joint_head.described(self.joint)

    def parts(
        self, values: Mapping[str, np.ndarray], lexical: Mapping[str, sp.csr_matrix], n: int
    ) -> dict[str, np.ndarray]:
        """Each of n rows' probabilities (n, labels) by head, from its source's values (by source name) or
        its n-grams (by kind); NaN rows where a row lacks that head's features."""
        out: dict[str, np.ndarray] = {}
        for row in table.HEADS:
            name, source = row.name, row.source.name
            fitted = self.linear.get(name)
            if isinstance(row.source, NGrams):
                if fitted is not None:
                    out[name] = fitted.proba(lexical[source])
                continue
            x = values.get(source, _empty(n))
            if not row.fitted:  # the source's values are the head's probabilities (the calibrated prompt)
                out[name] = x.astype(np.float32) if x.shape[1] else _nan_rows(n, self.n_labels)
                continue
            probs = _nan_rows(n, self.n_labels)
            if fitted is not None and x.ndim == 2 and x.shape[1] and len(x) == n:
                ok = ~np.isnan(x[:, 0])
                if ok.any():
                    probs[ok] = fitted.proba(self.scaler.apply(source, x[ok]) if row.scaled else x[ok])
            out[name] = probs
        return out

    def _lexical(self, read) -> dict[str, sp.csr_matrix]:
        return {h.source.name: read(h.source.name, self.idf[h.source.name])
                for h in table.HEADS if isinstance(h.source, NGrams) and h.name in self.linear}  # fmt: skip

    def predict_rows(self, source: RowSource, store: LexicalStore, rows: np.ndarray | None = None) -> np.ndarray:
        """Table rows (these, or all of the source's), in chunks; rows with no feature that labels a row
        come back NaN (they keep the label they have)."""
        picked = np.arange(source.n) if rows is None else np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(picked), self.n_labels), dtype=np.float32)
        for a in range(0, len(picked), CHUNK):
            chunk_rows = picked[a : a + CHUNK]
            contiguous = len(chunk_rows) and chunk_rows[-1] - chunk_rows[0] == len(chunk_rows) - 1
            where = slice(int(chunk_rows[0]), int(chunk_rows[-1]) + 1) if contiguous else chunk_rows
            lexical = self._lexical(lambda kind, idf, where=where: store.tfidf(kind, where, idf))
            values = {}
            for name in table.table_sources():
                x = _read(source.values(name), where, len(chunk_rows))
                present = source.present.get(name)
                if present is not None and x.shape[1]:  # an older version's state, or embedded after the capture
                    x[~present[where]] = np.nan
                values[name] = x
            parts = self.parts(values, lexical, len(chunk_rows))
            counts = {} if self.joint is None else {k: store.counts(k, where) for k in KINDS}
            out[a : a + len(chunk_rows)] = self.mixed(parts, self.combine(parts), values, counts)
        return out

    def mixed(
        self, parts: Mapping[str, np.ndarray], combined: np.ndarray, values: Mapping[str, np.ndarray],
        counts: Mapping[str, sp.csr_matrix],
    ) -> np.ndarray:  # fmt: skip
        """The combined probabilities with the joint head mixed in (:mod:`joint`) on the rows labelled by the
        first pass's weights (no language model head with weight available there)."""
        if self.joint is None:
            return combined
        read = np.zeros(len(combined), bool)
        for h in table.llm_heads():
            if h in parts and self.weights.get(h, 0.0) > 0:
                read |= ~np.isnan(parts[h][:, 0])
        name = table.EMBEDDINGS.name
        embedded = values.get(name, _empty(len(combined)))
        if embedded.ndim != 2 or not embedded.shape[1]:
            return combined
        found = self.joint.proba(self.scaler.apply(name, embedded), dict(counts))
        return joint_head.mix(combined, found, self.joint.share, ~read)

    def predict_texts(self, values: Mapping[str, np.ndarray], texts: list[str], store: LexicalStore) -> np.ndarray:
        parts = self.text_parts(values, texts, store)
        counts = {} if self.joint is None else {k: store.text_counts(k, texts) for k in KINDS}
        return self.mixed(parts, self.combine(parts), values, counts)

    def text_parts(
        self, values: Mapping[str, np.ndarray], texts: list[str], store: LexicalStore
    ) -> dict[str, np.ndarray]:
        return self.parts(values, self._lexical(lambda kind, idf: store.transform(kind, texts, idf)), len(texts))


def has_encoder(train: Examples) -> bool:
    encoder = [train.values(s.name) for s in table.table_sources().values() if s.encoder]
    return any(v.shape[1] > 0 and not np.isnan(v[:, 0]).all() for v in encoder)


def measured_weights(train: Examples) -> dict[str, float]:
    """The measured weights (the table's): encoder-led where the tickets have embeddings, else version
    0.1's heads; with the encoder, the language model's heads' part is what :func:`out_of_fold` tries."""
    return table.defaults(has_encoder(train))


def default_weights(train: Examples) -> dict[str, float]:
    """The weights before any evidence: with the encoder, the first pass's (the language model's heads at 0:
    :mod:`refinement`); without it the language model's hidden state is the head that labels a row."""
    measured = measured_weights(train)
    return without_llm(first_pass(measured)) if has_encoder(train) else measured


def example_counts(train: Examples, store: LexicalStore) -> tuple[np.ndarray, dict[str, sp.csr_matrix]]:
    """The examples in the order their n-gram heads read them (loaded rows first, whose n-grams come from the
    store, not from their text again; then the others, from their text) and each kind's raw counts in it."""
    rows = train.rows or [None] * len(train)
    stored = [i for i, r in enumerate(rows) if r is not None and r < len(store)]
    other = [i for i, r in enumerate(rows) if r is None or r >= len(store)]
    counts = {}
    for kind in KINDS:
        found = []
        if stored:
            found.append(store.counts(kind, np.array([rows[i] for i in stored])))
        if other:
            found.append(store.text_counts(kind, [train.texts[i] for i in other]))
        counts[kind] = sp.vstack(found, format="csr") if len(found) > 1 else found[0]
    return np.array(stored + other, dtype=np.int64), counts


def fit_head(
    train: Examples,
    scaler: Scaler,
    store: LexicalStore,
    n_labels: int,
    weights: Mapping[str, float],
    first: Mapping[str, float] | None = None,
    prompt: Examples | None = None,
    untaught: Mapping[str, Linear] | None = None,
) -> Head:
    """The heads on these examples, each on the tickets that have its features (texts vectorised with the
    store's current IDF; loaded rows' n-grams come from the store, not from their text again); those that
    are not the ``prompt``'s move each label's heads only by as much as that label's count earns (:func:`toward`),
    from the heads fitted on the prompt alone (``untaught``, when the caller has them already)."""
    idf = {kind: store.idf(kind) for kind in KINDS}
    linear: dict[str, Linear] = {}
    weight = train.weights()
    for head in table.HEADS:
        values = train.values(head.source.name)
        if head.c is None or isinstance(head.source, NGrams) or not (values.shape[1] and len(values)):
            continue
        ok = ~np.isnan(values[:, 0])
        if ok.any():
            x = scaler.apply(head.source.name, values[ok]) if head.scaled else values[ok]
            linear[head.name] = fit_linear(x, train.labels[ok], head.c, n_labels, weight=weight[ok])
    order, counts = example_counts(train, store) if len(train) else (np.zeros(0, np.int64), {})
    labels, order_weight = train.labels[order], weight[order]
    for head in table.HEADS if len(train) else ():
        if head.c is None or not isinstance(head.source, NGrams):
            continue
        kind = head.source.name
        x = weigh(counts[kind], idf[kind])
        allowed = store.df(kind) >= head.source.min_df
        linear[head.name] = fit_linear(x, labels, head.c, n_labels, allowed, order_weight)
    if prompt is not None and 0 < len(prompt) < len(train):
        taught = np.bincount(train.labels, minlength=n_labels) - np.bincount(prompt.labels, minlength=n_labels)
        untaught = untaught if untaught is not None else fit_head(prompt, scaler, store, n_labels, weights).linear
        for h in set(linear) & set(untaught):
            linear[h] = Linear(*toward(untaught[h], linear[h], taught), linear[h].classes, n_labels)
    return Head(scaler, linear, idf, dict(weights), n_labels, first_pass(weights) if first is None else dict(first))


def fit_joint(
    train: Examples, scaler: Scaler, store: LexicalStore, n_labels: int, part: float
) -> joint_head.Joint | None:
    """The joint head (:mod:`joint`) on these examples: loaded rows' n-grams from the store, others' from their
    text. A taught ticket weighs as much as a prompt's ticket: weighed 1/:data:`PSEUDO_WEIGHT` as in the other
    heads (bank-fields at 1, 2 and 5 taught a queue label), queue +0.3, +0.2, -0.1 points, priority -1.4, -0.4,
    -0.5."""
    order, counts = example_counts(train, store)
    name = table.EMBEDDINGS.name
    embedded = scaler.apply(name, train.values(name)[order])
    return joint_head.fit(embedded, counts, train.labels[order], joint_head.vocabulary_idf(store), n_labels, part)


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
        scaler = (scaler or Scaler.fit(source)).fill(base)  # nothing scored yet: the examples' spread
        head = fit_head(base, scaler, store, n_labels, weights or default_weights(base), first, pseudo)
        part = joint_head.share(n_labels, len(taught))
        if part and has_encoder(base):
            head.joint = fit_joint(base, scaler, store, n_labels, part)
        probs = head.predict_rows(source, store)
        return Fit(head, store, probs, len(taught), len(pseudo), time.perf_counter() - started)


@dataclass
class OutOfFold:
    """Each taught row's out-of-fold label (row -> label index), the weights chosen from them, and the
    taught tickets' out-of-fold accuracy under those weights (None: none taught); ``verdict``:
    whether the language model's heads are used for labels, and the taught tickets' evidence."""

    labels: dict[int, int]
    weights: dict[str, float]
    accuracy: float | None
    first_weights: dict[str, float] | None = None  # the first pass's, chosen among the prompt-free heads
    verdict: RefinementVerdict | None = None


def out_of_fold(taught: Examples, pseudo: Examples, scaler: Scaler, store: LexicalStore, n_labels: int) -> OutOfFold:
    """For each taught ticket, every head's probabilities from heads trained without it (five folds, or
    one per ticket below five); the weights chosen from them once there are :data:`MIN_TAUGHT` taught
    tickets and at least two of most labels (before: the measured ones); and the labels that makes. The
    prompt's examples stay in every fold: one taught ticket is labelled by the heads fitted on them alone (it
    had no label, so a lead's one check or teach left the gold count at 1,999 of 2,000). With the encoder, the
    language model's heads keep their weight only where their out-of-fold labels beat the first pass's clearly
    (:func:`refinement_verdict`); else they weigh 0 and every label is the first pass's."""
    everything = Examples.concat([taught, pseudo])
    measured, encoder = measured_weights(everything), has_encoder(everything)
    if not len(taught) or (len(taught) == 1 and not len(pseudo)):
        verdict = refinement_verdict(np.zeros(0), np.zeros(0), np.zeros(0))
        if not encoder:
            verdict = RefinementVerdict(True, 0, 0, 0, NO_ENCODER)
        return OutOfFold({}, default_weights(everything), None, first_pass(measured), verdict)
    with threadpool_limits(1, user_api="blas"):
        folds = min(5, len(taught))
        order = np.random.default_rng(0).permutation(len(taught))
        oof: dict[str, np.ndarray] = {}
        alone = fit_head(pseudo, scaler, store, n_labels, measured).linear if len(pseudo) else None  # once
        for f in range(folds):
            held = order[f::folds]
            keep = np.setdiff1d(np.arange(len(taught)), held)
            train = Examples.concat([taught.subset(keep), pseudo])
            head = fit_head(train, scaler, store, n_labels, measured, prompt=pseudo, untaught=alone)
            part = taught.subset(held)
            found = head.text_parts(part.features, part.texts, store)
            for name, probs in found.items():
                oof.setdefault(name, _nan_rows(len(taught), n_labels))[held] = probs
    counts = np.bincount(taught.labels, minlength=n_labels)
    enough = len(taught) >= MIN_TAUGHT and (counts >= 2).sum() >= max(2, (counts > 0).sum() - 1)
    everyone = np.ones(len(taught), bool)
    weights = choose_weights(oof, taught.labels, everyone, measured) if enough else measured
    first = first_pass(measured)
    if enough:  # chosen on their own: the first pass is a classifier a lead sees, not a remainder
        first = choose_weights(oof, taught.labels, everyone, first, table.first_heads())
    if encoder:
        plain = without_llm(first)
        verdict = refinement_verdict(labels_of(combine(oof, weights, first)), labels_of(combine(oof, plain, first)),
                                     taught.labels)  # fmt: skip
        weights = weights if verdict.used else plain
    else:
        verdict = RefinementVerdict(True, 0, 0, len(taught), NO_ENCODER)
    labels = labels_of(combine(oof, weights, first))
    rows = taught.rows or [None] * len(taught)
    known = labels >= 0
    accuracy = float((labels[known] == taught.labels[known]).mean()) if known.any() else None
    oof_labels = {int(r): int(p) for r, p in zip(rows, labels) if r is not None and p >= 0}
    return OutOfFold(oof_labels, weights, accuracy, first, verdict)
