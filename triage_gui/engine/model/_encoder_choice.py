"""Which sentence encoder: the bundled ones by name, the key their embeddings are kept under, and the one
signal the window uses to offer the multilingual encoder. Free of torch and numpy, so the window's model
dialog lists the names without loading a model.

A table's embeddings are kept per encoder (:class:`engine.table.FeatureStore` keyed by :func:`encoder_key`):
all-MiniLM-L6-v2 and multilingual-e5-small are both 384 wide, so keyed by width alone the two would mix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

BUNDLED_ENCODER = "bundled"  # MiniLM, as older settings and scripts name it
MINILM = "minilm"
E5_SMALL = "e5-small"
# The bundled encoders a lead can choose by name (the window's model dialog, every command's --encoder):
# name -> what the dialog and --help say.
ENCODERS = {
    MINILM: "all-MiniLM-L6-v2, English, the default",
    E5_SMALL: "multilingual-e5-small, 4-bit, about 100 languages",
}
MULTILINGUAL = E5_SMALL


def canonical_encoder(spec: str) -> str:
    """A setting's or option's encoder as one name: "bundled" and "" are MiniLM; anything else as given."""
    spec = (spec or "").strip()
    return MINILM if spec in ("", BUNDLED_ENCODER) else spec


def encoder_key(encoder: object) -> str:
    """What embeddings from ``encoder`` are kept under: its ``key`` (weights' checksum or folder), else name."""
    return str(getattr(encoder, "key", "") or getattr(encoder, "name", "") or type(encoder).__name__)


# The commonest English function words: a ticket in English nearly always has one, in German, French,
# Spanish, Italian, Portuguese or Dutch rarely (measured below). A stop-gap behind one function until the
# language detector (issue 35, helper C) replaces it.
_ENGLISH = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "my",
        "i",
        "is",
        "are",
        "was",
        "it",
        "this",
        "that",
        "be",
        "have",
        "has",
        "not",
        "no",
        "can",
        "you",
        "your",
        "me",
        "we",
        "do",
        "does",
        "did",
        "how",
        "what",
        "when",
        "why",
        "where",
        "please",
        "help",
    ]
)
_WORD = re.compile(r"[^\W\d_]+")


def english_like(text: str) -> bool:
    """Whether a ticket reads as English: mostly Latin letters and at least one common English word."""
    words = _WORD.findall(text.lower())
    if not words:
        return True  # numbers, codes, empty: nothing says it is another language
    latin = sum(1 for w in words if w.isascii())
    return latin * 2 >= len(words) and any(w in _ENGLISH for w in words)


def mostly_not_english(texts: Sequence[str], sample: int = 500) -> bool:
    """Whether most of these tickets (the first ``sample``) are not English: the window then offers the
    multilingual encoder in one line. Cheap (a regex per ticket); the language detector can replace it."""
    seen = [t for t in texts[:sample] if t.strip()]
    return bool(seen) and sum(1 for t in seen if not english_like(t)) * 2 > len(seen)
