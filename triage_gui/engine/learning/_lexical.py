"""Lexical features of every loaded ticket, kept compact, for the taught classifier's bag-of-words heads.

Word unigrams+bigrams and character 3-5-grams (within words), hashed into 65,536 columns (scikit-learn's
HashingVectorizer: no vocabulary to refit as tickets arrive), kept per row as uint16 column indices with
uint8 counts. On BANKING77 that is 18 word and 97 character n-grams a ticket, ~350 bytes (70 MB for
200,000 rows; int32 indices and 2-5-grams in a million columns took 700 bytes, scipy's float32 CSR 1.3 KB).
On the dev sets the smaller hashing space and dropping character bigrams changed the taught classifier's
accuracy by at most 0.4 points. Vectorising costs ~0.15 ms a ticket, on the learning thread as tickets
load. TF-IDF weights come from document frequencies over all loaded rows, updated incrementally, so a
refit never re-reads a text. No stop words, in any language: leaving out those of the six languages of the
multilingual dev set (devsets/xsid) moved the first pass by -1.0, -0.7 and +0.2 points untaught, at 10 and
at 50 taught per label (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import HashingVectorizer

from ...defaults import LABEL_CHARS

N_FEATURES = 2**16  # fits uint16 indices
KINDS = ("word", "char")


def _vectorizer(kind: str) -> HashingVectorizer:
    if kind == "word":
        options = {"analyzer": "word", "ngram_range": (1, 2)}
    else:
        options = {"analyzer": "char_wb", "ngram_range": (3, 5)}
    return HashingVectorizer(n_features=N_FEATURES, alternate_sign=False, norm=None, preprocessor=_cut_lower, **options)


def _cut_lower(text: str) -> str:
    """The one cut of the n-gram heads' text: its first LABEL_CHARS characters, lower-cased (what
    ``lowercase=True`` did). A 20 MB ticket's character 3-5-grams took 4.3 GB, its words 0.8 GB."""
    return text[:LABEL_CHARS].lower()


class _Rows:
    """CSR pieces of one kind of n-gram, appended chunk by chunk."""

    def __init__(self) -> None:
        self.indptr = [np.zeros(1, dtype=np.int64)]
        self.indices: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []
        self.df = np.zeros(N_FEATURES, dtype=np.int32)
        self.rows = 0
        self._flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def append(self, matrix: sp.csr_matrix) -> None:
        matrix.sum_duplicates()
        offset = self.indptr[-1][-1]
        self.indptr.append(matrix.indptr[1:].astype(np.int64) + offset)
        self.indices.append(matrix.indices.astype(np.uint16))
        self.counts.append(np.minimum(matrix.data, 255).astype(np.uint8))
        np.add.at(self.df, matrix.indices, 1)
        self.rows += matrix.shape[0]
        self._flat = None

    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._flat is None:
            self._flat = (
                np.concatenate(self.indptr),
                np.concatenate(self.indices) if self.indices else np.zeros(0, np.uint16),
                np.concatenate(self.counts) if self.counts else np.zeros(0, np.uint8),
            )
            self.indptr, self.indices, self.counts = [self._flat[0]], [self._flat[1]], [self._flat[2]]
        return self._flat

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (*self.indptr, *self.indices, *self.counts)) + self.df.nbytes


class LexicalStore:
    """Hashed n-gram counts of rows 0..len-1, in row order."""

    def __init__(self) -> None:
        self._vectorizers = {kind: _vectorizer(kind) for kind in KINDS}
        self._rows = {kind: _Rows() for kind in KINDS}

    def __len__(self) -> int:
        return self._rows["word"].rows

    def add(self, texts: Sequence[str]) -> None:
        """Vectorise the next rows (call with rows in order; thread: whoever owns the store)."""
        if not texts:
            return
        for kind in KINDS:
            self._rows[kind].append(self._vectorizers[kind].transform(list(texts)))

    def df(self, kind: str) -> np.ndarray:
        """In how many loaded rows each hashed n-gram occurs."""
        return self._rows[kind].df

    def idf(self, kind: str) -> np.ndarray:
        """Smoothed inverse document frequency over the rows loaded so far (as scikit-learn computes it)."""
        store = self._rows[kind]
        return (np.log((1 + store.rows) / (1 + store.df)) + 1).astype(np.float32)

    def tfidf(self, kind: str, rows: np.ndarray | slice, idf: np.ndarray) -> sp.csr_matrix:
        """L2-normalised TF-IDF (sublinear tf) of these rows, float32 CSR."""
        return weigh(self.counts(kind, rows), idf)

    def counts(self, kind: str, rows: np.ndarray | slice) -> sp.csr_matrix:
        """These rows' n-gram counts, float32 CSR."""
        indptr, indices, counts = self._rows[kind].flat()
        if isinstance(rows, slice):
            start, stop, _ = rows.indices(len(indptr) - 1)
            lo, hi = indptr[start], indptr[stop]
            return sp.csr_matrix(
                (counts[lo:hi].astype(np.float32), indices[lo:hi].astype(np.int32), indptr[start : stop + 1] - lo),
                shape=(stop - start, N_FEATURES),
            )
        picked = np.asarray(rows, dtype=np.int64)
        starts, ends = indptr[picked], indptr[picked + 1]
        spans = [np.arange(a, b) for a, b in zip(starts, ends)]
        take = np.concatenate(spans) if spans else np.zeros(0, dtype=np.int64)
        new_indptr = np.concatenate([[0], np.cumsum(ends - starts)])
        return sp.csr_matrix(
            (counts[take].astype(np.float32), indices[take].astype(np.int32), new_indptr),
            shape=(len(picked), N_FEATURES),
        )

    def transform(self, kind: str, texts: Sequence[str], idf: np.ndarray) -> sp.csr_matrix:
        """TF-IDF of texts that are not rows (the prompt's examples, taught tickets not loaded)."""
        return weigh(self.text_counts(kind, texts), idf)

    def text_counts(self, kind: str, texts: Sequence[str]) -> sp.csr_matrix:
        """The n-gram counts of texts that are not rows, float32 CSR."""
        return self._vectorizers[kind].transform(list(texts)).astype(np.float32)

    @property
    def nbytes(self) -> int:
        return sum(r.nbytes for r in self._rows.values())


def weigh(counts: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """Sublinear TF times IDF, each row L2-normalised: in place on the data array (no sparse products)."""
    matrix = sp.csr_matrix(counts, dtype=np.float32, copy=True)
    data = matrix.data
    np.log1p(data, out=data)
    data *= idf[matrix.indices]
    lengths = np.diff(matrix.indptr)
    squares = np.add.reduceat(data * data, matrix.indptr[:-1][lengths > 0]) if data.size else np.zeros(0)
    norms = np.ones(matrix.shape[0], dtype=np.float32)
    norms[lengths > 0] = np.sqrt(squares)
    data /= np.repeat(norms, lengths)
    return matrix
