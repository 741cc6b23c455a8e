"""The prompt profile a support lead edits: instruction, labels and few-shot examples."""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import stat
import unicodedata
from dataclasses import asdict, dataclass, field

from ...defaults import LABEL_CHARS
from ...paths import resources_dir
from ..files import atomic_write_text, check_links
from ._checked import CheckRecord, read_checks, write_checks
from ._history import PROMPT_KEYS, VersionRecord, read_history, write_history

SCHEMA_VERSION = 2  # 2 added the taught tickets; version 1 files still load
KNOWN_FIELDS = ("schema_version", "name", "instruction", "labels", "examples", "taught", "history", "checks")
READABLE_VERSIONS = (1, 2)
# Every label name is scored against every ticket, so one huge name or hundreds of labels make each ticket
# take tens of seconds (a 10,000-character name: ~55 s a ticket). A profile is a small hand-edited file.
MAX_LABELS = 100
MAX_LABEL_CHARS = 64
MAX_PROFILE_BYTES = 16 * 1024 * 1024  # a profile with ~100,000 taught tickets; /dev/zero is refused
# A label name holds none of these: tab, line feed, carriage return, and every other Unicode line break.
LINE_BREAKS = "\t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# Letters that render as nothing although their category says otherwise (Hangul fillers, braille blank).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


