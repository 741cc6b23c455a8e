"""Each ticket's language, detected offline, and the stop words of the languages a support team meets.

The detector is py3langid 0.4.0 (a numpy naive Bayes over byte n-grams, its model in the wheel: 4.5 MB, no
download, no pickle), restricted to the fourteen languages of :data:`LANGUAGES`. Measured on 346 short
sentences (5-15 words, Tatoeba) in ten of them (``devsets/languages``, ``measure.py``): 345 right, one
unknown (a four-word Swedish question under :data:`MIN_CONFIDENCE`), none wrong; unrestricted (97
languages) 344 right, two wrong (Spanish as Galician, Dutch as Afrikaans): fewer candidates help short
texts. 2,900-4,000 tickets a second on one idle core (800-1,000 with both cores busy), loaded in 1-5 s.
lingua-language-detector 2.1.1 got all 346 restricted, but took 15-18 s to load, ran at ~750 a second
(~200 loaded; ~150 and ~60 with all its languages) and is a 96 MB wheel: the bundle would grow by more than
the language model it ships.

Unknown is ``""``: a text with fewer than :data:`MIN_LETTERS` letters ("ok", "ATM", an order number), or
whose best language has a probability under :data:`MIN_CONFIDENCE` (py3langid's length-normalised
probability: "Karte gesperrt" 0.25, "Mein Passwort geht nicht" 0.99). A guess on such a text is a coin
toss, and an empty cell says so. A text whose letters are mostly of another script than the Latin alphabet
all fourteen are written in (:data:`LATIN_END`) is named by its script (:data:`SCRIPTS`: "Cyrillic script"):
restricted to the fourteen, the detector still named one of them, sure enough to be shown ("Какая погода
будет завтра в Москве?" Turkish, a Hebrew sentence Czech; W10), and an empty cell would not count it as
"not English", which the multilingual encoder's offer reads (:func:`not_english`).
"""

from __future__ import annotations

import json
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache

# Code -> the language's name in English, the order the summary and the filter list them in when counts tie.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "nl": "Dutch",
    "pt": "Portuguese",
    "pl": "Polish",
    "sv": "Swedish",
    "da": "Danish",
    "no": "Norwegian",
    "fi": "Finnish",
    "cs": "Czech",
    "tr": "Turkish",
}
# Code -> name of a script the detector's fourteen are not written in: its ISO 15924 code, by the first word of
# the Unicode names of most of the text's letters of that script (CJK ideographs: Chinese or Japanese).
SCRIPTS: dict[str, str] = {
    "Cyrl": "Cyrillic script",
    "Grek": "Greek script",
    "Arab": "Arabic script",
    "Hebr": "Hebrew script",
    "Hani": "Chinese characters",
    "Kana": "Japanese kana",
    "Hang": "Korean Hangul",
    "Deva": "Devanagari script",
    "Thai": "Thai script",
    "Zyyy": "Another script",
}
_SCRIPT_OF = {
    "CYRILLIC": "Cyrl", "GREEK": "Grek", "ARABIC": "Arab", "HEBREW": "Hebr", "CJK": "Hani", "HIRAGANA": "Kana",
    "KATAKANA": "Kana", "HANGUL": "Hang", "DEVANAGARI": "Deva", "THAI": "Thai",
}  # fmt: skip
UNKNOWN = ""
MIN_LETTERS = 8
MIN_CONFIDENCE = 0.5
LATIN_END = "\u024f"  # the last letter of Latin Extended-B: ASCII, Latin-1 and Extended-A/B hold all fourteen
LANGUAGE_SAMPLE = 500  # tickets detected to say what a set is written in (the group names' stop words)
DETECT_CHARS = 2000  # the start of a long ticket says its language; the whole of a 20 MB one took seconds

_lock = threading.Lock()
_identifier = None


def _detector():
    """The restricted identifier, loaded once (the model's xz takes ~1-4 s to open) by whichever thread
    asks first."""
    global _identifier
    with _lock:
        if _identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            identifier.set_languages(list(LANGUAGES))
            _identifier = identifier
        return _identifier


def detect_language(text: str) -> str:
    """The text's language code (a key of :data:`LANGUAGES`, or of :data:`SCRIPTS` for another script), or ``""``
    when too short or unsure."""
    text = text[:DETECT_CHARS]
    letters = [c for c in text if c.isalpha()]
    if len(letters) < MIN_LETTERS:
        return UNKNOWN
    if 2 * sum(c <= LATIN_END for c in letters) <= len(letters):
        return script_of(letters)  # Cyrillic, Greek, Hebrew, Arabic, CJK: none of the fourteen
    code, confidence = _detector().classify(text)
    return str(code) if confidence >= MIN_CONFIDENCE else UNKNOWN


