"""Paths as the app follows and shows them: the one home of the link rule and of printable file names.

The link rule is the kernel's ``fs.protected_symlinks``: a symbolic link in a sticky or world-writable
folder (``/tmp``, a ``1777`` shared drop folder) is followed only where the link's owner is the user
following it or the folder's owner. Another user's link planted there is refused, on every open of a
ticket file (Open, Open recent, a drop, the command line) and every write (``--out``, Export, every
atomic save), so a link ``report.csv -> ~victim/private`` neither shows the victim's file as tickets
nor has the victim's file written over. The kernel applies the rule only where the setting is on (and
only to sticky world-writable folders); this check holds wherever the app runs.
"""

from __future__ import annotations

import os
import stat


class UnsafeLinkError(PermissionError):
    """A link the rule refuses to follow; the message says which, whose and where, in one sentence."""


def shown(path: str | os.PathLike[str] | bytes) -> str:
    """A file name fit for a one-line message: bytes that are not UTF-8 as ``\\xHH``, a newline as
    ``\\n``, any other character that does not print escaped the same way; a plain name as it is."""
    text = os.fsdecode(path) if isinstance(path, bytes) else os.fspath(path)
    if text.isprintable():
        return text
    text = os.fsencode(text).decode("utf-8", "backslashreplace")  # undo surrogateescape: the real bytes
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def check_links(path: str | os.PathLike[str]) -> None:
    """Refuse ``path`` (raising :class:`UnsafeLinkError`) where reaching it follows a link that another
    user owns in a sticky or world-writable folder, unless that user owns the folder. Every link on
    the way counts, not only the last; a missing part ends the walk (nothing further to follow)."""
    pending = list(reversed(os.path.abspath(os.fspath(path)).split(os.sep)[1:]))
    current, hops = os.sep, 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        try:
            info = os.lstat(candidate)
        except OSError:
            return
        if not stat.S_ISLNK(info.st_mode):
            current = candidate
            continue
        folder = os.stat(current)
        shared = folder.st_mode & (stat.S_ISVTX | stat.S_IWOTH)
        if shared and info.st_uid not in (os.geteuid(), folder.st_uid):
            raise UnsafeLinkError(
                f"{shown(candidate)} is a link owned by another user (uid {info.st_uid}) in the shared folder "
                f"{shown(current)}, and such a link is not followed; open or write the file by its real name."
            )
        hops += 1
        if hops > 40:
            return  # a loop: the open itself fails with its own message
        target = os.readlink(candidate)
        if os.path.isabs(target):
            current = os.sep
        pending.extend(reversed(target.split(os.sep)))