class ProfileError(ValueError):
    """A profile that cannot be used; ``problems`` point at the offending fields."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        # Each problem is a sentence of its own: joined as sentences, never as "labels.; Example".
        sentences = (p.message if p.message.endswith((".", "?", "!")) else f"{p.message}." for p in problems)
        super().__init__(" ".join(sentences))


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
    # The versions tried with this prompt and what each scored (engine/prompt/_history.py); not read by the model.
    history: list[VersionRecord] = field(default_factory=list)
    # The lead's random checks and what they were made under (engine/prompt/_checked.py); not read by the model.
    checks: list[CheckRecord] = field(default_factory=list)
    # Fields this version does not read (a newer version's, say): carried through every write unchanged.
    extra: dict = field(default_factory=dict)

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
            if any(c in name for c in LINE_BREAKS):
                found.append(Problem(where, f"Label {i + 1} {name.strip()!r} contains a line break or tab."))
            key = label_key(name)
            if key in seen:
                other = self.label_names[seen[key]].strip()
                alike = "" if other.casefold() == name.strip().casefold() else " (they only look alike)"
                found.append(
                    Problem(where, f"Label {i + 1} {name.strip()!r} duplicates label {seen[key] + 1} {other!r}{alike}.")
                )
            else:
                seen[key] = i
        names = set(self.label_names)
        for i, example in enumerate(self.examples):
            if not example.text.strip():
                found.append(Problem(f"examples[{i}].text", f"Example {i + 1} has no ticket text."))
            elif len(example.text) > LABEL_CHARS:  # rendered into the prompt whole: 15 MB took 3.4 GB to tokenize
                found.append(
                    Problem(
                        f"examples[{i}].text",
                        f"Example {i + 1} is {len(example.text):,} characters long; a prompt example can be at "
                        f"most {LABEL_CHARS:,} (tickets are labelled from their first {LABEL_CHARS:,}).",
                    )
                )
            if example.label not in names:
                found.append(Problem(f"examples[{i}].label", f"Example {i + 1} uses unknown label {example.label!r}."))
        return found

    def validate(self) -> None:
        problems = self.problems()
        if problems:
            raise ProfileError(problems)

    def to_dict(self) -> dict:
        return {
            **self.extra,
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "instruction": self.instruction,
            "labels": [asdict(label) for label in self.labels],
            "examples": [asdict(example) for example in self.examples],
            "taught": [asdict(example) for example in self.taught],
            **({"history": write_history(self.history)} if self.history else {}),
            **({"checks": write_checks(self.checks)} if self.checks else {}),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def content_hash(self) -> str:
        """Short stable hash of what the model sees; stamped on exports so results trace to a prompt.
        The name and the taught tickets are not part of it: changing them re-labels nothing."""
        data = {k: v for k, v in self.to_dict().items() if k in PROMPT_KEYS}
        blob = json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()[:12]

    @classmethod
    def from_dict(cls, data: dict) -> PromptProfile:
        if not isinstance(data, dict):
            raise ValueError("A prompt profile must be a JSON object.")
        version = data.get("schema_version")
        if isinstance(version, bool) or version not in READABLE_VERSIONS:  # true == 1 in Python, not in JSON
            raise ValueError(
                f"Unsupported prompt profile schema_version {version!r} (this version reads "
                f"{', '.join(map(str, READABLE_VERSIONS))})."
            )
        if "instruction" not in data or "labels" not in data:
            missing = "instruction" if "instruction" not in data else "labels"
            raise ValueError(f"Prompt profile is missing a field: {missing!r}.")
        return cls(
            name=_text(data.get("name", "Untitled prompt"), "the prompt's name"),
            instruction=_text(data["instruction"], "the instruction"),
            labels=[
                Label(_text(_field(x, "name", w), f"{w}'s name"), _text(x.get("description", ""), f"{w}'s description"))
                for w, x in _items(data["labels"], "labels", "label")
            ],
            examples=[
                Example(_text(_field(x, "text", w), f"{w}'s text"), _text(_field(x, "label", w), f"{w}'s label"))
                for w, x in _items(data.get("examples", []), "examples", "example")
            ],
            taught=[
                Example(_text(_field(x, "text", w), f"{w}'s text"), _text(_field(x, "label", w), f"{w}'s label"))
                for w, x in _items(data.get("taught", []), "taught", "taught ticket")
            ],
            history=read_history(data.get("history")),
            checks=read_checks(data.get("checks")),
            extra={k: v for k, v in data.items() if k not in KNOWN_FIELDS},
        )

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
        check_links(path)  # another user's link planted in a shared folder is not followed
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
        raise ValueError(f"Cannot read prompt profile {path}: {exc.strerror or exc}.") from None
    if size > MAX_PROFILE_BYTES:
        limit = MAX_PROFILE_BYTES // 2**20
        raise ValueError(f"Prompt profile {path} is larger than {limit} MB; a profile is a small JSON file.")
    return data


def label_key(name: str) -> str:
    """What two label names are compared by: Unicode NFC form, invisible characters (zero-width space,
    joiners, soft hyphen, byte-order mark: every format character, and the blank letters) removed, runs
    of whitespace as one space, case folded; "café" typed two ways, "tech  support" and "tech support",
    "billing" and "bill\u200bing" are one label."""
    text = unicodedata.normalize("NFKC", name)  # full-width "ｂｉｌｌｉｎｇ" is "billing"
    text = "".join(c for c in text if c not in _BLANK_LETTERS and unicodedata.category(c) != "Cf")
    return " ".join(text.split()).casefold().translate(_LOOKALIKES)


# Greek and Cyrillic letters drawn like Latin ones (Unicode's confusables, the letters a keyboard gives):
# "Αccount" with a Greek capital alpha and "Account" read as one label, so two labels that only look alike
# are refused as duplicates. Applied after case folding; one Latin letter per script, so two labels written
# wholly in Greek or wholly in Cyrillic still differ wherever they differ.
_LOOKALIKES = str.maketrans(
    "αβεζηικμνορτυχ" + "авеіјкмнорстухѕ",
    "abezhikmnoptyx" + "abeijkmhopctyxs",
)


# A taught ticket is learned from its first MAX_TAUGHT_CHARS characters (a support ticket's topic is in
# its beginning; ~450 tokens of the model's 1,024). Twenty taught tickets of 500 KB each made ``classify``
# sit on one silent batch: 0.65 s to tokenize one and 10.6 s to score its 1,024 tokens (2 loaded cores),
# well over 200 s; cut, the whole run took 78 s on the same loaded machine.
MAX_TAUGHT_CHARS = 2000


def learned_text(text: str) -> str:
    """What of a taught ticket that is not a loaded row is learned from: its first ``MAX_TAUGHT_CHARS``
    characters, the one cut ``classify`` and the window's teaching both apply (``learning``'s ``features_of``,
    ``embed_each``, ``taught_set``): the window scored a 500 KB taught ticket whole on its engine thread."""
    return text[:MAX_TAUGHT_CHARS]


def gold_column(columns: list[str], rows: list[list[str]], labels: list[str], exclude: int) -> int | None:
    """A column whose values are (nearly all) label names, offered as the gold labels."""
    wanted = {label_key(label) for label in labels}
    best, best_share = None, 0.0
    for i in range(len(columns)):
        if i == exclude:
            continue
        values = [label_key(r[i]) for r in rows[:1000] if i < len(r) and r[i].strip()]
        if not values:
            continue
        share = sum(v in wanted for v in values) / len(values)
        if share >= 0.9 and share > best_share:
            best, best_share = i, share
    return best


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"  # JSON's word, not Python's "str"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def _text(value: object, what: str) -> str:
    """A field that must be text: ``null`` or ``["technical"]`` is refused, never turned into "None"."""
    if not isinstance(value, str):
        raise ValueError(f"In the prompt profile, {what} must be text, not {_kind(value)}.")
    return value


def _items(value: object, field: str, noun: str) -> list[tuple[str, dict]]:
    """The objects of a list field, each with its name for messages ("label 2")."""
    if not isinstance(value, list):
        raise ValueError(f"In the prompt profile, {field} must be a list, not {_kind(value)}.")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ValueError(f"In the prompt profile, {noun} {i + 1} must be an object, not {_kind(item)}.")
        out.append((f"{noun} {i + 1}", item))
    return out


def _field(item: dict, key: str, where: str) -> object:
    if key not in item:
        raise ValueError(f"In the prompt profile, {where} has no {key!r}.")
    return item[key]


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
