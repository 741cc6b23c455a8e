"""The joint head: one logistic regression on the centred embedding and the word and character TF-IDF side by
side, mixed into the first pass of a field with few labels while it has few taught tickets (issue 34).

The first pass's heads are fitted one per source and combined by weights (:mod:`combination`); the held-back
check's anchor fits one model on the three sources at once, and on a field with few, broad labels (a bank
ticket's priority) that joint fit reads the words and the embedding together where the separate heads cannot.
Here the embedding is centred as the encoder head's (:attr:`HeadRow.centre`) and the n-grams are the store's,
weighted as scikit-learn's ``TfidfVectorizer(sublinear_tf=True)`` does (1 + log tf, the store's IDF) over the
n-grams the loaded tickets have at the fit (its vocabulary: a prompt example's row is normalised over those
only; with the n-grams no loaded ticket has, bank priority fell). C 10, no class weights, as the anchor.

Its share of the first pass (a geometric mix: (1 - share) x log(first pass) + share x log(joint)) is
:data:`SHARE` for a field of at most :data:`MAX_LABELS` labels with no taught ticket, and fades with the taught
tickets per label t as SHARE x FADE / (FADE + t); under :data:`MIN_SHARE` it is not fitted at all (a fit costs
what it cost before). Fields with more labels are as before: the joint fit cost clinc-fields' 60-label intent
6 points (issue 34's W21 measurements, docs/command-line.md).

Measured through ``classify --fast`` (docs/command-line.md, W22). Untaught, 13 dev-set fields, six draws (dev
prompts seeds 0-2, richer prompts draws 0-2), against the first pass without it: bank priority 0.639 against 0.596
(the held-back check's anchor 0.627), bank queue +1.2, queues5-terse +1.1, clinc-support +1.0 and its terse
set +0.8, clinc-fields' domain +0.3, queues5narrow -0.3, clinc-assistant -0.6 (-0.7 with richer prompts); fields of
more than 6 labels unchanged. Taught (bank-fields, 1, 2 and 5 taught a queue label, three draws): queue 0.744,
0.748, 0.775 against 0.739, 0.745, 0.772 (untaught 0.760: the first taught tickets cost it 1.6 points, whatever the
fade); priority 0.638, 0.623, 0.722 against 0.573, 0.613, 0.722; FADE 0.5, 2 and 4 within 0.6 on the queue, 2 and 4
up to 1.6 points better on priority at 1 taught but still fitted at 10 taught a label. At 10 and 50 taught a label
it is not fitted: the labels are the same. An untaught fit takes 1.7 times as long (0.032 s against 0.019 s on 600
tickets; 0.08 s against 0.043 s on 6,160).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from ._lexical import KINDS, LexicalStore

SHARE = 0.9  # the joint head's share of an untaught first pass
MAX_LABELS = 6  # fields with more labels: no joint head
FADE = 1.0  # taught tickets per label at which the share is half of SHARE
MIN_SHARE = 0.1  # below it (over 8 taught a label), no joint head: not fitted, the fit costs what it did
C = 10.0


def share(n_labels: int, taught: int) -> float:
    """The joint head's share for a field of ``n_labels`` labels with ``taught`` taught tickets (0: none)."""
    if n_labels > MAX_LABELS or n_labels < 2:
        return 0.0
    found = SHARE * FADE / (FADE + taught / n_labels)
    return found if found >= MIN_SHARE else 0.0


def described(joint: Joint | None) -> str:
    """ "; the joint head mixed in at 0.9": how a fit's weights are told, where it has one."""
    return "" if joint is None else f"; the joint head mixed in at {joint.share:.2g}"


def vocabulary_idf(store: LexicalStore) -> dict[str, np.ndarray]:
    """The store's IDF, 0 for the n-grams no loaded ticket has (outside the joint head's vocabulary)."""
    return {kind: store.idf(kind) * (store.df(kind) > 0) for kind in KINDS}


