"""The prompt file's lock: one read-merge-write at a time across processes, a wait with an end, and a lock
file that is never a link and never another account's hold-up.

Two windows writing within the same milliseconds would each merge the file as it was before the other's
write, so every write holds an advisory ``flock`` on a hidden ``.NAME.lock`` beside the file (the file
itself is replaced by every write, so a lock on it would not hold). Its holder removes it before letting
go (an empty lock file was left beside the prompt after every session); a waiter that then gets the lock
on the removed file sees the name no longer leads to it and takes the lock again on the name.

The wait is bounded: :data:`LOCK_WAIT` seconds, polled, then :class:`FileLocked` says in one sentence that
another program holds the file, and nothing was written (a lock held by a stuck process blocked Save and
closing the window with no end). Another window's write is short (a prompt file with 2,000 taught tickets
is read, merged and written in 70-110 ms, one with 60,000 in 2.0-2.3 s, on a 2-core machine busy with
other work), so five seconds ends only a wait that would not end, and Save stays within a few seconds.

The lock file is opened without following links (``O_NOFOLLOW``): a dangling link planted under the lock's
name made the lock create the link's target. Only a regular file is a lock. In a sticky folder (``/tmp``,
a ``1777`` drop folder) only the prompt's owner, the folder's owner and root may replace the prompt, so
a lock file owned by any other account is not the lock of anyone who can write the prompt: honouring it
would let every account on the machine stop every Save (it cannot be removed: the folder is sticky), so
it is not used, and the write goes ahead unlocked, as it does where locks are not available (a read-only
folder, no ``fcntl``, a link under the lock's name): the merge still runs.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ..files import shown

log = logging.getLogger(__name__)
LOCK_WAIT = 5.0  # seconds a write waits for another holder of the lock before it gives up (see above)
POLL = 0.02  # seconds between tries


class FileLocked(OSError):
    """Another program holds the prompt file's lock past :data:`LOCK_WAIT`; nothing was written."""

    def __init__(self, path: str | os.PathLike[str], then: str = "your prompt was not saved, try again") -> None:
        why = f"{shown(Path(path).name)} is locked by another program"
        super().__init__(errno.EAGAIN, f"{why}; {then}" if then else why, str(path))


class GaveUp(Exception):
    """The waiter was told to stop waiting (a Save on the window's thread took the write's place)."""


def _open(name: Path, target: Path) -> int | None:
    """The lock file's descriptor, or None where it is not one to use (see the module docstring)."""
    base = os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, base | os.O_RDWR | os.O_CREAT, 0o666)
    except PermissionError:  # another account's lock file we may only read (flock needs no more)
        try:
            fd = os.open(name, base | os.O_RDONLY)
        except OSError:
            return None
    except OSError as exc:  # ELOOP: a link under the lock's name; EROFS, EACCES on the folder...
        log.info("prompt file written without a lock (%s): %s", shown(name), exc.strerror)
        return None
    info, folder = os.fstat(fd), os.stat(name.parent)
    trusted = {os.geteuid(), folder.st_uid, 0}
    with contextlib.suppress(OSError):
        trusted.add(os.stat(target).st_uid)
    if not stat.S_ISREG(info.st_mode) or (folder.st_mode & stat.S_ISVTX and info.st_uid not in trusted):
        log.info("prompt file written without a lock: %s is not a lock any writer of it made", shown(name))
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def locked(
    path: str | os.PathLike[str], then: str = "your prompt was not saved, try again", give_up: Callable[[], bool] = bool
) -> Iterator[None]:
    """Hold the lock for one read-merge-write of ``path``. Raises :class:`FileLocked` (``then`` says what it
    means for the lead) after :data:`LOCK_WAIT` seconds, :class:`GaveUp` as soon as ``give_up()`` is true."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    target = Path(os.path.realpath(path))
    name = target.with_name(f".{target.name}.lock")
    end = time.monotonic() + LOCK_WAIT
    fd: int | None = None
    while fd is None:
        if time.monotonic() > end:
            raise FileLocked(target, then)
        fd = _open(name, target)
        if fd is None:
            yield  # no lock to use: unlocked, as where locks are not available
            return
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if give_up() or time.monotonic() > end:
                    os.close(fd)
                    raise GaveUp() if give_up() else FileLocked(target, then) from None
                time.sleep(POLL)
            except OSError:  # a file system without locks: unlocked, as before
                os.close(fd)
                yield
                return
        try:
            same = os.lstat(name).st_ino == os.fstat(fd).st_ino
        except OSError:
            same = False
        if not same:  # its holder removed it meanwhile: take the lock again on the name
            os.close(fd)
            fd = None
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)  # before the lock goes: whoever waits on this file then retries on the name
        os.close(fd)
