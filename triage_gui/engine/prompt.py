"""The prompt profile a support lead edits: instruction, labels and few-shot examples."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..paths import resources_dir
from .atomic import atomic_write_text

SCHEMA_VERSION = 1


class ProfileError(ValueError):
    """A profile that cannot be used; ``problems`` point at the offending fields."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))


@dataclass(frozen=True)
class Problem:
    field: str  # e.g. "labels[2].name", "examples[0].label", "instruction"
    message: str


@dataclass
class Label:
    name: str
    description: str = ""


@dataclass
class Example:
    text: str
    label: str


@dataclass
class PromptProfile:
    instruction: str
    labels: list[Label]
    examples: list[Example] = field(default_factory=list)
    name: str = "Untitled prompt"

    @property
    def label_names(self) -> list[str]:
        return [label.name for label in self.labels]

    def problems(self) -> list[Problem]:
        """Everything wrong with the profile, each tied to a field, so the editor can point at it."""
        found: list[Problem] = []
        if not self.instruction.strip():
            found.append(Problem("instruction", "The instruction is empty."))
        if len(self.labels) < 2:
            found.append(Problem("labels", "Define at least two labels."))
        seen: dict[str, int] = {}
        for i, label in enumerate(self.labels):
            where = f"labels[{i}].name"
            name = label.name
            if not name.strip():
                found.append(Problem(where, f"Label {i + 1} has no name."))
                continue
            if name != name.strip():
                found.append(Problem(where, f"Label {i + 1} {name!r} has spaces around it."))
            if any(c in name for c in "\r\n\t"):
                found.append(Problem(where, f"Label {i + 1} {name.strip()!r} contains a line break or tab."))
            key = name.strip().casefold()
            if key in seen:
                found.append(Problem(where, f"Label {i + 1} {name.strip()!r} duplicates label {seen[key] + 1}."))
            else:
                seen[key] = i
        names = set(self.label_names)
        for i, example in enumerate(self.examples):
            if not example.text.strip():
                found.append(Problem(f"examples[{i}].text", f"Example {i + 1} has no ticket text."))
            if example.label not in names:
                found.append(Problem(f"examples[{i}].label", f"Example {i + 1} uses unknown label {example.label!r}."))
        return found

    def validate(self) -> None:
        problems = self.problems()
        if problems:
            raise ProfileError(problems)

    def to_dict(self) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "instruction": self.instruction,
            "labels": [asdict(label) for label in self.labels],
            "examples": [asdict(example) for example in self.examples],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def content_hash(self) -> str:
        """Short stable hash of what the model sees; stamped on exports so results trace to a prompt."""
        data = self.to_dict()
        data.pop("name")
        blob = json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()[:12]

    @classmethod
    def from_dict(cls, data: dict) -> PromptProfile:
        if not isinstance(data, dict):
            raise ValueError("A prompt profile must be a JSON object.")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ValueError(f"Unsupported prompt profile schema_version {version!r} (expected {SCHEMA_VERSION}).")
        try:
            return cls(
                name=str(data.get("name", "Untitled prompt")),
                instruction=str(data["instruction"]),
                labels=[Label(str(x["name"]), str(x.get("description", ""))) for x in data["labels"]],
                examples=[Example(str(x["text"]), str(x["label"])) for x in data.get("examples", [])],
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"Prompt profile is missing a field: {exc}") from None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PromptProfile:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise ValueError(f"Cannot read prompt profile {path}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
        return cls.from_dict(data)

    def save(self, path: str | os.PathLike[str]) -> None:
        atomic_write_text(path, self.to_json())


def default_profile() -> PromptProfile:
    return PromptProfile.load(resources_dir() / "default_prompt.json")


def load_profile(path: str | os.PathLike[str] | None) -> PromptProfile:
    """A validated profile from ``path``, or the bundled default when no path is given."""
    profile = PromptProfile.load(path) if path else default_profile()
    profile.validate()
    return profile
