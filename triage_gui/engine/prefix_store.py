"""Prefix keys/values kept on disk between runs.

The prefix forward is the last big step between launch and the first label (0.3-0.5 s for the
default prompt on two cores). Its result depends only on the model's weights, the prefix tokens,
dtype, device, torch and the library doing the products, so it is stored under a hash of exactly
those and read back (a few ms) when the same model meets the same prompt again. Anything unreadable
is ignored and recomputed.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import torch

from ..paths import cache_dir
from .atomic import atomic_path
from .attention import KV
from .model_loader import LoadedModel

log = logging.getLogger(__name__)
KEEP = 16  # stored prefixes; the oldest go first


def _folder() -> Path:
    return cache_dir() / "prefixes"


def key(loaded: LoadedModel, ids: list[int]) -> str | None:
    """None where the weights have no stable file identity (a Hub id, a model built in memory)."""
    if not loaded.source or not Path(loaded.source).is_dir():
        return None
    folder = Path(loaded.source).resolve()
    weights = sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin"))
    if not weights:
        return None
    decoder = loaded.decoder
    parts = [str(folder), torch.__version__, str(decoder.dtype), str(decoder.device), type(decoder).__name__]
    parts.append(decoder.products)  # oneDNN, aten or transformers' own products round differently
    parts += [f"{w.name}:{w.stat().st_size}:{w.stat().st_mtime_ns}" for w in weights]
    parts.append(",".join(map(str, ids)))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


def load(loaded: LoadedModel, ids: list[int]) -> KV | None:
    name = key(loaded, ids)
    path = _folder() / f"{name}.safetensors" if name else None
    if path is None or not path.is_file():
        return None
    from safetensors.torch import load_file

    try:
        tensors = load_file(str(path))
        layers = [(tensors[f"k{i}"], tensors[f"v{i}"]) for i in range(len(tensors) // 2)]
        if not layers or any(k.shape[-2] != len(ids) for k, _ in layers):
            raise ValueError("wrong length")
    except Exception as exc:  # truncated or foreign file: recompute and overwrite
        log.warning("ignoring stored prefix %s: %s", path.name, exc)
        return None
    os.utime(path)  # recently used: pruned last
    device = loaded.decoder.device
    return [(k.to(device), v.to(device)) for k, v in layers]


def save(loaded: LoadedModel, ids: list[int], layers: KV) -> None:
    name = key(loaded, ids)
    if name is None:
        return
    from safetensors.torch import save_file

    folder = _folder()
    tensors = {}
    for i, (k, v) in enumerate(layers):
        tensors[f"k{i}"], tensors[f"v{i}"] = k.detach().cpu().contiguous(), v.detach().cpu().contiguous()
    try:
        with atomic_path(folder / f"{name}.safetensors") as tmp:
            save_file(tensors, str(tmp))
        stored = sorted(folder.glob("*.safetensors"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in stored[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # a read-only or full cache only costs the next start 0.4 s
        log.warning("prefix not stored: %s", exc)
