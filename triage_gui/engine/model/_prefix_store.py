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

An entry another account wrote (a cache shared through TRIAGE_GUI_CACHE_DIR) is never used: its crc32
proves nothing against a forger, who can recompute it, and checking the values means recomputing the
prefix, the 0.3-0.5 s the store saves; so it is said, and recomputed.

Every entry carries a crc32 of its tensors in its own metadata, written in the same atomic file
replace (:func:`integrity.tensors_checksum`; 2.5 ms for the default 170-token prefix). An entry that
is unreadable, short or fails its checksum is damaged: it is logged, deleted, never used, and the
caller recomputes and stores it again. Why it was discarded is kept for the caller to show
(:func:`read` returns it; the scorer keeps it as ``prefix_problem`` for the window and the command line).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from ... import __version__
from ...paths import cache_dir
from ..files import atomic_path
from . import _integrity as integrity
from ._attention import KV
from ._loader import LoadedModel

log = logging.getLogger(__name__)
KEEP = 16  # stored prefixes; the oldest go first
FORMAT = "2"  # entries with a checksum; it is part of the key, so entries from before are never read
# The modules that compute a prefix, by import name. The fingerprint follows their imports of modules
# (transitively, within and beside their parts), so code split out of them later is covered without this
# list changing; a list of file names in one folder stopped covering the decoder when the engine moved
# into sub-packages, and a name that no longer imports fails loudly.
PREFIX_CODE = (
    "triage_gui.engine.model._decoder",
    "triage_gui.engine.model._transformers_decoder",
    "triage_gui.engine.scoring._scorer",
)
_fingerprints: dict[tuple[str, ...], str] = {}


class DamagedEntry(ValueError):
    """A stored prefix that is not what was written."""


@dataclass(frozen=True)
class Lookup:
    """A stored prefix read back: its layers, or None with ``problem`` saying why one was discarded."""

    layers: KV | None = None
    problem: str | None = None  # None when there was no entry, or it was sound


def _folder() -> Path:
    return cache_dir() / "prefixes"


def _source(name: str) -> bytes:
    """A module's source, found by import; one that cannot be read fails loudly (never a silent stand-in)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.has_location:
        raise RuntimeError(f"cannot find the source of {name}, which computes stored prefixes")
    return Path(spec.origin).read_bytes()


def _is_package(name: str) -> bool:
    spec = importlib.util.find_spec(name)
    return spec is not None and spec.submodule_search_locations is not None


def _imported(name: str, source: bytes) -> set[str]:
    """The modules (not packages) of ours that a module imports, lazy and type-only imports included."""
    package = name if _is_package(name) else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base) if node.level else node.module or ""
            if not target.startswith("triage_gui"):
                continue
            for alias in node.names:
                whole = f"{target}.{alias.name}"
                found.add(whole if _is_package(target) and importlib.util.find_spec(whole) else target)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    # A part's face (``engine.prompt``) is followed no further: what crosses parts is data (ids, tensors,
    # the table's types), and the ids are in the key already; following faces took 0.4 s at each start.
    return {n for n in found if n.startswith("triage_gui.") and not _is_package(n)}


def prefix_sources(roots: tuple[str, ...] = PREFIX_CODE) -> dict[str, bytes]:
    """The source of the prefix code and of every module of ours it imports, found by following imports."""
    sources: dict[str, bytes] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in sources:
            sources[name] = _source(name)
            todo += sorted(_imported(name, sources[name]) - set(sources))
    return sources


def code_fingerprint(roots: tuple[str, ...] = PREFIX_CODE) -> str:
    """A hash of the source of the modules that compute a prefix and those they import, once per process.

    By contents, not path, so two checkouts of the same code share entries. A frozen bundle has no
    sources: its version and executable stand in, and only there.
    """
    if roots not in _fingerprints:
        digest = hashlib.sha256(__version__.encode())
        if getattr(sys, "frozen", False):
            stat = Path(sys.executable).stat()
            digest.update(f"{sys.executable}|{stat.st_size}|{stat.st_mtime_ns}".encode())
        else:
            for name, source in sorted(prefix_sources(roots).items()):
                digest.update(name.encode() + b"\0" + source)
        _fingerprints[roots] = digest.hexdigest()[:16]
    return _fingerprints[roots]


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
        theirs = not (integrity.own_file(path.lstat()) and integrity.own_file(path.stat()))
    except OSError:
        return Lookup()
    if theirs:  # a forged entry would pass its crc32 (anyone can recompute it) and change every label
        problem = (
            f"The stored prompt prefix {path.name} was written by another account, so it was not used (a prefix "
            "cannot be checked without recomputing it); it was recomputed."
        )
        log.warning("%s", problem)
        return Lookup(problem=problem)
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
        with atomic_path(folder / f"{name}.safetensors", follow=False) as tmp:  # a link there: replaced itself
            save_file(tensors, str(tmp), metadata=meta)
        stored = sorted(folder.glob("*.safetensors"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in stored[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # a read-only or full cache only costs the next start 0.4 s
        log.warning("prefix not stored: %s", exc)
