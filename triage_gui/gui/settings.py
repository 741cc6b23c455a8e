"""Where the window keeps its settings, the user's prompt and the autosaved draft."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from ..paths import config_dir

MAX_RECENT = 8


class AppSettings:
    """Typed access to an ini file: geometry, splitters, last prompt, recent files, model choice."""

    def __init__(self) -> None:
        self.dir = config_dir()
        self.dir.mkdir(parents=True, exist_ok=True)
        self.qsettings = QSettings(str(self.dir / "settings.ini"), QSettings.Format.IniFormat)

    @property
    def draft_path(self) -> Path:
        return self.dir / "prompt-draft.json"

    @property
    def default_prompt_path(self) -> Path:
        return self.dir / "prompt.json"

    def value(self, key: str, default=None):
        return self.qsettings.value(key, default)

    def set(self, key: str, value) -> None:
        self.qsettings.setValue(key, value)

    def get_bool(self, key: str, default: bool = False) -> bool:
        value = self.qsettings.value(key, default)
        return value in (True, "true", "1", 1) if not isinstance(value, bool) else value

    def get_float(self, key: str, default: float) -> float:
        try:
            return float(self.qsettings.value(key, default))
        except (TypeError, ValueError):
            return default

    def recent_files(self) -> list[str]:
        value = self.qsettings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [v for v in (value or []) if v]

    def add_recent(self, path: str) -> list[str]:
        files = [path] + [p for p in self.recent_files() if p != path]
        files = files[:MAX_RECENT]
        self.qsettings.setValue("recent_files", files)
        return files

    def sync(self) -> None:
        self.qsettings.sync()
