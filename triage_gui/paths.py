"""Where Ticket Triage keeps things: the user cache (converted models, stored prefixes), the user config
(settings, prompt, drafts) and the shipped resources. One home, so no two modules disagree."""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "ticket-triage"
CACHE_ENV = "TRIAGE_GUI_CACHE_DIR"
CONFIG_ENV = "TRIAGE_GUI_CONFIG_DIR"


def cache_dir() -> Path:
    """Converted models and stored prefixes; ``TRIAGE_GUI_CACHE_DIR`` overrides it."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """Settings, the saved prompt and its draft; ``TRIAGE_GUI_CONFIG_DIR`` overrides it."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def lead_folder(path: Path) -> Path:
    """Where a file dialog about ``path`` (the prompt in use) starts: its folder, unless that is the settings folder
    (the app's own prompt, a new lead's), which holds nothing a lead keeps: the home folder then (W14, W15)."""
    return Path.home() if os.path.realpath(path.parent) == os.path.realpath(config_dir()) else path.parent


def resources_dir() -> Path:
    """The shipped resources, in a source checkout, an installed package or a frozen bundle."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    packaged = Path(__file__).resolve().parent / "resources"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "resources"


def sample_tickets() -> Path:
    return resources_dir() / "sample_tickets.csv"
