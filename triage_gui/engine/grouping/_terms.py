"""What a group is about, in words: class-based TF-IDF (BERTopic's c-TF-IDF) over words and two-word
phrases, a drafted name from the top terms and a one-line description.

c-TF-IDF treats each group's tickets as one document: a term's weight is its frequency in the group times
``log(1 + A / f)``, with ``A`` the average number of terms per group and ``f`` the term's frequency over every
group, so a word every group uses ("account", "help") weighs little and one a group owns weighs much. Stop
words are left out: English's (scikit-learn's list, with "did", "does" and "just") always, and those of every
other language the tickets are written in (``resources/stop_words.json``, the languages detected on a sample
of the tickets: :func:`ticket_languages`), so "nicht" or "pour" never names a group; and so is, for each
group, a term in more than half of the tickets *outside* it (a term every ticket uses says nothing about any
group, but a group that holds most of the tickets still has its own words: a filter on the share of all
tickets emptied the words of any group over half of them). English tickets keep exactly the terms they had: a
language joins only with at least :data:`LANGUAGE_SHARE` of the sample, so a few tickets taken for Dutch do
not drop "door".

Words (:func:`words`): runs of letters, two or more, with the apostrophes inside a word kept as one word
("doesn't", "can't", "aujourd'hui", "м'ясо", where the pattern before cut "doesn" and dropped the "t"); an
elided article or preposition before the apostrophe is dropped as the stop word it is ("l'application" ->
"application", "qu'il", "dell'ordine"), and so is a clitic or case ending after it ("customer's", "it's",
"we've", "auto's", Turkish "Visa'nın" -> "visa"). Straight, curly and modifier-letter apostrophes count alike
and are written "'".

A word hyphenated in the ticket stays one word ("top-up", "e-mail", "re-order"; "‐" and "‑" written "-"):
split, "top-up" lost both halves to the English stop list ("top", "up"), and a BANKING77 group of top-up
tickets was named "Auto / limit". Written apart ("top up") the words are still two, and both stop words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..table import LANGUAGE_SAMPLE, sample_languages, stop_words

TOP_TERMS = 8
MAX_DOC_SHARE = 0.5  # a term in more than half of the tickets outside a group says nothing about the group
MIN_OUTSIDE = 10  # fewer tickets outside a group: their share is noise, no term is left out for it
NAME_CHARS = 40  # a drafted name stays short; a label name may have 64
LANGUAGE_SHARE = 0.05  # a language's stop words join with this share of the sample (and two tickets)

APOSTROPHES = "'\u2019\u02bc\u2018`\u00b4"  # ' ’ ʼ ‘ ` ´: between two letters, each is an apostrophe
HYPHENS = "-\u2010\u2011"  # - ‐ ‑: between two letters, a hyphen joins one word (written "-")
_HYPHEN = str.maketrans({"\u2010": "-", "\u2011": "-"})
_LETTER = r"(?:[^\W\d_]|[\u0300-\u036f])"  # a letter, or a combining accent ("i̇" from a lower-cased "İ")
_WORD = re.compile(rf"(?<!\w){_LETTER}+(?:[{APOSTROPHES}{re.escape(HYPHENS)}]{_LETTER}+)*(?!\w)")
_APOSTROPHE = re.compile(f"[{APOSTROPHES}]")
_MARKS = frozenset(APOSTROPHES)
# Elided before an apostrophe (French, Italian, Catalan): an article, pronoun or preposition, a stop word.
_ELIDED = """l d j m n s t c qu jusqu lorsqu puisqu quoiqu presqu quelqu dell dall nell sull all coll dagl degl
    negl sugl un quest quell nessun buon bell sant tutt"""
ELIDED = frozenset(_ELIDED.split())
# After an apostrophe: English clitics and the possessive (also the Dutch plural), Turkish case endings.
_ENDINGS = """s m re ve ll d a e ı i u ü da de ta te dan den tan ten ın in un ün nın nin nun nün ya ye yı yi yu yü
    la le lar ler na ne nda nde ndan nden yla yle daki deki taki teki"""
ENDINGS = frozenset(_ENDINGS.split())


def words(text: str) -> list[str]:
    """The words of a (lower-cased) text, as the module docstring says: "my card doesn't work" -> ["my",
    "card", "doesn't", "work"]; "l'application" -> ["application"]; "my top-up failed" -> ["my", "top-up",
    "failed"]."""
    found = _WORD.findall(text)
    if "\u2010" in text or "\u2011" in text:
        found = [w.translate(_HYPHEN) for w in found]
    if _MARKS.isdisjoint(text):
        return [w for w in found if len(w) > 1]
    out = []
    for token in found:
        if _MARKS.isdisjoint(token):
            if len(token) > 1:
                out.append(token)
            continue
        parts = _APOSTROPHE.split(token)
        while len(parts) > 1 and parts[0] in ELIDED:
            parts = parts[1:]
        if len(parts) == 2 and parts[1] in ENDINGS:
            parts = parts[:1]
        word = "'".join(parts)
        if len(word) > 1:
            out.append(word)
    return out


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
        self.present = None  # ticket x term: 1 where the ticket has the term
        self.vocab = np.zeros(0, dtype=object)
        # Words of two or more letters (digits and order numbers are no topic), lower-cased: :func:`words`.
        vectorizer = CountVectorizer(
            ngram_range=(1, 2),
            stop_words=sorted(stop_words(ticket_languages(texts) if languages is None else languages)),
            tokenizer=words,
            token_pattern=None,
            min_df=2 if len(texts) >= 50 else 1,
            dtype=np.float32,
        )
        try:
            self.counts = vectorizer.fit_transform(list(texts)).tocsr()
        except ValueError:  # no word at all (every ticket a number, or empty): no terms, nothing else lost
            return
        self.vocab = np.asarray(vectorizer.get_feature_names_out(), dtype=object)
        self.present = self.counts.copy()
        self.present.data[:] = 1

    def top_terms(self, assignment: np.ndarray, groups: int, top: int = TOP_TERMS) -> list[list[str]]:
        """The ``top`` most distinctive terms of each group 0..groups-1 (``assignment`` -1: in none).

        A word already inside a chosen two-word phrase is skipped ("card" after "card arrived"), so the
        list says more in the same room."""
        if self.counts is None or self.present is None or groups == 0:
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
        # A term in more than MAX_DOC_SHARE of the tickets outside a group is no word of that group.
        tickets = np.asarray((member @ self.present).todense(), dtype=np.float64)  # groups x terms: tickets
        everywhere = np.asarray(self.present.sum(axis=0), dtype=np.float64).ravel()
        outside = self.counts.shape[0] - np.asarray(member.sum(axis=1), dtype=np.float64)  # groups x 1
        common = (everywhere[None, :] - tickets > MAX_DOC_SHARE * outside) & (outside >= MIN_OUTSIDE)
        return [self._chosen(weight[g], common[g], top) for g in range(groups)]

    def _chosen(self, weight: np.ndarray, common: np.ndarray, top: int) -> list[str]:
        """A group's ``top`` terms by weight, not ``common``; a word inside a chosen two-word phrase skipped, and
        so is another form of a chosen word (:func:`stem`: "cards" after "card", "charges" after "charged").
        Never empty while the group has a word: when every one is common, the commonest are its words."""
        mine = np.where(common, 0.0, weight)
        if not (mine > 0).any():
            mine = weight
        chosen: list[str] = []
        keys: list[list[str]] = []  # each chosen term's word stems
        for j in np.argsort(-mine, kind="stable")[: top * 4]:
            if mine[j] <= 0:
                break
            term = str(self.vocab[j])
            key = [stem(w) for w in term.split()]
            if any(key == k or set(key) <= set(k) or set(k) <= set(key) for k in keys) or len(set(key)) < len(key):
                continue
            chosen.append(term)
            keys.append(key)
            if len(chosen) == top:
                break
        return chosen


# English endings that make another form of one word, tried in this order (the first that fits is cut).
_ENDINGS_OF_FORMS = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", ""))


def stem(word: str) -> str:
    """The part of a word its plural, third person, past tense and -ing forms share, so that they count as one
    word in a group's terms: "cards" and "card" -> "card"; "charged", "charges" and "charge" -> "charg";
    "currencies" -> "currency"; "fees" -> "fee". A crude cut, used only to compare terms, never shown: walkthrough
    groups were named "Card / cards" and "Transfer / transfers" and described as "charged, fee, charge and
    charges". At least three letters stay, and a double "ss" is no plural ("access")."""
    for ending, instead in _ENDINGS_OF_FORMS:
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not (ending == "s" and word.endswith("ss")):
            word = word[: -len(ending)] + instead
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


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
