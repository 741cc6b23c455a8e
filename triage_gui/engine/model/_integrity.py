"""Checksums for what Ticket Triage writes to its cache and trusts later: converted models and stored prefixes.

Both are the app's own output, so a file that no longer matches what was written is damage (a crash
mid-copy, a full disk, a bad sector, a stray tool), never something to run on: the entry is reported,
removed and built again. The checksums guard against accidents, not attackers (whoever can write the
cache can rewrite a checksum too), so they are chosen for speed. Measured on the 2-core AMD EPYC dev
machine, page cache warm, best of 3: SHA-256 runs at 1.0 GB/s (SHA-NI), crc32 at 2.1 GB/s, blake2b
at 0.5 GB/s, md5 at 0.4 GB/s.

Converted models carry ``triage-manifest.json``: every file's size, SHA-256 and the mtime/ctime it had
when written. It is the last file written inside the atomic folder swap (:func:`atomic.atomic_dir`),
so a folder without one is unfinished. Hashing the 538 MB of weights takes 0.5 s (1.9 s while other
processes load both cores), twice the whole 0.2-0.3 s start, so a start compares sizes and times only
(0.2 ms for the bundled model's six files) and hashes just the files whose times moved: any write
moves the mtime, and a write that puts the mtime back still moves the ctime, which no user-space call
can set. A file whose hash still matches gets its new times recorded, so only one start pays. Damage
that moves neither time (bit rot below the file system) is not seen at start; a load that fails anyway
triggers a full check, and a model that yields NaN scores points the user at the folder
(:func:`damaged_model_message`).

Stored prefixes carry a crc32 of their tensors in the file's own metadata (:func:`tensors_checksum`):
2.5 ms for the default prompt's 170-token prefix (7.8 MB; SHA-256 took 9.8 ms, blake2b 35 ms), where
reading the file takes 2 ms and recomputing the prefix 300-500 ms. With both cores busy with other
work, the checksum and the read each measured about ten times slower.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import stat
import time
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..files import atomic_write_text

if TYPE_CHECKING:
    import torch

MANIFEST = "triage-manifest.json"
MANIFEST_FORMAT = 1
_CHUNK = 1 << 20
SMALL_FILE = 8 << 20  # the most a cache's own record (stamps, manifest, sums) is read to: ours are < 100 KB


class NotSmallFile(OSError):
    """A cache record that is not a small regular file: a FIFO, a device, a 2 GB sparse file."""


def own_file(info: os.stat_result) -> bool:
    """Whether a cache file is this account's (or root's). The checksums guard against accidents only:
    whoever can write a file can recompute its checksum, so in a cache shared with other accounts a
    record that vouches for something (a stamp, a stored prefix) counts only where this account or root
    wrote it. Systems without user ids (Windows) have no shared-cache story here: every file counts."""
    getuid = getattr(os, "getuid", None)
    return getuid is None or info.st_uid in (getuid(), 0)


def read_small(path: Path, limit: int = SMALL_FILE) -> str:
    """A small cache record's text, or OSError. Opened non-blocking and regular files only: the stamp file
    made a FIFO hung ``classify`` in ``open``, and made a 2 GB sparse file it was read whole (4.3 GB)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise NotSmallFile(f"{path.name} is not a regular file")
        if info.st_size > limit:
            raise NotSmallFile(f"{path.name} is {info.st_size:,} bytes, more than a record of ours ever is")
        return handle.read(limit + 1)[:limit].decode("utf-8")


def tensors_checksum(tensors: Mapping[str, torch.Tensor]) -> str:
    """crc32 over every tensor's name, dtype, shape and raw bytes, in name order, as 8 hex digits.

    The raw bytes go in without a copy (a uint8 view of the contiguous CPU tensor), so any dtype works.
    """
    import torch

    crc = 0
    for name in sorted(tensors):
        tensor = tensors[name].detach().to("cpu").contiguous()
        crc = zlib.crc32(f"{name}|{tensor.dtype}|{tuple(tensor.shape)};".encode(), crc)
        crc = zlib.crc32(tensor.reshape(-1).view(torch.uint8).numpy().data, crc)
    return f"{crc:08x}"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _listed_files(folder: Path) -> list[Path]:
    """The files a manifest covers: everything but the manifest and hidden temp files."""
    return sorted(p for p in folder.iterdir() if p.name != MANIFEST and not p.name.startswith("."))


