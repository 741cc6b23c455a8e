"""Versions of the app and what it runs on, from package metadata: importing torch or transformers just
to print their versions costs seconds."""

from __future__ import annotations

import platform
from importlib import metadata

from . import __version__


def version_text() -> str:
    lines = [f"Ticket Triage {__version__}", f"Python {platform.python_version()}"]
    for dist in ("torch", "transformers", "tokenizers", "scikit-learn"):
        try:
            lines.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{dist} not installed")
    for dist in ("pyside6-essentials", "pyside6"):
        try:
            lines.append(f"PySide6 {metadata.version(dist)}")
            break
        except metadata.PackageNotFoundError:
            continue
    else:
        lines.append("PySide6 (version unknown)")
    return "\n".join(lines)
