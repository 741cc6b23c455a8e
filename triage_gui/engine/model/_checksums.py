"""Checks of a model or encoder folder the user points at: its own recorded checksums, and finite weights.

The bundled encoder and our converted models were always checked (:data:`encoder.ENCODER_SHA256`,
:mod:`integrity`'s manifest); a folder the user gave was loaded as it was, so an encoder copy with one
byte flipped loaded silently, and a flip that made a LayerNorm weight -inf gave NaN embeddings, after
which the encoder head was silently dropped from the classifier. Now a folder is checked against the
checksums it records itself, where it has them:

- ``triage-manifest.json`` (what this app records when converting, :mod:`integrity`);
- a ``sha256sum``-style file beside the weights: ``SHA256SUMS``, ``sha256sums.txt``, ``checksums.sha256``
  (lines of ``<64 hex digits>  <file name>``), or ``<file>.sha256`` holding the one file's hash;
- a Hugging Face cache snapshot, whose large files are links to blobs named by their own SHA-256.

and every float tensor of its ``*.safetensors`` must be finite (no NaN, no infinity), checked before the
weights are used. Both read every byte (the converted 538 MB model as a folder: 4.6 s the first time on
2 loaded cores, SHA-256 and the finite scan together; the encoder's tensors scan in 23 ms), so both are
done once per file version: a file that passes gets a stamp (size, mtime, ctime and what passed) in the user
cache, and is checked again only when its stamp no longer matches (any write moves the ctime).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...paths import cache_dir
from ..files import atomic_write_text
from ._integrity import MANIFEST, file_sha256, own_file, read_small

if TYPE_CHECKING:
    import torch

STAMPS = "verified-weights.json"
SUM_FILES = ("SHA256SUMS", "sha256sums.txt", "SHA256SUMS.txt", "checksums.sha256")
_HEX = re.compile(r"[0-9a-fA-F]{64}")
_LINE = re.compile(r"^([0-9a-fA-F]{64})\s+\*?(.+?)\s*$")


def _stamp_key(path: Path) -> tuple[str, dict]:
    stat = path.stat()
    return str(path.resolve()), {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns}


def _read_stamps() -> dict:
    """The stamps, where they are this account's own (or root's): a stamp vouches that a file was hashed,
    so one written by another account in a shared cache would skip the check for whatever it names."""
    path = cache_dir() / STAMPS
    try:
        if not own_file(os.stat(path)):
            return {}
        stamps = json.loads(read_small(path))
    except (OSError, ValueError):
        return {}
    return stamps if isinstance(stamps, dict) else {}


def _stamped(path: Path, what: dict) -> bool:
    """Whether ``path`` as it is now was already found to have ``what`` (a sha256, finite weights)."""
    key, stat = _stamp_key(path)
    stamp = _read_stamps().get(key)
    return isinstance(stamp, dict) and all(stamp.get(k) == v for k, v in {**stat, **what}.items())


def _stamp(path: Path, what: dict) -> None:
    """Record that ``path`` as it is now has ``what`` (best effort: a read-only cache only means checking
    again next time). A stamp of the file's older version is replaced, not merged."""
    key, stat = _stamp_key(path)
    stamps = _read_stamps()
    old = stamps.get(key)
    same = isinstance(old, dict) and all(old.get(k) == v for k, v in stat.items())
    kept = {k: v for k, v in old.items() if k not in stat} if same and isinstance(old, dict) else {}
    stamps[key] = {**kept, **stat, **what}
    with contextlib.suppress(OSError):
        atomic_write_text(cache_dir() / STAMPS, json.dumps(stamps, indent=1))


def sha256_verified(path: Path, sha256: str, hasher: Callable[[Path], str] = file_sha256) -> bool:
    """Whether ``path`` has the SHA-256 ``sha256``; hashed only when its stamp does not say so already."""
    if _stamped(path, {"sha256": sha256}):
        return True
    if hasher(path) != sha256.lower():
        return False
    _stamp(path, {"sha256": sha256.lower()})
    return True


def recorded_checksums(folder: Path) -> dict[str, tuple[str, str]]:
    """File name -> (SHA-256, where it is recorded), for what ``folder`` records of itself."""
    found: dict[str, tuple[str, str]] = {}
    with contextlib.suppress(OSError, ValueError, AttributeError, TypeError):
        files = json.loads(read_small(folder / MANIFEST))["files"]
        for name, entry in files.items():
            found[name] = (str(entry["sha256"]).lower(), MANIFEST)
    for sums in SUM_FILES:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            for line in read_small(folder / sums).splitlines():
                if match := _LINE.match(line):
                    found[match.group(2).removeprefix("./")] = (match.group(1).lower(), sums)
    for path in folder.glob("*.sha256"):
        if path.name in SUM_FILES:
            continue
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if match := _HEX.match(read_small(path).strip()):
                found[path.name.removesuffix(".sha256")] = (match.group(0).lower(), path.name)
    for path in folder.iterdir():
        if path.is_symlink() and _HEX.fullmatch(Path(path.readlink()).name):  # a Hub cache blob
            found.setdefault(path.name, (Path(path.readlink()).name.lower(), "the Hugging Face cache"))
    return found


def damaged_file(folder: Path, hasher: Callable[[Path], str] = file_sha256) -> str | None:
    """None if every file ``folder`` records a checksum for matches it; else what is wrong, as a clause
    ("model.safetensors does not match its checksum in SHA256SUMS")."""
    for name, (sha, where) in sorted(recorded_checksums(folder).items()):
        path = folder / name
        if name == MANIFEST or "/" in name or not path.is_file():
            continue  # a listed file that is not there is for the loader to name
        if not sha256_verified(path, sha, hasher):
            return f"{name} does not match its checksum in {where}"
    return None


def all_finite(tensor: torch.Tensor) -> bool:
    """Whether a tensor holds no NaN and no infinity (true for integer tensors). Through numpy: for the
    encoder's 22.7 M values 23 ms, where ``torch.isfinite(...).all()`` took 3.2 s on 2 loaded cores
    (200 ms on one thread): its thread team waits at barriers for cores that are busy elsewhere."""
    import torch

    if not tensor.is_floating_point():
        return True
    if tensor.dtype not in (torch.float16, torch.float32, torch.float64):
        tensor = tensor.to(torch.float32)
    return bool(np.isfinite(tensor.detach().cpu().numpy()).all())


def nonfinite_tensor(path: Path) -> str | None:
    """The name of the first float tensor of a ``.safetensors`` file holding NaN or infinity, else None;
    a file that passes is stamped, so the next start does not read its tensors again."""
    if _stamped(path, {"finite": True}):
        return None
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        for key in handle.keys():  # noqa: SIM118 (a safetensors handle is not a dict)
            if not all_finite(handle.get_tensor(key)):
                return key
    _stamp(path, {"finite": True})
    return None


def folder_problem(folder: Path, hasher: Callable[[Path], str] = file_sha256) -> str | None:
    """What is wrong with a model or encoder folder (a clause), or None: a recorded checksum that does
    not match, else a weights file holding non-finite values."""
    if problem := damaged_file(folder, hasher):
        return problem
    for weights in sorted(folder.glob("*.safetensors")):
        try:
            name = nonfinite_tensor(weights)
        except Exception:  # a file safetensors cannot read: the loader says so in its own words
            continue
        if name is not None:
            return f"{weights.name} holds non-finite values (NaN or infinity) in {name}"
    return None