def script_of(letters: Iterable[str]) -> str:
    """The :data:`SCRIPTS` code of the script most of these letters past the Latin alphabet are in."""
    counts = Counter(_SCRIPT_OF.get(unicodedata.name(c, "").split(" ", 1)[0], "Zyyy") for c in letters if c > LATIN_END)
    return counts.most_common(1)[0][0] if counts else "Zyyy"


def detect_languages(texts: Iterable[str]) -> list[str]:
    return [detect_language(t) for t in texts]


def sample_languages(texts: Sequence[str], sample: int = LANGUAGE_SAMPLE) -> list[str]:
    """The detected languages of up to ``sample`` tickets spread evenly over ``texts`` (first and last
    included): what the tickets are written in, without reading every one (~0.3 ms a ticket)."""
    import numpy as np

    if not len(texts):
        return []
    picked = np.unique(np.linspace(0, len(texts) - 1, min(len(texts), sample)).astype(np.int64))
    return detect_languages(texts[int(i)] for i in picked)


# The share of tickets of a known language not in English from which the multilingual encoder is offered. From
# docs/performance.md's tables, the first pass alone: on the six-language set e5-small labels the other
# languages' tickets 71-75 % right untaught where MiniLM gets 27-42 % (91 % and 50-68 % at 10 taught a label),
# and on English sets it costs 1-3 points. At a quarter not English that is about +7 points overall, untaught
# and at 10 taught (0.75 x -2.7 + 0.25 x +37; 0.75 x -1 + 0.25 x +31); even is near 7 %. It was a half: W14's
# 113 IT tickets, 36 % German, got no offer, and e5-small took their queue from 59 % to 67 % (German 32 -> 59).
NOT_ENGLISH_SHARE = 0.25


def not_english(counts: Mapping[str, int]) -> str:
    """Whether enough tickets of a known language are not English for the multilingual encoder to label them
    better (:data:`NOT_ENGLISH_SHARE`; ``counts``: tickets per language code, as :meth:`TicketTable.language_counts`
    gives them; unknown ``""`` left out): "" if not, else what the offer says of them ("36 % of these tickets are
    not in English (72 English, 41 German)"). The detector, not a word list: "No puedo entrar a mi cuenta" is
    Spanish though it has "no" and "a" (the hand heuristic this replaced read such tickets as English)."""
    known = sum(n for code, n in counts.items() if code)
    other = known - counts.get("en", 0)
    if not known or other < NOT_ENGLISH_SHARE * known:
        return ""
    share = "Most" if other * 2 > known else f"{round(100 * other / known)} %"
    return f"{share} of these tickets are not in English ({language_summary(dict(counts))})"


def language_name(code: str) -> str:
    """English name of a code ("de" -> "German", "Cyrl" -> "Cyrillic script"); ``""`` for unknown."""
    return LANGUAGES.get(code) or SCRIPTS.get(code, code)


def language_summary(counts: dict[str, int], most: int = 3, unknown: bool = False) -> str:
    """ "312 German, 88 English": the commonest languages first, ``most`` named and the rest counted ("5 in 2
    other languages"); tickets of unknown language are left out, or with ``unknown`` counted last ("7 unknown",
    as the language filter says: the window's summary, whose counts read 400 of 407 tickets without it)."""
    order = list(LANGUAGES)
    known = sorted(
        ((n, c) for c, n in counts.items() if c and n),
        key=lambda x: (-x[0], order.index(x[1]) if x[1] in order else 99),
    )
    if len(known) == most + 1:  # one more is named rather than counted as "in 1 other language"
        most += 1
    parts = [f"{n:,} {language_name(c)}" for n, c in known[:most]]
    if len(known) > most:
        parts.append(f"{sum(n for n, _ in known[most:]):,} in {len(known) - most} other languages")
    if unknown and parts and counts.get(""):
        parts.append(f"{counts['']:,} unknown")
    return ", ".join(parts)


@cache
def _stop_word_lists() -> dict[str, frozenset[str]]:
    from ...paths import resources_dir

    with open(resources_dir() / "stop_words.json", encoding="utf-8") as handle:
        raw = json.load(handle)
    return {code: frozenset(words) for code, words in raw.items() if not code.startswith("_")}


# Auxiliaries scikit-learn's English list lacks ("do" and "done" are in it): on 300 banking77 tickets
# *Suggest labels* named groups "Cash / did" and "Long does" ("how long does a transfer take") and listed
# "just" among a group's words. Negations ("doesn't") stay: they are a group's words.
ENGLISH_EXTRA = frozenset({"did", "does", "doing", "just"})


def stop_words(codes: Sequence[str]) -> frozenset[str]:
    """The bundled stop words of these languages (English's is scikit-learn's list with
    :data:`ENGLISH_EXTRA`, not ours)."""
    lists = _stop_word_lists()
    out: set[str] = set()
    for code in codes:
        if code == "en":
            from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

            out |= ENGLISH_STOP_WORDS | ENGLISH_EXTRA
        else:
            out |= lists.get(code, frozenset())
    return frozenset(out)
