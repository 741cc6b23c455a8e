"""Atomic writes, so an interrupted save never leaves a half-written file or folder behind.

Every writer in the app goes through here: prompt profiles, exports, drafts, stored prefixes and
converted models. Files get the permissions a plain ``open()`` would give: a new file 0666 less the
umask, not ``mkstemp``'s private 0600, so an export on a shared drive is readable by the team as usual;
a file that exists keeps its mode and owner (a private 0600 export stays private). A symlink is written
through: its target is replaced and the link stays a link, unless another user planted it in a shared
folder (``links.check_links``: refused). The temporary file is always beside the file it replaces, in
its own folder (never TMPDIR), so the final rename is atomic and a full disk fails before the old file
is touched.

Only a regular file is ever replaced (:func:`writable_target`, the one rule every write applies, ``--out``
included): a name that is, or links to, a named pipe, a device, a socket or a folder is refused in one
sentence and left as it is. A prefix-store entry linked to a FIFO was replaced by a regular file at the
next save, and, as root, a link to ``/dev/zero`` would have replaced the system's node. A cache's own
entries are written with ``follow=False``: a link there (which the app never makes) is replaced itself by
a fresh regular file, never written through, so the cache mends itself and nothing outside it is touched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ._links import check_links


class ReadOnlyFile(PermissionError):
    """A file the user made read-only: refused, never replaced (an atomic replace is a rename, which the
    file's own mode does not stop, so a 0444 prompt file was silently replaced)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        why = "it is read-only, so it was left as it is (make it writable, or save under another name)"
        super().__init__(errno.EACCES, why, str(path))


class NotAFile(OSError):
    """A name that is (or links to) something other than a regular file: refused, left as it is."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        why = f"it is {kind}, not a regular file, so it was left as it is (save under another name)"
        super().__init__(errno.EINVAL, why, str(path))


def special_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words ("" for a regular file)."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a link" if stat.S_ISLNK(mode) else "not a regular file"


def writable_target(path: str | os.PathLike[str], follow: bool = True) -> Path:
    """The name a write of ``path`` replaces: the link rule applied (:func:`check_links`), a symlink's
    target (``follow``) or the name itself (a link there replaced, not followed); raises :class:`NotAFile`
    where something other than a regular file is there."""
    check_links(path if follow else os.path.dirname(os.path.abspath(path)))
    if follow:
        target = Path(os.path.realpath(path))
    else:
        target = Path(os.path.realpath(os.path.dirname(os.path.abspath(path)))) / os.path.basename(path)
    try:
        info = os.stat(target) if follow else os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        return target
    kind = "" if not follow and stat.S_ISLNK(info.st_mode) else special_kind(info.st_mode)
    if kind:
        raise NotAFile(path, kind)
    return target


def refuse_read_only(path: str | os.PathLike[str]) -> None:
    """Raise :class:`ReadOnlyFile` if ``path`` (a symlink's target) exists and may not be written: no write
    permission bit at all (which even root is held to here), or none for this account."""
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return  # a new file: the folder decides
    if stat.S_ISREG(mode) and (not mode & 0o222 or not os.access(target, os.W_OK)):
        raise ReadOnlyFile(path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def normal_permissions(path: str | os.PathLike[str], folder: bool = False) -> None:
    """Give a temp file or folder the mode ``open()``/``mkdir()`` would have given it."""
    with contextlib.suppress(OSError):
        os.chmod(path, (0o777 if folder else 0o666) & ~_umask())


def keep_mode_and_owner(path: str | os.PathLike[str], existing: os.stat_result) -> None:
    """Give a temp file the mode and (where we may) the owner of the file it is about to replace."""
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IMODE(existing.st_mode))
    if hasattr(os, "chown") and (existing.st_uid, existing.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(OSError):
            os.chown(path, existing.st_uid, existing.st_gid)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = ".tmp", follow: bool = True) -> Iterator[Path]:
    """A temp path beside ``path`` to write to (by any library); it replaces ``path`` (a symlink's target;
    with ``follow=False`` a link itself) only if the block finishes, and is removed otherwise. Refused
    before anything is written where ``path`` is no regular file (:func:`writable_target`)."""
    target = writable_target(path, follow)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        existing: os.stat_result | None = os.lstat(target)
    except OSError:
        existing = None
    # The temp name is capped so that a name near the file system's limit still leaves room for it.
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        if existing is not None and stat.S_ISREG(existing.st_mode):
            keep_mode_and_owner(tmp, existing)
        else:
            normal_permissions(tmp)
        writable_target(path, follow)  # again: something else may have been put there while we wrote
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temp file beside ``path``; it replaces ``path`` (flushed to disk) only if the block finishes."""
    with atomic_path(path) as tmp, open(tmp, mode, **kwargs) as handle:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


@contextlib.contextmanager
def atomic_dir(target: str | os.PathLike[str]) -> Iterator[Path]:
    """A temp folder beside ``target`` to fill; it becomes ``target`` only if the block finishes.

    A folder that exists under the final name is therefore always complete. If another process put
    one there first, ours is discarded.
    """
    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
    try:
        yield tmp
        normal_permissions(tmp, folder=True)
        if not final.exists():
            os.replace(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
