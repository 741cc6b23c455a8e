"""The decoder interface over any transformers causal LM, for architectures :mod:`decoder` does not know.

Same calls as :class:`decoder.LeanDecoder` (the :class:`backend.Decoder` protocol). The prefix
keys/values are shared by every ticket and never written to: a registered transformers attention
function reads them in place (the same shared-prefix attention as the lean decoder), and models that
cannot switch attention get a read-only Cache view that concatenates the prefix with each forward's
new keys and stores nothing.
"""

from __future__ import annotations

import torch
from transformers import AttentionInterface
from transformers.cache_utils import Cache, DynamicLayer
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

from ._attention import KV, additive_mask, shared_prefix_attention

NAME = "triage_shared_prefix"


def _attention(
    module: torch.nn.Module,
    query: torch.Tensor,  # (batch, heads, n, dim)
    key: torch.Tensor,  # (batch, kv_heads, n, dim): the new tokens only
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,  # additive (batch, 1, n, n) over the new tokens
    dropout: float = 0.0,
    scaling: float | None = None,
    shared_prefix: KV | None = None,
    **kwargs,
) -> tuple[torch.Tensor, None]:
    """Plain SDPA without ``shared_prefix``, so the same model object still serves the full path."""
    if shared_prefix is None:
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs
        )
    n = query.shape[2]
    mask = attention_mask[:, :, :, -n:] if attention_mask is not None else None
    layer = int(module.layer_idx)  # type: ignore[arg-type]
    out = shared_prefix_attention(query.transpose(1, 2), key, value, mask, shared_prefix[layer], scaling)
    return out.reshape(query.shape[0], n, query.shape[1], query.shape[3]), None


AttentionInterface.register(NAME, _attention)
AttentionMaskInterface.register(NAME, sdpa_mask)


def enable_shared_attention(model: torch.nn.Module) -> bool:
    """Switch a model to the shared-prefix attention; False (model unchanged) where it cannot switch."""
    if getattr(model.config, "_attn_implementation", None) == NAME:
        return True
    if getattr(model.config, "_attn_implementation", None) != "sdpa":
        return False
    try:
        model.set_attn_implementation(NAME)  # type: ignore[operator]
    except (ValueError, NotImplementedError):
        return False
    return getattr(model.config, "_attn_implementation", None) == NAME


class _SharedPrefixLayer(DynamicLayer):
    """Prefix keys/values for one layer: reads them, never stores into them."""

    keys: torch.Tensor
    values: torch.Tensor

    def __init__(self, keys: torch.Tensor, values: torch.Tensor):
        super().__init__()
        self.keys, self.values = keys, values
        self.device = keys.device
        self.is_initialized = True

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        batch = key_states.shape[0]
        keys = torch.cat([self.keys.expand(batch, -1, -1, -1), key_states], dim=-2)
        values = torch.cat([self.values.expand(batch, -1, -1, -1), value_states], dim=-2)
        return keys, values


def prefix_view(prefix: KV) -> Cache:
    """A cache presenting the prefix to any batch size, without copying it or storing into it."""
    return Cache(layers=[_SharedPrefixLayer(k, v) for k, v in prefix])


class TransformersDecoder:
    """A transformers model behind the :class:`backend.Decoder` calls."""

    products = "transformers"
    backend = "transformers modules"

    def __init__(self, model):
        self.model = model
        self.dtype = model.dtype
        self.device = torch.device(model.device)
        self.vocab_size = int(model.get_output_embeddings().weight.shape[0])
        self.hidden_size = int(model.get_output_embeddings().weight.shape[1])
        self.max_context = int(getattr(model.config, "max_position_embeddings", None) or 2048)
        self.shared_attention = enable_shared_attention(model)

    def forward(
        self,
        input_ids: torch.Tensor,
        positions: torch.Tensor,
        mask: torch.Tensor | None = None,
        prefix: KV | None = None,
        keep_kv: bool = False,
        keep: torch.Tensor | None = None,
        slots: torch.Tensor | None = None,  # unused: transformers computes the padding too
    ) -> tuple[torch.Tensor, KV]:
        extra: dict = {}
        if prefix and prefix[0][0].shape[2]:
            if self.shared_attention:
                extra["shared_prefix"] = prefix
            else:
                rows, width = input_ids.shape
                if mask is None:
                    causal = torch.ones(width, width, dtype=torch.bool, device=self.device).tril()
                    mask = additive_mask(causal, self.dtype).expand(rows, 1, width, width)
                cols = torch.zeros(rows, 1, width, prefix[0][0].shape[2], dtype=self.dtype, device=self.device)
                mask = torch.cat([cols, mask], dim=-1)
                extra["cache"] = prefix_view(prefix)
        out = self.model.base_model(
            input_ids=input_ids, attention_mask=mask, position_ids=positions, use_cache=keep_kv, **extra
        )
        kv = [(layer.keys, layer.values) for layer in out.cache.layers] if keep_kv else []
        hidden = out.last_hidden_state
        return (hidden if keep is None else hidden.reshape(-1, hidden.shape[-1])[keep]), kv

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        logits = self.model.get_output_embeddings()(hidden)
        cap = getattr(self.model.config, "final_logit_softcapping", None)
        if cap:
            logits = torch.tanh(logits / cap) * cap
        return logits
