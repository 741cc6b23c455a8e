"""Attention kernels both decoders use: the additive mask helper and attention over a shared prefix.

One home, so the lean decoder and the transformers backend compute attention the same way.
"""

from __future__ import annotations

import torch

KV = list[tuple[torch.Tensor, torch.Tensor]]  # per layer (1, kv heads, length, head_dim)


def additive_mask(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A boolean visibility mask as the additive mask attention takes: 0 where allowed, else dtype's min."""
    zero = torch.zeros((), dtype=dtype, device=allowed.device)
    return torch.where(allowed, zero, torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=allowed.device))


def shared_prefix_attention(
    q: torch.Tensor,  # (rows, width, heads, d)
    k: torch.Tensor,  # (rows, kv, width, d): the new tokens
    v: torch.Tensor,
    mask: torch.Tensor | None,  # additive (rows, 1, width, width); None: causal
    prefix: tuple[torch.Tensor, torch.Tensor],  # (1, kv, P, d), every column visible to every token
    scale: float | None = None,
) -> torch.Tensor:
    """Attention of new tokens over the shared prefix and themselves; (rows, width, kv, group, d) out.

    The prefix part is one product per key/value head with every query of the batch stacked into its
    rows, so the prefix is never copied per ticket or per grouped head; a joint softmax merges both parts.
    """
    rows, width, heads, d = q.shape
    kv = k.shape[1]
    group = heads // kv
    prefix_k, prefix_v = prefix[0][0], prefix[1][0]
    plen = prefix_k.shape[1]
    scale = scale if scale is not None else d**-0.5
    if mask is None:
        mask = additive_mask(torch.ones(width, width, dtype=torch.bool, device=q.device).tril(), q.dtype)[None, None]
    # Head j uses kv head j // group, as transformers' repeat_kv lays them out. Everything below is
    # kv-head major: scores are (kv, rows, group * width, prefix + width), one contiguous block that the
    # products write into directly (a loop of 2D products beat batched ones by ~30% here).
    gw = group * width
    qs = q.view(rows, width, kv, group, d).permute(2, 0, 3, 1, 4).reshape(kv, rows * gw, d)
    scores = torch.empty(kv, rows, gw, plen + width, dtype=q.dtype, device=q.device)
    flat = scores.view(kv, rows * gw, plen + width)
    for j in range(kv):
        torch.mm(qs[j], prefix_k[j].t(), out=flat[j, :, :plen])
    scores[..., plen:] = torch.matmul(qs.view(kv, rows, gw, d), k.transpose(0, 1).transpose(2, 3))
    scores.mul_(scale)
    scores[..., plen:].view(kv, rows, group, width, width).add_(mask.reshape(1, -1, 1, width, width))
    weights = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    out = torch.empty(kv, rows * gw, d, dtype=q.dtype, device=q.device)
    w_flat = weights.view(kv, rows * gw, plen + width)
    for j in range(kv):
        torch.mm(w_flat[j, :, :plen], prefix_v[j], out=out[j])
    out = out.view(kv, rows, gw, d).add_(torch.matmul(weights[..., plen:], v.transpose(0, 1)))
    return out.view(kv, rows, group, width, d).permute(1, 3, 0, 2, 4)  # (rows, width, kv, group, d)
