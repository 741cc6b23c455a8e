"""A field: one decision a ticket gets (a queue, a priority), with its own instruction, labels and few-shot
examples, and, kept beside it, its own taught tickets, versions and random checks.

A prompt holds one or more fields. A one-field prompt is the prompt file every release has written (the
instruction, labels and examples at the top level); a prompt with several is a top-level ``"fields"`` list,
each entry with ``name``, ``instruction``, ``labels`` (``name``, ``description``), ``examples`` (``text``,
``label``) and, for labels in an order (low < medium < high), ``"ordered": true``. Its taught tickets,
versions and checks stay top-level lists as before, each entry naming its field (``"field": "priority"``;
an entry without one belongs to the first field, so a one-field file's entries mean its only field).

Fields are independent by construction: each is run as the one-field prompt holding that field alone
(:meth:`PromptProfile.field_profile`), through the one path a one-field prompt takes; only the sentence
encoder's embeddings are shared (a ticket is embedded once for all fields).

This module has the parts every other prompt module reads (the label, the example, the field) and the
reading helpers that turn a wrong JSON type into one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._checked import CheckRecord, read_checks, write_checks
from ._history import VersionRecord, read_history, write_history

MAX_FIELDS = 20  # each field is one more pass of the language model over every ticket
FIELD_KEY = "field"  # the key that ties a taught ticket, a version or a check to its field


@dataclass
class Label:
    name: str
    description: str = ""


@dataclass
class Example:
    text: str
    label: str


@dataclass
class Field:
    """One field: what the model reads for it (instruction, labels, examples, whether the labels are in
    an order) and what is kept beside it (taught tickets, versions, checks: read by no model)."""

    name: str
    instruction: str
    labels: list[Label]
    examples: list[Example] = field(default_factory=list)
    ordered: bool = False  # labels in an order: eval counts labels two steps from the gold one
    taught: list[Example] = field(default_factory=list)
    history: list[VersionRecord] = field(default_factory=list)
    checks: list[CheckRecord] = field(default_factory=list)

    @property
    def label_names(self) -> list[str]:
        return [label.name for label in self.labels]

    def prompt_dict(self) -> dict:
        """The field as an entry of the file's ``"fields"`` list (what the model reads, and its order)."""
        out = {
            "name": self.name,
            "instruction": self.instruction,
            "labels": [{"name": x.name, "description": x.description} for x in self.labels],
            "examples": [{"text": x.text, "label": x.label} for x in self.examples],
        }
        return out | ({"ordered": True} if self.ordered else {})


def read_fields(data: dict) -> list[Field]:
    """The fields of a file with a top-level ``"fields"`` list, each with its taught tickets, versions and
    checks (an entry naming no field belongs to the first; a taught ticket naming an unknown field is
    refused, a version or check naming one is dropped, as an unreadable one is)."""
    entries = items_of(data["fields"], "fields", "field")
    if not entries:
        raise ValueError("In the prompt profile, fields is empty; a prompt needs at least one field.")
    if len(entries) > MAX_FIELDS:
        raise ValueError(f"The prompt profile has {len(entries)} fields; at most {MAX_FIELDS} are allowed.")
    for key in ("instruction", "labels", "examples", "ordered"):  # a one-field file's keys, never read here
        if key in data:
            raise ValueError(
                f"The prompt profile has both a fields list and a top-level {key!r}; move it into its field."
            )
    out = []
    for where, item in entries:
        for key in ("name", "instruction", "labels"):
            key_of(item, key, where)
        ordered = item.get("ordered", False)
        if not isinstance(ordered, bool):
            raise ValueError(f"In the prompt profile, {where}'s ordered must be true or false, not {kind_of(ordered)}.")
        name = text_value(item["name"], f"{where}'s name")
        out.append(
            Field(
                name,
                text_value(item["instruction"], f"{where}'s instruction"),
                read_labels(item["labels"], f"{where}'s labels"),
                read_examples(item.get("examples", []), f"{where}'s examples", "example"),
                ordered,
            )
        )
    index = {f.name: i for i, f in reversed(list(enumerate(out)))}  # a duplicate name: problems() says so
    taught = items_of(data.get("taught", []), "taught", "taught ticket")
    for where, item in taught:
        name = item.get(FIELD_KEY, out[0].name)
        if name not in index:
            raise ValueError(f"In the prompt profile, {where} is taught for field {name!r}, which it does not have.")
        out[index[name]].taught.append(read_example(item, where))
    for kept, reader in (("history", read_history), ("checks", read_checks)):
        value = data.get(kept)
        by_field: dict[int, list[dict]] = {}
        for item in value if isinstance(value, list) else []:
            if isinstance(item, dict) and item.get(FIELD_KEY, out[0].name) in index:
                entry = {k: v for k, v in item.items() if k != FIELD_KEY}
                by_field.setdefault(index[item.get(FIELD_KEY, out[0].name)], []).append(entry)
        for i, entries_of in by_field.items():
            setattr(out[i], kept, reader(entries_of))
    return out


def write_kept(fields: list[Field]) -> dict:
    """The taught tickets, versions and checks of every field as the file's top-level lists, each entry
    naming its field (the versions and checks only where there are any, as a one-field file has them)."""
    taught = [{"text": e.text, "label": e.label, FIELD_KEY: f.name} for f in fields for e in f.taught]
    history = [{**r, FIELD_KEY: f.name} for f in fields for r in write_history(f.history)]
    checks = [{**r, FIELD_KEY: f.name} for f in fields for r in write_checks(f.checks)]
    return {"taught": taught, **({"history": history} if history else {}), **({"checks": checks} if checks else {})}


def read_labels(value: object, what: str) -> list[Label]:
    return [
        Label(
            text_value(key_of(x, "name", w), f"{w}'s name"), text_value(x.get("description", ""), f"{w}'s description")
        )
        for w, x in items_of(value, what, "label")
    ]


def read_examples(value: object, what: str, noun: str) -> list[Example]:
    return [read_example(x, w) for w, x in items_of(value, what, noun)]


def read_example(item: dict, where: str) -> Example:
    return Example(
        text_value(key_of(item, "text", where), f"{where}'s text"),
        text_value(key_of(item, "label", where), f"{where}'s label"),
    )


def kind_of(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"  # JSON's word, not Python's "str"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def text_value(value: object, what: str) -> str:
    """A field that must be text: ``null`` or ``["technical"]`` is refused, never turned into "None"."""
    if not isinstance(value, str):
        raise ValueError(f"In the prompt profile, {what} must be text, not {kind_of(value)}.")
    return value


def items_of(value: object, field: str, noun: str) -> list[tuple[str, dict]]:
    """The objects of a list field, each with its name for messages ("label 2")."""
    if not isinstance(value, list):
        raise ValueError(f"In the prompt profile, {field} must be a list, not {kind_of(value)}.")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ValueError(f"In the prompt profile, {noun} {i + 1} must be an object, not {kind_of(item)}.")
        out.append((f"{noun} {i + 1}", item))
    return out


def key_of(item: dict, key: str, where: str) -> object:
    if key not in item:
        raise ValueError(f"In the prompt profile, {where} has no {key!r}.")
    return item[key]
