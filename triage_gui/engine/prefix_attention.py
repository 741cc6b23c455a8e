"""Attention over a shared prefix without copying it per ticket.

The stock path concatenates the prefix keys/values onto every row of a batch (and SDPA with a custom
mask repeats them again for grouped-query heads): a batch of B tickets copies the prefix B x (heads /
kv heads) times per layer, which made large batches slower per ticket than small ones. Here the
prefix part of attention is one matrix product per key/value head, with every query of the batch
stacked into its rows, and the ticket part is a small batched product; a joint softmax merges both.
Registered with transformers' AttentionInterface; without a ``shared_prefix`` argument it is plain SDPA,
so the same model object still serves the full re-encode path.
"""

from __future__ import annotations

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

NAME = "triage_shared_prefix"


def shared_prefix_attention(
    module: torch.nn.Module,
    query: torch.Tensor,  # (batch, heads, n, dim)
    key: torch.Tensor,  # (batch, kv_heads, n, dim): the new tokens only
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,  # additive (batch, 1, n, n) over the new tokens
    dropout: float = 0.0,
    scaling: float | None = None,
    shared_prefix: list[tuple[torch.Tensor, torch.Tensor]] | None = None,
    **kwargs,
) -> tuple[torch.Tensor, None]:
    if shared_prefix is None:
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs
        )
    prefix_k, prefix_v = shared_prefix[module.layer_idx]  # (1, kv_heads, P, dim), every column visible
    batch, heads, n, dim = query.shape
    kv_heads, prefix_len = key.shape[1], prefix_k.shape[2]
    group = heads // kv_heads
    scale = scaling if scaling is not None else dim**-0.5
    # Head h uses kv head h // group (the layout repeat_kv assumes).
    q = query.reshape(batch, kv_heads, group * n, dim)
    stacked = q.transpose(0, 1).reshape(kv_heads, batch * group * n, dim)
    scores_prefix = torch.matmul(stacked, prefix_k[0].transpose(1, 2)).mul_(scale)  # (kv, B*g*n, P)
    scores_prefix = scores_prefix.view(kv_heads, batch, group * n, prefix_len).transpose(0, 1)
    scores_new = torch.matmul(q, key.transpose(2, 3)).mul_(scale)  # (B, kv, g*n, n)
    if attention_mask is not None:
        mask = attention_mask[:, :, :, -n:]
        scores_new = (scores_new.view(batch, kv_heads, group, n, n) + mask[:, :, None]).view(
            batch, kv_heads, group * n, n
        )
    weights = torch.softmax(torch.cat([scores_prefix, scores_new], dim=-1), dim=-1, dtype=torch.float32).to(query.dtype)
    w_prefix, w_new = weights[..., :prefix_len], weights[..., prefix_len:]
    w_prefix = w_prefix.transpose(0, 1).reshape(kv_heads, batch * group * n, prefix_len)
    out = torch.matmul(w_prefix, prefix_v[0]).view(kv_heads, batch, group * n, dim).transpose(0, 1)
    out = out + torch.matmul(w_new, value)  # (B, kv, g*n, dim)
    return out.reshape(batch, heads, n, dim).transpose(1, 2).contiguous(), None


AttentionInterface.register(NAME, shared_prefix_attention)
AttentionMaskInterface.register(NAME, sdpa_mask)


def enable(model: torch.nn.Module) -> bool:
    """Switch a model to this attention; False (model unchanged) for models that cannot switch."""
    if getattr(model.config, "_attn_implementation", None) == NAME:
        return True
    if getattr(model.config, "_attn_implementation", None) != "sdpa":
        return False
    try:
        model.set_attn_implementation(NAME)
    except (ValueError, NotImplementedError):
        return False
    return model.config._attn_implementation == NAME