def weigh(counts: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """scikit-learn's sublinear TF-IDF: (1 + log tf) x IDF, each row L2-normalised (n-grams with IDF 0 count
    for nothing, in the norm too). Not the store's :func:`_lexical.weigh` (log(1 + tf), float32), which its own
    word and character heads were measured with: this one is the anchor's, which the joint fit was measured with."""
    matrix = sp.csr_matrix(counts, dtype=np.float64, copy=True)
    data = matrix.data
    np.log(data, out=data)
    data += 1.0
    data *= idf[matrix.indices]
    lengths = np.diff(matrix.indptr)
    squares = np.add.reduceat(data * data, matrix.indptr[:-1][lengths > 0]) if data.size else np.zeros(0)
    norms = np.ones(matrix.shape[0])
    norms[lengths > 0] = np.sqrt(squares)
    norms[norms == 0] = 1.0
    data /= np.repeat(norms, lengths)
    return matrix


@dataclass
class Joint:
    """A fitted joint head: its weights over every column (embedding first, then each kind of n-gram's hashed
    columns; 0 where its training tickets had none), the IDF it weighs n-grams with, and its share."""

    coef: np.ndarray  # (columns, labels seen or 1)
    intercept: np.ndarray
    classes: np.ndarray
    n_labels: int
    idf: dict[str, np.ndarray]
    share: float
    width: int  # the embedding's

    def proba(self, embedded: np.ndarray, counts: dict[str, sp.csr_matrix]) -> np.ndarray:
        """(rows, labels) from centred embeddings and the rows' raw n-gram counts by kind; NaN rows where a
        row has no embedding."""
        n = len(embedded)
        out = np.full((n, self.n_labels), np.nan, dtype=np.float64)
        ok = ~np.isnan(embedded[:, 0]) if n and embedded.shape[1] == self.width else np.zeros(n, bool)
        if not ok.any():
            return out
        z = embedded[ok].astype(np.float64) @ self.coef[: self.width] + self.intercept
        start = self.width
        for kind in KINDS:  # block by block: no stacked copy of the rows
            x = weigh(counts[kind][ok], self.idf[kind])
            z += np.asarray(x @ self.coef[start : start + x.shape[1]])
            start += x.shape[1]
        probs = np.zeros((int(ok.sum()), self.n_labels))
        if len(self.classes) == 1:
            probs[:, self.classes[0]] = 1.0
        elif len(self.classes) == 2:
            p1 = 1 / (1 + np.exp(-z[:, 0]))
            probs[:, self.classes[0]], probs[:, self.classes[1]] = 1 - p1, p1
        else:
            z -= z.max(axis=1, keepdims=True)
            e = np.exp(z)
            probs[:, self.classes] = e / e.sum(axis=1, keepdims=True)
        out[ok] = probs
        return out


def features(embedded: np.ndarray, counts: dict[str, sp.csr_matrix], idf: dict[str, np.ndarray]) -> sp.csr_matrix:
    """Centred embeddings and each kind's TF-IDF side by side."""
    return sp.hstack([sp.csr_matrix(embedded.astype(np.float64))] + [weigh(counts[k], idf[k]) for k in KINDS],
                     format="csr")  # fmt: skip


def fit(
    embedded: np.ndarray, counts: dict[str, sp.csr_matrix], labels: np.ndarray, idf: dict[str, np.ndarray],
    n_labels: int, part: float,
) -> Joint | None:  # fmt: skip
    """The joint head on these tickets (centred embeddings, raw n-gram counts by kind); None without two labels."""
    ok = ~np.isnan(embedded[:, 0]) if len(embedded) and embedded.shape[1] else np.zeros(len(embedded), bool)
    y = labels[ok]
    if len(np.unique(y)) < 2:
        return None
    x = features(embedded[ok], {k: c[ok] for k, c in counts.items()}, idf)
    columns = np.union1d(np.arange(embedded.shape[1]), np.unique(x.indices))
    model = LogisticRegression(C=C, max_iter=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x[:, columns], y)
    coef = np.zeros((x.shape[1], len(model.coef_)))
    coef[columns] = model.coef_.T
    return Joint(coef, model.intercept_, model.classes_, n_labels, idf, part, embedded.shape[1])


def mix(first: np.ndarray, joint: np.ndarray, part: float, rows: np.ndarray) -> np.ndarray:
    """The first pass's probabilities with the joint head's mixed in geometrically on ``rows`` (those it has)."""
    out = first.copy()
    use = rows & ~np.isnan(joint[:, 0]) & ~np.isnan(first[:, 0])
    if use.any():
        z = (1 - part) * np.log(np.clip(first[use], 1e-9, 1)) + part * np.log(np.clip(joint[use], 1e-9, 1))
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out[use] = (e / e.sum(axis=1, keepdims=True)).astype(out.dtype)
    return out
