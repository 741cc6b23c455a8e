"""Files as the app reads and writes them: atomic writes with the user's normal permissions, the shared-folder
link rule every open and write applies, and file names printed safely.

A leaf: it imports no other part of the engine, and every writer (prompt files, exports, drafts, converted
models, stored prefixes) goes through it.
"""

from __future__ import annotations

from ._atomic import (
    NotAFile,
    atomic_dir,
    atomic_open,
    atomic_path,
    atomic_write_text,
    normal_permissions,
    refuse_read_only,
    special_kind,
    writable_target,
)
from ._links import UnsafeLinkError, check_links, shown

__all__ = [
    "NotAFile",
    "UnsafeLinkError",
    "atomic_dir",
    "atomic_open",
    "atomic_path",
    "atomic_write_text",
    "check_links",
    "normal_permissions",
    "refuse_read_only",
    "shown",
    "special_kind",
    "writable_target",
]