def _entry(path: Path, sha256: str) -> dict[str, Any]:
    stat = path.stat()
    return {"size": stat.st_size, "sha256": sha256, "mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns}


def write_manifest(folder: Path) -> None:
    """Hash every file of a finished folder (flushed to disk first) and write the manifest, last.

    Flushing matters: a folder renamed into place before its files reach the disk could come back
    after a power cut with the manifest but short files; the size check would catch that, but only
    as damage to rebuild.
    """
    files = {}
    for path in _listed_files(folder):
        if not path.is_file():
            raise ValueError(f"{path} is not a plain file")
        sha = file_sha256(path)
        with open(path, "rb") as handle, contextlib.suppress(OSError):  # some systems flush writers only
            os.fsync(handle.fileno())
        files[path.name] = _entry(path, sha)
    atomic_write_text(folder / MANIFEST, json.dumps({"format": MANIFEST_FORMAT, "files": files}, indent=1))


def check_manifest(folder: Path, full: bool = False) -> str | None:
    """None if ``folder`` holds exactly the files its manifest lists, unchanged; else what is wrong.
    ``PermissionError`` is raised, not reported: a file this account may not read is not damaged.

    Sizes are always compared; contents are hashed where a file's times moved, or everywhere when
    ``full``. Times that moved over unchanged contents are recorded (best effort) for the next start.
    """
    try:
        manifest = json.loads(read_small(folder / MANIFEST))
        files: dict[str, dict[str, Any]] = manifest["files"]
        if manifest.get("format") != MANIFEST_FORMAT or not files:
            return f"{MANIFEST} is of an unknown format"
        present = {p.name for p in _listed_files(folder)}
    except FileNotFoundError:
        return f"it has no {MANIFEST}: the conversion never finished, or an older version made it"
    except PermissionError:
        raise  # not damage: another account's cache that this one may not read (the caller says so)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return f"its {MANIFEST} is unreadable ({exc})"
    if missing := sorted(set(files) - present):
        return f"{missing[0]} is missing"
    if extra := sorted(present - set(files)):
        return f"{extra[0]} was not part of the conversion"
    moved = []
    try:
        for name, entry in files.items():
            stat = (folder / name).stat()
            if stat.st_size != entry["size"]:
                return f"{name} has {stat.st_size:,} bytes where {entry['size']:,} were written"
            if full or (stat.st_mtime_ns, stat.st_ctime_ns) != (entry["mtime_ns"], entry["ctime_ns"]):
                moved.append(name)
        for name in moved:
            if file_sha256(folder / name) != files[name]["sha256"]:
                return f"{name} does not match its checksum"
        if moved:
            updated = {name: _entry(folder / name, files[name]["sha256"]) for name in files}
            if updated != files:
                with contextlib.suppress(OSError):  # a read-only cache only means hashing again next time
                    atomic_write_text(folder / MANIFEST, json.dumps({**manifest, "files": updated}, indent=1))
    except PermissionError:
        raise
    except (OSError, KeyError, TypeError) as exc:
        return f"its files cannot be checked ({exc})"
    return None


OWNER = ".triage-owner"  # in a conversion's temp folder: "<pid> <host>" of the process filling it


def claim(folder: Path) -> None:
    """Mark a temp folder as being filled by this process, so a sweep can tell an abandoned one."""
    (folder / OWNER).write_text(f"{os.getpid()} {socket.gethostname()}", encoding="utf-8")


def release(folder: Path) -> None:
    with contextlib.suppress(OSError):
        (folder / OWNER).unlink()


def _owner_gone(folder: Path) -> bool:
    """Whether the process that was filling ``folder`` (its owner file, or a ``.damaged-<pid>`` name) is
    gone: on this host, with no such process. Another host's, or one we may not signal, is alive."""
    try:
        pid_text, _, host = (folder / OWNER).read_text(encoding="utf-8").partition(" ")
    except OSError:
        pid_text, host = folder.name.rpartition("-")[2], socket.gethostname()
        if ".damaged-" not in folder.name:
            return False
    if not pid_text.strip().isdigit() or host.strip() != socket.gethostname():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another account's process: alive
        return False
    return False


def sweep_interrupted(parent: Path, max_age: float) -> list[Path]:
    """Remove what interrupted conversions and removals left in ``parent`` (hidden folders of 540 MB
    each, after a ``kill -9``): at every start, not only when converting. One goes when the process that
    filled it is gone, or when it is older than ``max_age`` seconds. Returns what was removed."""
    removed = []
    now = time.time()
    with contextlib.suppress(OSError):
        for leftover in parent.glob(".*"):
            try:
                if leftover.is_dir() and (_owner_gone(leftover) or now - leftover.stat().st_mtime > max_age):
                    shutil.rmtree(leftover, ignore_errors=True)
                    removed.append(leftover)
            except OSError:
                continue
    return removed


def hub_folder(repo_id: str) -> Path | None:
    """The Hugging Face cache folder holding a downloaded model, if there is one (no network)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, "config.json")
    except Exception:  # an odd id or a missing library: the message just names no folder
        return None
    return Path(found).parent if isinstance(found, str) else None


class ModelOrigin(Protocol):
    """What :func:`damaged_model_message` reads of a loaded model: a protocol, so this module need not
    import :mod:`model_loader` (which imports it: that was an import circle, type-only)."""

    @property
    def name(self) -> str: ...
    @property
    def decoder(self) -> Any: ...
    @property
    def source(self) -> str: ...
    @property
    def converted_from(self) -> str: ...


def damaged_model_message(loaded: ModelOrigin) -> str:
    """What to tell a user whose model produced NaN or infinite scores: which files to suspect, and
    what to do about them. Only the app's own converted copies are offered for deletion."""
    what = f"{loaded.name} produced non-finite scores"
    if "bfloat16" in str(getattr(loaded.decoder, "dtype", "")):
        hint = " (it runs in bfloat16: see whether float32 does the same)"
    else:
        hint = ""
    if loaded.converted_from:
        return (
            f"{what}: its converted copy in {loaded.source} may be damaged; delete that folder to rebuild it "
            f"from {Path(loaded.converted_from).name}{hint}."
        )
    if loaded.source and Path(loaded.source).is_dir():
        return (
            f"{what}: the model files in {loaded.source} may be damaged or not suited to this app; check them "
            f"or copy them again{hint}. Ticket Triage does not change that folder."
        )
    if loaded.source:
        folder = hub_folder(loaded.source)
        where = f"in {folder}" if folder else "in the Hugging Face cache"
        return f"{what}: its downloaded copy {where} may be damaged; download it again{hint}."
    return f"{what}{hint}."
