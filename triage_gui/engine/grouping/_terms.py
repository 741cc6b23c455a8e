"""What a group is about, in words: class-based TF-IDF (BERTopic's c-TF-IDF) over words and two-word
phrases, a drafted name from the top terms and a one-line description.

c-TF-IDF treats each group's tickets as one document: a term's weight is its frequency in the group times
``log(1 + A / f)``, with ``A`` the average number of terms per group and ``f`` the term's frequency over
every group, so a word every group uses ("account", "help") weighs little and one a group owns weighs
much. Stop words are left out: English's (scikit-learn's list) always, and those of every other language
the tickets are written in (``resources/stop_words.json``, the languages detected on a sample of the
tickets: :func:`ticket_languages`), so "nicht" or "pour" never names a group; and so is any term in more
than half of the tickets. English tickets keep exactly the terms they had: a language joins only with at
least :data:`LANGUAGE_SHARE` of the sample, so a few tickets taken for Dutch do not drop "door".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..table import LANGUAGE_SAMPLE, sample_languages, stop_words

TOP_TERMS = 8
MAX_DOC_SHARE = 0.5  # a term in more than half of the tickets says nothing about any group
NAME_CHARS = 40  # a drafted name stays short; a label name may have 64
LANGUAGE_SHARE = 0.05  # a language's stop words join with this share of the sample (and two tickets)


def ticket_languages(texts: Sequence[str]) -> list[str]:
    """The languages the tickets are written in, English always: detected on up to LANGUAGE_SAMPLE of them."""
    found = sample_languages(texts, LANGUAGE_SAMPLE)
    codes, counts = np.unique([c for c in found if c], return_counts=True)
    share = [str(c) for c, n in zip(codes, counts) if n >= max(2, LANGUAGE_SHARE * len(found))]
    return ["en", *sorted(set(share) - {"en"})]


class Terms:
    """Every ticket's counts of words and two-word phrases (fitted once per ticket set)."""

    def __init__(self, texts: Sequence[str], languages: Sequence[str] | None = None) -> None:
        """``languages``: the codes whose stop words to leave out (None: :func:`ticket_languages`)."""
        from sklearn.feature_extraction.text import CountVectorizer

        self.counts = None
        self.vocab = np.zeros(0, dtype=object)
        # Words of two or more letters (digits and order numbers are no topic), lower-cased.
        vectorizer = CountVectorizer(
            ngram_range=(1, 2),
            stop_words=sorted(stop_words(ticket_languages(texts) if languages is None else languages)),
            token_pattern=r"(?u)\b[^\W\d_][^\W\d_]+\b",
            max_df=MAX_DOC_SHARE if len(texts) >= 20 else 1.0,
            min_df=2 if len(texts) >= 50 else 1,
            dtype=np.float32,
        )
        try:
            self.counts = vectorizer.fit_transform(list(texts)).tocsr()
        except ValueError:  # no word at all (every ticket a number, or empty): no terms, nothing else lost
            return
        self.vocab = np.asarray(vectorizer.get_feature_names_out(), dtype=object)

    def top_terms(self, assignment: np.ndarray, groups: int, top: int = TOP_TERMS) -> list[list[str]]:
        """The ``top`` most distinctive terms of each group 0..groups-1 (``assignment`` -1: in none).

        A word already inside a chosen two-word phrase is skipped ("card" after "card arrived"), so the
        list says more in the same room."""
        if self.counts is None or groups == 0:
            return [[] for _ in range(groups)]
        from scipy import sparse

        inside = assignment >= 0
        member = sparse.csr_matrix(
            (np.ones(int(inside.sum()), dtype=np.float32), (assignment[inside], np.flatnonzero(inside))),
            shape=(groups, self.counts.shape[0]),
        )
        tf = np.asarray((member @ self.counts).todense(), dtype=np.float64)  # groups x terms
        per_group = tf.sum(axis=1, keepdims=True)
        freq = tf.sum(axis=0)
        average = max(float(per_group.mean()), 1.0)
        weight = (tf / np.maximum(per_group, 1)) * np.log1p(average / np.maximum(freq, 1))
        found: list[list[str]] = []
        for g in range(groups):
            order = np.argsort(-weight[g], kind="stable")
            chosen: list[str] = []
            for j in order[: top * 4]:
                if weight[g, j] <= 0:
                    break
                term = str(self.vocab[j])
                if any(term in c.split() or c in term.split() for c in chosen if " " in c or " " in term):
                    continue
                chosen.append(term)
                if len(chosen) == top:
                    break
            found.append(chosen)
        return found


def draft_name(terms: Sequence[str], taken: set[str], number: int) -> str:
    """A short label name from a group's top terms ("Card arrived", "Exchange rate / fee"), unique among
    ``taken`` (case-insensitively); "Group N" when the group has no words."""
    if not terms:
        name = f"Group {number}"
    else:
        name = terms[0]
        if " " not in name and len(terms) > 1:
            name = f"{name} / {terms[1]}"
        name = name[:NAME_CHARS].strip()
        name = name[:1].upper() + name[1:]
    base, n = name, 2
    while name.casefold() in taken:
        name = f"{base} {n}"
        n += 1
    return name


def draft_description(terms: Sequence[str], size: int) -> str:
    """One line a lead can keep or edit, and the model reads beside the label's name."""
    if not terms:
        return f"{size:,} tickets with no distinctive words."
    shown = list(terms[:4])
    words = ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else shown[0]
    return f"Tickets about {words}."
