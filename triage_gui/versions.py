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
    try:
        import PySide6  # the package's own attribute: a frozen bundle carries no PySide6 metadata

        lines.append(f"PySide6 {PySide6.__version__}")
    except ImportError:
        lines.append("PySide6 not installed")
    return "\n".join(lines)
