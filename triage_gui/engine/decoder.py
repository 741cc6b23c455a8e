"""A lean forward pass for Llama-family decoders (Llama, Qwen2, Mistral with default RoPE).

Why not transformers' own modules: importing its modelling stack and loading weights through it
costs 2-3 s per start, and its generic layers run three projections where one will do. Here query,
key and value are one matrix product, gate and up are another, attention over the shared prompt
prefix reads the cached keys/values in place (one product per key/value head for the whole batch),
and the weights come straight from safetensors. Architectures or options this module does not know
return ``None`` from :meth:`DecoderConfig.from_dict`; the loader then uses transformers instead.
Every path is checked against transformers' forward on the same weights (tests/test_decoder.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

ARCHITECTURES = {"LlamaForCausalLM", "Qwen2ForCausalLM", "MistralForCausalLM"}


@dataclass(frozen=True)
class DecoderConfig:
    vocab_size: int
    hidden_size: int
    intermediate_size: int
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
        hidden = int(cfg["hidden_size"])
        return cls(
            vocab_size=int(cfg["vocab_size"]),
            hidden_size=hidden,
            intermediate_size=int(cfg["intermediate_size"]),
            num_layers=int(cfg["num_hidden_layers"]),
            num_heads=heads,
            num_kv_heads=int(cfg.get("num_key_value_heads") or heads),
            head_dim=int(cfg.get("head_dim") or hidden // heads),
            rms_norm_eps=float(cfg.get("rms_norm_eps", 1e-6)),
            rope_theta=float(rope.get("rope_theta", cfg.get("rope_theta", 10000.0))),
            tie_word_embeddings=bool(cfg.get("tie_word_embeddings", False)),
            max_context=int(cfg.get("max_position_embeddings") or 2048),
        )


@dataclass
class _Layer:
    input_norm: torch.Tensor
    qkv: torch.Tensor  # (heads + 2 kv heads) * head_dim rows
    qkv_bias: torch.Tensor | None
    out: torch.Tensor
    post_norm: torch.Tensor
    gate_up: torch.Tensor  # 2 * intermediate rows
    down: torch.Tensor


KV = list[tuple[torch.Tensor, torch.Tensor]]  # per layer (1, kv heads, length, head_dim)


class Decoder:
    """Weights and forward pass of one Llama-family model; inference only, any batch shape."""

    def __init__(self, config: DecoderConfig, tensors: dict[str, torch.Tensor], dtype: torch.dtype, device: str):
        self.config = config
        self.dtype = dtype
        self.device = torch.device(device)

        def take(name: str) -> torch.Tensor:
            return tensors.pop(name).to(device=self.device, dtype=dtype)

        def fused(names: list[str]) -> torch.Tensor:
            return torch.cat([tensors.pop(n) for n in names]).to(device=self.device, dtype=dtype)

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
                    post_norm=take(p + "post_attention_layernorm.weight"),
                    gate_up=fused([p + "mlp.gate_proj.weight", p + "mlp.up_proj.weight"]),
                    down=take(p + "mlp.down_proj.weight"),
                )
            )
        self.embed = take("model.embed_tokens.weight")
        self.norm = take("model.norm.weight")
        head = tensors.pop("lm_head.weight", None)
        self.lm_head = self.embed if config.tie_word_embeddings or head is None else head.to(self.device, dtype)
        half = torch.arange(0, config.head_dim, 2, dtype=torch.int64).float() / config.head_dim
        self._inv_freq = (1.0 / (config.rope_theta**half)).to(self.device)

    @property
    def vocab_size(self) -> int:
        return int(self.lm_head.shape[0])

    @property
    def max_context(self) -> int:
        return self.config.max_context

    # ------------------------------------------------------------------ loading

    @classmethod
    def from_folder(cls, folder: Path, config: DecoderConfig, dtype: torch.dtype, device: str) -> Decoder:
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
    def from_transformers(cls, model) -> Decoder | None:
        """The weights of a loaded transformers model (shared where no fusing is needed); None if unknown."""
        config = DecoderConfig.from_dict({**model.config.to_dict(), "architectures": [type(model).__name__]})
        if config is None:
            return None
        return cls(config, dict(model.state_dict()), model.dtype, str(model.device))

    # ------------------------------------------------------------------ forward

    def forward(
        self,
        input_ids: torch.Tensor,  # (rows, width)
        positions: torch.Tensor,  # (rows, width)
        mask: torch.Tensor | None = None,  # additive (rows, 1, width, width) over the new tokens; None: causal
        prefix: KV | None = None,  # keys/values every new token sees in full
        keep_kv: bool = False,
    ) -> tuple[torch.Tensor, KV]:
        """Final hidden states (rows, width, hidden), and this call's keys/values if ``keep_kv``."""
        cfg = self.config
        rows, width = input_ids.shape
        h, kv, d = cfg.num_heads, cfg.num_kv_heads, cfg.head_dim
        freqs = positions[..., None].float() * self._inv_freq
        angles = torch.cat([freqs, freqs], dim=-1)
        cos = angles.cos().to(self.dtype)[:, :, None, :]
        sin = angles.sin().to(self.dtype)[:, :, None, :]
        x = F.embedding(input_ids, self.embed)
        new_kv: KV = []
        for i, layer in enumerate(self.layers):
            y = self._rms(x, layer.input_norm)
            qkv = F.linear(y, layer.qkv, layer.qkv_bias)
            q = qkv[..., : h * d].view(rows, width, h, d)
            k = qkv[..., h * d : (h + kv) * d].view(rows, width, kv, d)
            v = qkv[..., (h + kv) * d :].view(rows, width, kv, d)
            q = _rope(q, cos, sin)
            k = _rope(k, cos, sin).transpose(1, 2)  # (rows, kv, width, d)
            v = v.transpose(1, 2)
            if keep_kv:
                new_kv.append((k, v))
            if prefix is not None and prefix[i][0].shape[2]:
                attn = shared_prefix_attention(q, k, v, mask, prefix[i])
            else:
                attn = F.scaled_dot_product_attention(
                    q.transpose(1, 2), k, v, attn_mask=mask, is_causal=mask is None, enable_gqa=kv != h
                ).transpose(1, 2)
            x = x + F.linear(attn.reshape(rows, width, h * d), layer.out)
            y = self._rms(x, layer.post_norm)
            gate, up = F.linear(y, layer.gate_up).chunk(2, dim=-1)
            x = x + F.linear(F.silu(gate).mul_(up), layer.down)
        return self._rms(x, self.norm), new_kv

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return F.linear(hidden, self.lm_head)

    def _rms(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        # As transformers' LlamaRMSNorm: statistics in float32, the weight applied in the model's dtype.
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.config.rms_norm_eps)
        return weight * x32.to(self.dtype)


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


