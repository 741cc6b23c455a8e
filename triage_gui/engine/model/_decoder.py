"""A lean forward pass for Llama-family decoders (Llama, Qwen2, Mistral with default RoPE).

Why not transformers' own modules: importing its modelling stack and loading weights through it
costs 2-3 s per start. Here the weights come straight from safetensors, query/key/value are one
matrix product, attention over the shared prompt prefix reads the cached keys/values in place (one
product per key/value head for the whole batch), and the last layer runs its MLP only where logits
are wanted. Gate and up stay two products: fused ran no faster with oneDNN, 15% slower with MKL.
On the CPU the weight products go through oneDNN where this torch has it (see :func:`cpu_linear`).
Architectures or options this module does not know return ``None`` from
:meth:`DecoderConfig.from_dict`; the loader then uses transformers' modules instead. Every path is
checked against transformers' forward on the same weights (tests/test_decoder.py).
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

from ._attention import KV, shared_prefix_attention

ARCHITECTURES = {"LlamaForCausalLM", "Qwen2ForCausalLM", "MistralForCausalLM"}


@dataclass(frozen=True)
class DecoderConfig:
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    rms_norm_eps: float
    rope_theta: float
    tie_word_embeddings: bool
    max_context: int

    @classmethod
    def from_dict(cls, cfg: dict) -> DecoderConfig | None:
        """The config of a model this module computes exactly like transformers, else None."""
        if not set(cfg.get("architectures") or []) & ARCHITECTURES:
            return None
        rope = cfg.get("rope_parameters") or cfg.get("rope_scaling") or {}
        rope_type = rope.get("rope_type", rope.get("type", "default"))
        if rope_type != "default" or cfg.get("partial_rotary_factor", 1.0) != 1.0:
            return None
        if cfg.get("hidden_act", "silu") != "silu" or cfg.get("mlp_bias") or cfg.get("pretraining_tp", 1) != 1:
            return None
        if cfg.get("use_sliding_window") or (cfg.get("model_type") == "mistral" and cfg.get("sliding_window")):
            return None
        heads = int(cfg["num_attention_heads"])
        return cls(
            num_layers=int(cfg["num_hidden_layers"]),
            num_heads=heads,
            num_kv_heads=int(cfg.get("num_key_value_heads") or heads),
            head_dim=int(cfg.get("head_dim") or int(cfg["hidden_size"]) // heads),
            rms_norm_eps=float(cfg.get("rms_norm_eps", 1e-6)),
            rope_theta=float(rope.get("rope_theta", cfg.get("rope_theta", 10000.0))),
            tie_word_embeddings=bool(cfg.get("tie_word_embeddings", False)),
            max_context=int(cfg.get("max_position_embeddings") or 2048),
        )


class WeightsMismatch(ValueError):
    """The weights hold tensors this decoder would not use, or lack ones it needs: not ours to run."""


@dataclass
class _Layer:
    input_norm: torch.Tensor
    qkv: torch.Tensor  # (heads + 2 kv heads) * head_dim rows
    qkv_bias: torch.Tensor | None
    out: torch.Tensor
    out_bias: torch.Tensor | None
    post_norm: torch.Tensor
    gate: torch.Tensor
    up: torch.Tensor
    down: torch.Tensor


PRODUCT_CACHE = 64  # compiled oneDNN products kept per cache; see cpu_linear
Linear = Callable[[torch.Tensor, torch.Tensor, "torch.Tensor | None"], torch.Tensor]


def cpu_linear(dtype: torch.dtype) -> Linear | None:
    """oneDNN's ``x @ w.T + b`` for CPU tensors, if this torch has it and it agrees with F.linear; else None.

    Why: torch sends float32 products on the CPU to MKL, which on a 2-core AMD EPYC (Zen 4) ran this
    model's shapes at 100-165 GFLOP/s where oneDNN ran the same products at 160-200, the lm-head product
    for a batch nearly twice as fast. The op is the one torch's own compiler emits for CPU linears; it is
    internal, so it is probed once and any failure keeps F.linear. Only measured on x86-64, so only
    used there (ARM builds run oneDNN on other kernels).
    """
    if platform.machine().lower() not in {"x86_64", "amd64"} or not torch.backends.mkldnn.is_available():
        return None
    # ideep and oneDNN each keep a compiled product per input shape, 0.4-0.7 MB apiece, 1,024 by default.
    # Row counts change with every batch and ticket: 1,500 of them grew a process by 1.2 GB, and the
    # window labelling 200 tickets with the baseline on peaked 150 MB higher. Both caches read their
    # capacity once, at first use, which is normally the probe below.
    for name in ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "LRU_CACHE_CAPACITY"):
        os.environ.setdefault(name, str(PRODUCT_CACHE))
    try:
        op = torch.ops.mkldnn._linear_pointwise
        gen = torch.Generator().manual_seed(0)
        x, w, b = (torch.randn(*shape, generator=gen).to(dtype) for shape in ((7, 48), (24, 48), (24,)))
        with torch.inference_mode():
            got, want = op(x, w, b, "none", [], ""), F.linear(x, w, b)
        tol = 1e-4 if dtype == torch.float32 else 0.1
        if got.shape != want.shape or not torch.allclose(got.float(), want.float(), atol=tol, rtol=tol):
            return None
    except (AttributeError, RuntimeError):
        return None

    def linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
        return op(x, w, b, "none", [], "")

    return linear


class LeanDecoder:
    """Weights and forward pass of one Llama-family model; inference only, any batch shape."""

    def __init__(self, config: DecoderConfig, tensors: dict[str, torch.Tensor], dtype: torch.dtype, device: str):
        self.config = config
        self.dtype = dtype
        self.device = torch.device(device)

        def take(name: str) -> torch.Tensor:
            if name not in tensors:
                raise WeightsMismatch(f"no tensor {name}")
            return tensors.pop(name).to(device=self.device, dtype=dtype)

        def optional(name: str) -> torch.Tensor | None:
            return take(name) if name in tensors else None

        def fused(names: list[str]) -> torch.Tensor:
            return torch.cat([take(n) for n in names])

        self.layers: list[_Layer] = []
        for i in range(config.num_layers):
            p = f"model.layers.{i}."
            qkv = [f"{p}self_attn.{x}_proj.weight" for x in "qkv"]
            biases = [f"{p}self_attn.{x}_proj.bias" for x in "qkv"]
            self.layers.append(
                _Layer(
                    input_norm=take(p + "input_layernorm.weight"),
                    qkv=fused(qkv),
                    qkv_bias=fused(biases) if biases[0] in tensors else None,
                    out=take(p + "self_attn.o_proj.weight"),
                    out_bias=optional(p + "self_attn.o_proj.bias"),
                    post_norm=take(p + "post_attention_layernorm.weight"),
                    gate=take(p + "mlp.gate_proj.weight"),
                    up=take(p + "mlp.up_proj.weight"),
                    down=take(p + "mlp.down_proj.weight"),
                )
            )
        self.embed = take("model.embed_tokens.weight")
        self.norm = take("model.norm.weight")
        head = optional("lm_head.weight")
        self.lm_head = self.embed if config.tie_word_embeddings or head is None else head
        unused = [name for name in tensors if not name.endswith("rotary_emb.inv_freq")]
        if unused:  # e.g. query/key norms of a newer variant: running without them would be silently wrong
            raise WeightsMismatch(f"unexpected tensors such as {unused[0]}")
        self.linear: Linear = (cpu_linear(dtype) if self.device.type == "cpu" else None) or F.linear
        half = torch.arange(0, config.head_dim, 2, dtype=torch.int64).float() / config.head_dim
        self._inv_freq = (1.0 / (config.rope_theta**half)).to(self.device)

    @property
    def vocab_size(self) -> int:
        return int(self.lm_head.shape[0])

    @property
    def hidden_size(self) -> int:
        return int(self.embed.shape[1])

    @property
    def max_context(self) -> int:
        return self.config.max_context

    @property
    def products(self) -> str:
        """Which library computes the weight products: their rounding differs in the last bits."""
        return "aten" if self.linear is F.linear else "onednn"

    @property
    def backend(self) -> str:
        return "lean decoder"

    # ------------------------------------------------------------------ loading

    @classmethod
    def from_folder(cls, folder: Path, config: DecoderConfig, dtype: torch.dtype, device: str) -> LeanDecoder:
        from safetensors.torch import load_file

        index = folder / "model.safetensors.index.json"
        if index.is_file():
            files = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        else:
            files = ["model.safetensors"]
        tensors: dict[str, torch.Tensor] = {}
        for name in files:
            tensors.update(load_file(str(folder / name)))
        return cls(config, tensors, dtype, device)

    @classmethod
    def from_transformers(cls, model) -> LeanDecoder | None:
        """The weights of a loaded transformers model (shared where no fusing is needed); None if unknown."""
        config = DecoderConfig.from_dict({**model.config.to_dict(), "architectures": [type(model).__name__]})
        if config is None:
            return None
        try:
            return cls(config, dict(model.state_dict()), model.dtype, str(model.device))
        except WeightsMismatch:
            return None

    # ------------------------------------------------------------------ forward

    def forward(
        self,
        input_ids: torch.Tensor,  # (rows, width)
        positions: torch.Tensor,  # (rows, width)
        mask: torch.Tensor | None = None,  # additive (rows, 1, width, width) over the new tokens; None: causal
        prefix: KV | None = None,  # keys/values every new token sees in full
        keep_kv: bool = False,
        keep: torch.Tensor | None = None,  # flat (rows * width) indices of the positions whose output is wanted
        slots: torch.Tensor | None = None,  # flat indices of the real tokens; the other positions are padding
    ) -> tuple[torch.Tensor, KV]:
        """Final hidden states, (rows, width, hidden) or (len(keep), hidden); this call's keys/values if asked.

        With ``slots`` the projections and MLPs run on the real tokens only; the padded grid exists only
        inside attention. With ``keep`` the last layer runs its output projection and MLP where asked only.
        """
        cfg = self.config
        rows, width = input_ids.shape
        h, kv, d = cfg.num_heads, cfg.num_kv_heads, cfg.head_dim
        ids, pos = input_ids.reshape(-1), positions.reshape(-1)
        if slots is not None:
            ids, pos = ids[slots], pos[slots]
            if keep is not None:
                real = torch.full((rows * width,), -1, dtype=torch.long, device=self.device)
                real[slots] = torch.arange(len(slots), device=self.device)
                keep = real[keep]
        n = ids.shape[0]
        freqs = pos[:, None].float() * self._inv_freq
        angles = torch.cat([freqs, freqs], dim=-1)
        cos = angles.cos().to(self.dtype)[:, None, :]
        sin = angles.sin().to(self.dtype)[:, None, :]
        x = F.embedding(ids, self.embed)
        linear = self.linear
        new_kv: KV = []
        last = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            y = self._rms(x, layer.input_norm)
            qkv = linear(y, layer.qkv, layer.qkv_bias)
            qk = _rope(qkv[:, : (h + kv) * d].view(n, h + kv, d), cos, sin)  # queries and keys in one pass
            q, k = qk[:, :h], qk[:, h:]
            v = qkv[:, (h + kv) * d :].view(n, kv, d)
            if slots is not None:
                q, k, v = (_to_grid(t, slots, rows * width) for t in (q, k, v))
            q = q.view(rows, width, h, d)
            k = k.view(rows, width, kv, d).transpose(1, 2)  # (rows, kv, width, d)
            v = v.view(rows, width, kv, d).transpose(1, 2)
            if keep_kv:  # own storage: views would keep this layer's whole projection output alive
                new_kv.append((k.contiguous(), v.contiguous()))
            if prefix is not None and prefix[i][0].shape[2]:
                attn = shared_prefix_attention(q, k, v, mask, prefix[i])
            else:
                attn = F.scaled_dot_product_attention(
                    q.transpose(1, 2), k, v, attn_mask=mask, is_causal=mask is None, enable_gqa=kv != h
                ).transpose(1, 2)
            attn = attn.reshape(rows * width, h * d)
            if slots is not None:
                attn = attn[slots]
            if i == last and keep is not None:
                x, attn = x[keep], attn[keep]
            x = x + linear(attn, layer.out, layer.out_bias)
            y = self._rms(x, layer.post_norm)
            x = x + linear(F.silu(linear(y, layer.gate, None)).mul_(linear(y, layer.up, None)), layer.down, None)
        hidden = self._rms(x, self.norm)
        if keep is not None:
            return hidden, new_kv
        if slots is not None:
            hidden = _to_grid(hidden, slots, rows * width)
        return hidden.view(rows, width, -1), new_kv

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Vocabulary logits. Without oneDNN, a transposed view: sgemm streams the (vocab, hidden) matrix
        once this way round, which for the few rows a ticket needs ran about 3x faster than ``hidden @ W.T``."""
        flat = hidden.reshape(-1, hidden.shape[-1])
        if self.linear is F.linear:
            return torch.mm(self.lm_head, flat.t()).t().view(*hidden.shape[:-1], -1)
        return self.linear(flat, self.lm_head, None).view(*hidden.shape[:-1], -1)

    def _rms(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        # As transformers' LlamaRMSNorm: statistics in float32, the weight applied in the model's dtype.
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.config.rms_norm_eps)
        return weight * x32.to(self.dtype)


def _to_grid(t: torch.Tensor, slots: torch.Tensor, size: int) -> torch.Tensor:
    """Real tokens back onto the padded (rows * width) grid attention works on; padding is zero."""
    grid = t.new_zeros((size, *t.shape[1:]))
    grid[slots] = t
    return grid


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin
