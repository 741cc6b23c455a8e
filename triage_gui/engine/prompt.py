"""The prompt profile a support lead edits: instruction, labels and few-shot examples."""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import stat
import unicodedata
from dataclasses import asdict, dataclass, field

from ..paths import resources_dir
from .atomic import atomic_write_text

SCHEMA_VERSION = 2  # 2 added the taught tickets; version 1 files still load
READABLE_VERSIONS = (1, 2)
# Every label name is scored against every ticket, so one huge name or hundreds of labels make each ticket
# take tens of seconds (a 10,000-character name: ~55 s a ticket). A profile is a small hand-edited file.
MAX_LABELS = 100
MAX_LABEL_CHARS = 64
MAX_PROFILE_BYTES = 16 * 1024 * 1024  # a profile with ~100,000 taught tickets; /dev/zero is refused
# Letters that render as nothing although their category says otherwise (Hangul fillers, braille blank).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


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
    # Tickets the lead taught (text, label): kept with the prompt, but not part of what the model reads.
    taught: list[Example] = field(default_factory=list)

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
        if len(self.labels) > MAX_LABELS:
            found.append(Problem("labels", f"{len(self.labels)} labels defined; at most {MAX_LABELS} are allowed."))
        seen: dict[str, int] = {}
        for i, label in enumerate(self.labels):
            where = f"labels[{i}].name"
            name = label.name
            if not name.strip():
                found.append(Problem(where, f"Label {i + 1} has no name."))
                continue
            if not _visible(name):
                found.append(Problem(where, f"Label {i + 1} has no name (only invisible characters)."))
                continue
            if len(name) > MAX_LABEL_CHARS:
                found.append(
                    Problem(
                        where,
                        f"Label {i + 1} is {len(name)} characters long; a label name can be at most "
                        f"{MAX_LABEL_CHARS} characters.",
                    )
                )
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
            "taught": [asdict(example) for example in self.taught],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def content_hash(self) -> str:
        """Short stable hash of what the model sees; stamped on exports so results trace to a prompt.
        The name and the taught tickets are not part of it: changing them re-labels nothing."""
        data = {k: v for k, v in self.to_dict().items() if k in ("instruction", "labels", "examples")}
        blob = json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()[:12]

    @classmethod
    def from_dict(cls, data: dict) -> PromptProfile:
        if not isinstance(data, dict):
            raise ValueError("A prompt profile must be a JSON object.")
        version = data.get("schema_version")
        if version not in READABLE_VERSIONS:
            raise ValueError(
                f"Unsupported prompt profile schema_version {version!r} (this version reads "
                f"{', '.join(map(str, READABLE_VERSIONS))})."
            )
        try:
            return cls(
                name=str(data.get("name", "Untitled prompt")),
                instruction=str(data["instruction"]),
                labels=[Label(str(x["name"]), str(x.get("description", ""))) for x in data["labels"]],
                examples=[Example(str(x["text"]), str(x["label"])) for x in data.get("examples", [])],
                taught=[Example(str(x["text"]), str(x["label"])) for x in data.get("taught", [])],
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"Prompt profile is missing a field: {exc}") from None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PromptProfile:
        data = _read_profile_bytes(path).removeprefix(codecs.BOM_UTF8)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise ValueError(f"Prompt profile {path} is not UTF-8 text (line {line}); save it as UTF-8.") from None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
        except RecursionError:
            raise ValueError(f"{path} is not a prompt profile (its JSON is nested too deeply).") from None
        return cls.from_dict(value)

    def save(self, path: str | os.PathLike[str]) -> None:
        atomic_write_text(path, self.to_json())


def _read_profile_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes, if it is a regular file of at most ``MAX_PROFILE_BYTES``.

    Checked with ``stat`` before opening: ``/dev/zero`` would fill memory and a FIFO would block forever.
    The read is capped too, in case the file grows between the two.
    """
    data = b""
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(f"Cannot read prompt profile {path}: it is a directory.")
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"Cannot read prompt profile {path}: it is not a regular file.")
        size = info.st_size
        if size <= MAX_PROFILE_BYTES:
            with open(path, "rb") as handle:
                data = handle.read(MAX_PROFILE_BYTES + 1)
            size = len(data)
    except OSError as exc:
        raise ValueError(f"Cannot read prompt profile {path}: {exc.strerror or exc}") from None
    if size > MAX_PROFILE_BYTES:
        limit = MAX_PROFILE_BYTES // 2**20
        raise ValueError(f"Prompt profile {path} is larger than {limit} MB; a profile is a small JSON file.")
    return data


def _visible(name: str) -> bool:
    """Whether the name shows anything: not only spaces, format characters (zero-width space, word
    joiner, byte-order mark), controls, combining marks with nothing to combine with or blank letters."""
    return any(
        not c.isspace()
        and c not in _BLANK_LETTERS
        and unicodedata.category(c) not in ("Cf", "Cc", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me")
        for c in name
    )


def default_profile() -> PromptProfile:
    return PromptProfile.load(resources_dir() / "default_prompt.json")


def load_profile(path: str | os.PathLike[str] | None) -> PromptProfile:
    """A validated profile from ``path``, or the bundled default when no path is given."""
    profile = PromptProfile.load(path) if path else default_profile()
    profile.validate()
    return profile
