"""Where the window keeps its settings, the user's prompt and the autosaved draft; every value validated.

A hand-edited or damaged settings file must never stop the window from starting: each value is read
through a typed getter that drops what it cannot use and notes it for the status bar.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from ..paths import config_dir

MAX_RECENT = 8


class AppSettings:
    """Typed, validated access to settings.ini; ``notes`` lists what was dropped and why."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.dir = config_dir()
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            if not self.dir.is_dir():
                raise NotADirectoryError(str(self.dir))
        except OSError:
            self.notes.append(f"the settings folder {self.dir} is not a folder; settings are not kept this time")
            self.dir = Path(tempfile.mkdtemp(prefix="ticket-triage-settings-"))
        self.qsettings = QSettings(str(self.dir / "settings.ini"), QSettings.Format.IniFormat)

    @property
    def draft_path(self) -> Path:
        return self.dir / "prompt-draft.json"

    @property
    def default_prompt_path(self) -> Path:
        return self.dir / "prompt.json"

    def _drop(self, key: str, why: str) -> None:
        self.notes.append(f"setting '{key}' {why}; ignored")
        self.qsettings.remove(key)

    def set(self, key: str, value) -> None:
        self.qsettings.setValue(key, value)

    def get_str(self, key: str, default: str = "") -> str:
        value = self.qsettings.value(key, default)
        if value is None or value == "":
            return default
        if not isinstance(value, str):
            self._drop(key, "is not a single text value")
            return default
        return value

    def get_path(self, key: str) -> Path | None:
        text = self.get_str(key)
        if not text:
            return None
        if "\0" in text:
            self._drop(key, "is not a valid path")
            return None
        return Path(text)

    def get_bool(self, key: str, default: bool = False) -> bool:
        value = self.qsettings.value(key, default)
        if isinstance(value, bool):
            return value
        if value in ("true", "1", 1):
            return True
        if value in ("false", "0", 0, None, ""):
            return False
        self._drop(key, "is not true or false")
        return default

    def get_float(self, key: str, default: float, low: float = 0.0, high: float = 1.0) -> float:
        value = self.qsettings.value(key, default)
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            self._drop(key, "is not a number")
            return default
        if not low <= number <= high:
            self._drop(key, f"is outside {low}-{high}")
            return default
        return number

    def get_bytes(self, key: str) -> QByteArray | None:
        value = self.qsettings.value(key)
        if value is None:
            return None
        if not isinstance(value, QByteArray) or value.isEmpty():
            self._drop(key, "is damaged")
            return None
        return value

    def get_dict(self, key: str) -> dict[str, dict[str, str]]:
        """A JSON object of string maps (e.g. gold mappings per file header)."""
        import json

        text = self.get_str(key)
        if not text:
            return {}
        try:
            data = json.loads(text)
            if isinstance(data, dict) and all(
                isinstance(v, dict) and all(isinstance(x, str) and isinstance(y, str) for x, y in v.items())
                for v in data.values()
            ):
                return data
        except ValueError:
            pass
        self._drop(key, "is damaged")
        return {}

    def get_encoder(self) -> str:
        """The sentence encoder chosen in the model dialog (kept across restarts): a bundled name, "none",
        or a folder that still exists; anything else is dropped (MiniLM, the default, is used)."""
        from ..engine.model import ENCODERS, canonical_encoder

        spec = canonical_encoder(self.get_str("encoder"))
        if spec in ENCODERS or spec == "none":
            return spec
        if "\0" not in spec and Path(spec).expanduser().is_dir():
            return spec
        self._drop("encoder", "names no bundled encoder and no folder")
        return canonical_encoder("")

    def recent_files(self) -> list[str]:
        value = self.qsettings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self._drop("recent_files", "is not a list of files")
            return []
        return [v for v in value if v][:MAX_RECENT]

    def add_recent(self, path: str) -> list[str]:
        files = [path] + [p for p in self.recent_files() if p != path]
        files = files[:MAX_RECENT]
        self.qsettings.setValue("recent_files", files)
        return files

    def sync(self) -> None:
        self.qsettings.sync()
