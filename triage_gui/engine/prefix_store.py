"""Prefix keys/values kept on disk between runs.

The prefix forward is the last big step between launch and the first label (0.3-0.5 s for the
default prompt on two cores). Its result depends only on the model's weights and config, the prefix
tokens, dtype, device, torch, the library doing the products and the code computing it, so it is
stored under a hash of exactly those and read back (a few ms) when the same model meets the same
prompt again.

The code is in the key because one cache serves every checkout and version on the machine. A prefix
from code that differed in one constant (RMSNorm eps 1e-6 for the config's 1e-5) put the cached path
3.2e-3 from the full re-encode on 24 BANKING77 tickets, where 5e-5 is usual and 1e-3 is promised;
rounding-level edits (RoPE angles in float64, another SDPA kernel, aten instead of oneDNN
products) stayed at 3-5e-5. The thread count (1 or 2), a prefix read back rather than computed and
other load on the CPU changed no bit of either path in the fresh processes measured, so none of those
is in the key.

Every entry carries a crc32 of its tensors in its own metadata, written in the same atomic file
replace (:func:`integrity.tensors_checksum`; 2.5 ms for the default 170-token prefix). An entry that
is unreadable, short or fails its checksum is damaged: it is logged, deleted, never used, and the
caller recomputes and stores it again. Why it was discarded is kept for the caller to show
(:func:`read` returns it; the scorer keeps it as ``prefix_problem`` for the window and the command line).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from .. import __version__
from ..paths import cache_dir
from . import integrity
from .atomic import atomic_path
from .attention import KV
from .model_loader import LoadedModel

log = logging.getLogger(__name__)
KEEP = 16  # stored prefixes; the oldest go first
FORMAT = "2"  # entries with a checksum; it is part of the key, so entries from before are never read
SOURCES = Path(__file__).resolve().parent  # where the modules that compute a prefix live
PREFIX_CODE = ("decoder.py", "attention.py", "transformers_decoder.py", "scorer.py")
_fingerprints: dict[Path, str] = {}


class DamagedEntry(ValueError):
    """A stored prefix that is not what was written."""


@dataclass(frozen=True)
class Lookup:
    """A stored prefix read back: its layers, or None with ``problem`` saying why one was discarded."""

    layers: KV | None = None
    problem: str | None = None  # None when there was no entry, or it was sound


def _folder() -> Path:
    return cache_dir() / "prefixes"


def code_fingerprint(folder: Path | None = None) -> str:
    """A hash of the source of the modules that compute a prefix, read once per process (0.1 ms).

    By contents, not path, so two checkouts of the same code share entries. A frozen bundle has no
    sources: its version and executable stand in.
    """
    folder = folder or SOURCES
    if folder not in _fingerprints:
        digest = hashlib.sha256(__version__.encode())
        for name in PREFIX_CODE:
            try:
                digest.update(name.encode() + (folder / name).read_bytes())
            except OSError:
                stat = Path(sys.executable).stat()
                digest.update(f"{name}|{sys.executable}|{stat.st_size}|{stat.st_mtime_ns}".encode())
        _fingerprints[folder] = digest.hexdigest()[:16]
    return _fingerprints[folder]


def key(loaded: LoadedModel, ids: list[int]) -> str | None:
    """None where the weights have no stable file identity (a Hub id, a model built in memory)."""
    if not loaded.source or not Path(loaded.source).is_dir():
        return None
    folder = Path(loaded.source).resolve()
    weights = sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin"))
    if not weights:
        return None
    decoder = loaded.decoder
    parts = [FORMAT, code_fingerprint(), str(folder), torch.__version__, str(decoder.dtype), str(decoder.device)]
    parts.append(type(decoder).__name__)
    parts.append(decoder.products)  # oneDNN, aten or transformers' own products round differently
    config = folder / "config.json"  # the RMSNorm eps and RoPE base
    files = weights + ([config] if config.is_file() else [])
    parts += [f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files]
    parts.append(",".join(map(str, ids)))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


def read(loaded: LoadedModel, ids: list[int]) -> Lookup:
    """The stored prefix for these tokens, verified; a damaged entry is deleted and reported, never returned."""
    name = key(loaded, ids)
    path = _folder() / f"{name}.safetensors" if name else None
    if path is None or not path.is_file():
        return Lookup()
    try:
        layers = _read_verified(path, name or "", len(ids))
    except Exception as exc:  # truncated, foreign or altered: recomputed by the caller and stored again
        problem = f"The stored prompt prefix {path.name} was damaged ({exc}); it was deleted and recomputed."
        log.warning("%s", problem)
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return Lookup(problem=problem)
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: pruned last
    device = loaded.decoder.device
    return Lookup([(k.to(device), v.to(device)) for k, v in layers])


def _read_verified(path: Path, name: str, length: int) -> KV:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        meta = handle.metadata() or {}
        tensors = {k: handle.get_tensor(k) for k in handle.keys()}  # noqa: SIM118 (safe_open is not a dict)
    if meta.get("format") != FORMAT or "crc32" not in meta:
        raise DamagedEntry("no checksum")
    if meta.get("key") != name:
        raise DamagedEntry("stored under another name")
    if integrity.tensors_checksum(tensors) != meta["crc32"]:
        raise DamagedEntry("checksum mismatch")
    layers = [(tensors[f"k{i}"], tensors[f"v{i}"]) for i in range(len(tensors) // 2)]
    if not layers or any(k.shape[-2] != length or v.shape[-2] != length for k, v in layers):
        raise DamagedEntry("wrong length")
    return layers


def save(loaded: LoadedModel, ids: list[int], layers: KV) -> None:
    name = key(loaded, ids)
    if name is None:
        return
    from safetensors.torch import save_file

    folder = _folder()
    tensors = {}
    for i, (k, v) in enumerate(layers):
        tensors[f"k{i}"], tensors[f"v{i}"] = k.detach().cpu().contiguous(), v.detach().cpu().contiguous()
    meta = {"format": FORMAT, "key": name, "crc32": integrity.tensors_checksum(tensors)}
    try:
        with atomic_path(folder / f"{name}.safetensors") as tmp:
            save_file(tensors, str(tmp), metadata=meta)
        stored = sorted(folder.glob("*.safetensors"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in stored[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # a read-only or full cache only costs the next start 0.4 s
        log.warning("prefix not stored: %s", exc)