def shared_prefix_attention(
    q: torch.Tensor,  # (rows, width, heads, d)
    k: torch.Tensor,  # (rows, kv, width, d): the new tokens
    v: torch.Tensor,
    mask: torch.Tensor | None,  # additive (rows, 1, width, width); None: causal
    prefix: tuple[torch.Tensor, torch.Tensor],  # (1, kv, P, d), every column visible to every token
    scale: float | None = None,
) -> torch.Tensor:
    """Attention of new tokens over the shared prefix and themselves; returns (rows, width, heads, d).

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
        causal = torch.ones(width, width, dtype=torch.bool, device=q.device).tril()
        mask = torch.where(causal, 0.0, torch.finfo(q.dtype).min).to(q.dtype)[None, None]
    # Head j uses kv head j // group, as transformers' repeat_kv lays them out.
    qs = q.view(rows, width, kv, group, d).permute(2, 0, 3, 1, 4).reshape(kv, rows * group * width, d)
    scores_prefix = torch.matmul(qs, prefix_k.transpose(1, 2)).mul_(scale)
    scores_prefix = scores_prefix.view(kv, rows, group * width, plen).transpose(0, 1)
    q_new = qs.view(kv, rows, group * width, d).transpose(0, 1)  # (rows, kv, g*width, d)
    scores_new = torch.matmul(q_new, k.transpose(2, 3)).mul_(scale)  # (rows, kv, g*width, width)
    scores_new = (scores_new.view(rows, kv, group, width, width) + mask[:, :, None]).view(
        rows, kv, group * width, width
    )
    weights = torch.softmax(torch.cat([scores_prefix, scores_new], dim=-1), dim=-1, dtype=torch.float32)
    weights = weights.to(q.dtype)
    w_prefix = weights[..., :plen].transpose(0, 1).reshape(kv, rows * group * width, plen)
    out = torch.matmul(w_prefix, prefix_v).view(kv, rows, group * width, d).transpose(0, 1)
    out = out + torch.matmul(weights[..., plen:], v)  # (rows, kv, g*width, d)
    return out.view(rows, kv, group, width, d).permute(0, 3, 1, 2, 4)
