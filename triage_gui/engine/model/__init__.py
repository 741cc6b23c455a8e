"""The models: finding, converting and loading the language model (the bundled GGUF, a Hub id, a folder),
the lean Llama-family decoder and the transformers fallback behind one protocol, the attention both use, the
chat tokenizer, the sentence encoder, the checksums that guard converted models and user folders, and the
prefix keys/values stored between runs.

Imports only :mod:`..files`. The protocols the rest of the engine programs against (``Decoder``,
``Tokenizer``, ``ScorerLike``, ``EncoderLike``) live here, so scoring and learning depend on what a model
offers, not on each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from . import _prefix_store as prefix_store
    from ._attention import KV, additive_mask
    from ._backend import Decoder, EncoderLike, ScorerLike, Tokenizer
    from ._encoder import load_encoder
    from ._encoder_choice import (
        E5_SMALL,
        ENCODERS,
        MINILM,
        MULTILINGUAL,
        canonical_encoder,
        encoder_key,
        encoder_name,
    )
    from ._integrity import damaged_model_message
    from ._loader import BUNDLED, RECOMMENDED_ONLINE, LoadedModel, ModelLoadError, is_hub_id, load_model
    from ._transformers_decoder import TransformersDecoder

# Imported on first use: torch and transformers (2-3 s) stay out of the window's start.
__getattr__ = lazy_face(
    __name__,
    {
        "_attention": ["KV", "additive_mask"],
        "_backend": ["Decoder", "EncoderLike", "ScorerLike", "Tokenizer"],
        "_encoder": ["load_encoder"],
        "_encoder_choice": [
            "E5_SMALL",
            "ENCODERS",
            "MINILM",
            "MULTILINGUAL",
            "canonical_encoder",
            "encoder_key",
            "encoder_name",
        ],
        "_integrity": ["damaged_model_message"],
        "_loader": ["BUNDLED", "LoadedModel", "ModelLoadError", "RECOMMENDED_ONLINE", "is_hub_id", "load_model"],
        "_transformers_decoder": ["TransformersDecoder"],
    },
    modules={"prefix_store": "_prefix_store"},
)

__all__ = [
    "BUNDLED",
    "E5_SMALL",
    "ENCODERS",
    "KV",
    "MINILM",
    "MULTILINGUAL",
    "RECOMMENDED_ONLINE",
    "Decoder",
    "EncoderLike",
    "LoadedModel",
    "ModelLoadError",
    "ScorerLike",
    "Tokenizer",
    "TransformersDecoder",
    "additive_mask",
    "canonical_encoder",
    "damaged_model_message",
    "encoder_key",
    "encoder_name",
    "is_hub_id",
    "load_encoder",
    "load_model",
    "prefix_store",
]
