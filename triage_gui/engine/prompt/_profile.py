"""The prompt profile a support lead edits: instruction, labels and few-shot examples."""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import stat
import unicodedata
from dataclasses import asdict, dataclass, field, replace

from ...defaults import LABEL_CHARS
from ...paths import resources_dir
from ..files import atomic_write_text, check_links
from ._checked import CheckRecord, read_checks, write_checks
from ._fields import (
    MAX_FIELDS,
    Example,
    Field,
    Label,
    kind_of,
    read_examples,
    read_fields,
    read_labels,
    text_value,
    write_kept,
)
from ._history import PROMPT_KEYS, VersionRecord, read_history, write_history

SCHEMA_VERSION = 2  # 2 added the taught tickets; version 1 files still load
FIELDS_VERSION = 3  # a prompt with several fields (a "fields" list); a one-field prompt is still written as 2
KNOWN_FIELDS = (
    "schema_version", "name", "instruction", "labels", "examples", "taught", "history", "checks", "fields", "ordered",
)  # fmt: skip
READABLE_VERSIONS = (1, 2, FIELDS_VERSION)
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
    # The attributes above are the first field's (the only one in a one-field prompt, the one the window
    # edits in a prompt with several); its name ("" in a one-field file written as every release wrote it),
    # whether its labels are in an order, and every field after it (engine/prompt/_fields.py).
    field_name: str = ""
    ordered: bool = False
    more_fields: list[Field] = field(default_factory=list)

    @property
    def label_names(self) -> list[str]:
        return [label.name for label in self.labels]

    @property
    def several(self) -> bool:
        """Written as a ``"fields"`` list: more than one field, or one that has a name."""
        return bool(self.more_fields or self.field_name)

    @property
    def fields(self) -> list[Field]:
        """Every field, the first one made of this profile's own attributes (the lists are shared)."""
        first = Field(self.field_name, self.instruction, self.labels, self.examples, self.ordered)
        first.taught, first.history, first.checks = self.taught, self.history, self.checks
        return [first, *self.more_fields]

    def field_profile(self, index: int) -> PromptProfile:
        """The one-field prompt holding field ``index`` alone with its taught tickets, versions and checks:
        what that field is run as, so its labels are those of a one-field prompt by construction."""
        f = self.fields[index]
        return PromptProfile(
            f.instruction, f.labels, f.examples, self.name, f.taught, f.history, f.checks, ordered=f.ordered
        )

    @classmethod
    def of_fields(cls, fields: list[Field], name: str = "Untitled prompt", extra: dict | None = None) -> PromptProfile:
        """A prompt of these fields (one field with a name is still written as a ``"fields"`` list)."""
        first, *rest = fields
        return cls(
            first.instruction, first.labels, first.examples, name, first.taught, first.history, first.checks,
            dict(extra or {}), first.name, first.ordered, list(rest),
        )  # fmt: skip

    def problems(self) -> list[Problem]:
        """Everything wrong with the profile, each tied to a field, so the editor can point at it."""
        if not self.several:
            return self.field_problems()
        found: list[Problem] = []
        if len(self.fields) > MAX_FIELDS:
            found.append(Problem("fields", f"{len(self.fields)} fields defined; at most {MAX_FIELDS} are allowed."))
        seen: dict[str, int] = {}
        for i, f in enumerate(self.fields):
            problem = _name_problem(f.name, "Field", i)
            if problem is None and label_key(f.name) in seen:
                problem = f"Field {i + 1} {f.name.strip()!r} duplicates field {seen[label_key(f.name)] + 1}."
            if problem is not None:
                found.append(Problem(f"fields[{i}].name", problem))
            seen.setdefault(label_key(f.name), i)
            shown = f.name.strip() or str(i + 1)
            found += [
                Problem(f"fields[{i}].{p.field}", f"Field {shown!r}: {p.message}")
                for p in self.field_profile(i).field_problems()
            ]
        return found

    def field_problems(self) -> list[Problem]:
        """What is wrong with the first field (the only one of a one-field prompt)."""
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
        if self.several:
            return {
                **self.extra,
                "schema_version": FIELDS_VERSION,
                "name": self.name,
                "fields": [f.prompt_dict() for f in self.fields],
                **write_kept(self.fields),
            }
        ordered = {"ordered": True} if self.ordered else {}
        return {
            **self.extra,
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "instruction": self.instruction,
            "labels": [asdict(label) for label in self.labels],
            "examples": [asdict(example) for example in self.examples],
            **ordered,
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
        if self.several:  # each field's name and what the model reads of it (a one-field hash is unchanged)
            data = {"fields": [{k: f.prompt_dict()[k] for k in ("name", *PROMPT_KEYS)} for f in self.fields]}
        blob = json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()[:12]

    @classmethod
    def from_dict(cls, data: dict) -> PromptProfile:
        if not isinstance(data, dict):
            raise ValueError("A prompt profile must be a JSON object.")
        version = data.get("schema_version")
        several = "fields" in data and version is None  # a fields file written by hand may leave it out
        if isinstance(version, bool) or (
            version not in READABLE_VERSIONS and not several
        ):  # true == 1 in Python, not in JSON
            raise ValueError(
                f"Unsupported prompt profile schema_version {version!r} (this version reads "
                f"{', '.join(map(str, READABLE_VERSIONS))})."
            )
        if "fields" in data:
            fields = read_fields(data)
            for f in fields:
                f.examples = spelled(f.examples, f.labels)
            return cls.of_fields(
                fields,
                text_value(data.get("name", "Untitled prompt"), "the prompt's name"),
                {k: v for k, v in data.items() if k not in KNOWN_FIELDS},
            )
        if version == FIELDS_VERSION:
            raise ValueError("Prompt profile schema_version 3 holds a fields list, and this one has none.")
        ordered = data.get("ordered", False)
        if not isinstance(ordered, bool):
            raise ValueError(f"In the prompt profile, ordered must be true or false, not {kind_of(ordered)}.")
        if "instruction" not in data or "labels" not in data:
            missing = "instruction" if "instruction" not in data else "labels"
            raise ValueError(f"Prompt profile is missing a field: {missing!r}.")
        labels = read_labels(data["labels"], "labels")
        return cls(
            name=text_value(data.get("name", "Untitled prompt"), "the prompt's name"),
            instruction=text_value(data["instruction"], "the instruction"),
            labels=labels,
            examples=spelled(read_examples(data.get("examples", []), "examples", "example"), labels),
            taught=read_examples(data.get("taught", []), "taught", "taught ticket"),
            history=read_history(data.get("history")),
            checks=read_checks(data.get("checks")),
            extra={k: v for k, v in data.items() if k not in KNOWN_FIELDS},
            ordered=ordered,
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


def looks_like_prompt(path: str | os.PathLike[str]) -> bool:
    """Whether a file given to the window (on its command line, or dropped) is a prompt profile rather than
    tickets: a .json whose first character is "{" (a JSON ticket file is an array). Only the start of a regular
    file is read (a FIFO named x.json would block the window)."""
    if not os.fspath(path).lower().endswith(".json"):
        return False
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            start = handle.read(4096)
    except OSError:
        return False
    return start.decode("utf-8", "replace").lstrip("\ufeff \t\r\n").startswith("{")


def spelled(examples: list[Example], labels: list[Label]) -> list[Example]:
    """Examples read from a file, each label as the prompt spells it where it is that label in another case or
    spacing (:func:`label_key`): "HIGH" for the label "high" was refused ("Example 1 uses unknown label 'HIGH'")
    while a taught ticket or a --train value so written was taught (W12). Any other label stays, to be refused."""
    names = {label.name for label in labels}
    by_key = {label_key(name): name for name in names}
    return [e if e.label in names else replace(e, label=by_key.get(label_key(e.label), e.label)) for e in examples]


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


def _name_problem(name: str, noun: str, i: int) -> str | None:
    """What is wrong with a field's name, in one sentence (it names the columns ``classify`` writes)."""
    if not _visible(name):
        return f"{noun} {i + 1} has no name."
    if len(name) > MAX_LABEL_CHARS:
        return f"{noun} {i + 1} is named in {len(name)} characters; at most {MAX_LABEL_CHARS} are allowed."
    if name != name.strip():
        return f"{noun} {i + 1} {name!r} has spaces around its name."
    if any(c in name for c in LINE_BREAKS):
        return f"{noun} {i + 1} {name.strip()!r} has a line break or tab in its name."
    return None


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
