"""Which sentence encoder: the bundled ones by name and the key their embeddings are kept under. Free of
torch and numpy, so the window's model dialog lists the names without loading a model. (Whether a file's
tickets are mostly not English, so that the window offers the multilingual encoder, is the language
detector's to say: ``engine.table.not_english``.)

A table's embeddings are kept per encoder (:class:`engine.table.FeatureStore` keyed by :func:`encoder_key`):
all-MiniLM-L6-v2 and multilingual-e5-small are both 384 wide, so keyed by width alone the two would mix.
"""

from __future__ import annotations

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


def encoder_name(spec: str) -> str:
    """What the window calls an encoder ("multilingual-e5-small"): a bundled one's model name, else as given."""
    spec = canonical_encoder(spec)
    return ENCODERS[spec].split(",")[0] if spec in ENCODERS else spec


def encoder_key(encoder: object) -> str:
    """What embeddings from ``encoder`` are kept under: its ``key`` (weights' checksum or folder), else name."""
    return str(getattr(encoder, "key", "") or getattr(encoder, "name", "") or type(encoder).__name__)
