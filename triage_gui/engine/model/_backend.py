"""What the engine programs against: a model and its tokenizer (so callers never ask which backend they
hold), and what scoring and learning need of a scorer and a sentence encoder (so the learning code depends
on these protocols, not on the scoring package).

:class:`decoder.LeanDecoder` (Llama-family weights run by our own code) and
:class:`transformers_decoder.TransformersDecoder` (anything transformers loads) both satisfy
:class:`Decoder`; :class:`chat_tokenizer.ChatTokenizer` and transformers' tokenizers both satisfy
:class:`Tokenizer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: this module stays free of torch, so the session can import it at start
    import numpy as np
    import torch

    from ..table import TicketScore
    from ._attention import KV


class Decoder(Protocol):
    """A causal LM's forward pass over packed rows, with a shared prefix read in place."""

    dtype: torch.dtype
    device: torch.device

    @property
    def vocab_size(self) -> int: ...

    @property
    def hidden_size(self) -> int: ...

    @property
    def max_context(self) -> int: ...

    @property
    def products(self) -> str:
        """The library computing the weight products ("onednn", "aten", "transformers"): their rounding
        differs in the last bits, so stored prefixes are keyed by it."""
        ...

    @property
    def backend(self) -> str:
        """A short name for people: "lean decoder" or "transformers modules"."""
        ...

    def forward(
        self,
        input_ids: torch.Tensor,
        positions: torch.Tensor,
        mask: torch.Tensor | None = None,
        prefix: KV | None = None,
        keep_kv: bool = False,
        keep: torch.Tensor | None = None,
        slots: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, KV]: ...

    def logits(self, hidden: torch.Tensor) -> torch.Tensor: ...


class Tokenizer(Protocol):
    """The part of transformers' tokenizer interface that :mod:`layout` uses."""

    chat_template: Any
    eos_token_id: Any
    pad_token_id: Any

    @property
    def added_tokens_encoder(self) -> dict[str, int]: ...

    def __call__(
        self,
        text: str,
        /,
        *,
        add_special_tokens: bool = ...,
        split_special_tokens: bool = ...,
        return_offsets_mapping: bool = ...,
    ) -> Any: ...

    def __len__(self) -> int: ...

    def apply_chat_template(
        self,
        conversation: list[dict[str, str]],
        /,
        *,
        tokenize: bool = ...,
        add_generation_prompt: bool = ...,
        chat_template: str | None = ...,
    ) -> Any: ...

    def convert_ids_to_tokens(self, ids: list[int], /) -> Any: ...


class ScorerLike(Protocol):
    """What scoring needs of a scorer: :class:`scorer.Scorer`, or a fake in the session tests."""

    labels: list[str]

    def score_batch(self, texts: list[str]) -> list[TicketScore]: ...

    def score_full(self, text: str) -> TicketScore: ...


class EncoderLike(Protocol):
    """What the learned head needs of a sentence encoder: :class:`encoder.SentenceEncoder`, the multilingual
    :class:`_e5.E5Encoder`, or a fake."""

    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...
