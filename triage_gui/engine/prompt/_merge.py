"""One prompt file, two windows: every write re-reads the file and merges what the other side wrote.

Two windows on one prompt file each kept the file's content in memory and wrote it back whole, so the
last writer won: A taught a ticket, B taught another, the file kept only B's; A saved an edited
instruction, B taught, A's Save was gone; a history of 10,000 versions was numbered from memory.

Each write is a three-way merge of what this window last read or wrote (``base``), what it would write
now (``ours``) and the file as it is now (``theirs``), part by part:

- taught tickets, by text: a ticket this side taught, relabelled or forgot since ``base`` is applied
  to the file's set; every other ticket stays as the file has it (the other side's teaching kept);
- versions, by number: the file's versions kept; a version this side added takes the next number after
  the file's newest (so numbering continues from the file), a version this side scored keeps its score;
- random checks, by ticket text (the window keeps one verdict per ticket): a check this side gave,
  changed or took back since ``base`` is applied to the file's; every other stays as the file has it
  (merged as one field, the last writer's checks won: two windows giving a check each in 50 rounds,
  writes in flight, kept 50 of the 100; now all 100);
- the prompt itself (name, instruction, labels, examples): the side that changed it since ``base``
  wins; when both did, differently, :class:`PromptConflict` is raised and the window asks the lead;
- a prompt with several fields: "the prompt itself" is every field's (its name, instruction, labels, examples,
  order), and each further field's taught tickets, versions and checks are merged as the first field's are,
  with the same field on the other side (by name; by place where both sides hold the same number of fields
  and the name is not found): merged as one whole, the last writer's further fields won, so a ticket taught
  in the priority in one window was gone from the file at the other window's next write (W18);
- any other field, one this version does not know (kept in ``extra``) or one added to the profile later,
  key by key: ours where this side changed it since ``base``, else the file's, so a new field merges
  without code here.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TypeVar

from ._checked import CheckRecord
from ._fields import Field
from ._history import MAX_VERSIONS, PROMPT_KEYS, VersionRecord
from ._profile import Example, PromptProfile

V = TypeVar("V")  # a taught label or a check: what the three-way step carries by ticket text

# The fields merged part by part below; any other field of the profile is merged as a whole, side by side.
MERGED_FIELDS = ("name", *PROMPT_KEYS, "taught", "history", "checks", "extra", "field_name", "ordered", "more_fields")


class PromptConflict(Exception):
    """Both sides changed the prompt since this one last read the file; ``theirs`` is the file now."""

    def __init__(self, path: Path, theirs: PromptProfile) -> None:
        self.path, self.theirs = path, theirs
        # "outside this window": another window or another program (an editor, a sync client); which, the file
        # does not say (W10: an edit in a text editor was called "another window's")
        super().__init__(f"{path.name} was changed outside this window since you opened it.")


@dataclass
class Merged:
    profile: PromptProfile  # what to write
    from_them: list[tuple[str, str]] = field(default_factory=list)  # their taught tickets ours lacks
    renumbered: dict[int, int] = field(default_factory=dict)  # our version number -> its number now
    prompt_from_them: bool = False  # the prompt written is the other side's, not ours
    forgotten: list[tuple[str, str]] = field(default_factory=list)  # our taught tickets the other side forgot


def prompt_part(profile: PromptProfile) -> tuple:
    """What "the prompt itself" is when comparing sides: its name and what the model reads."""
    parts = (getattr(profile, k) for k in PROMPT_KEYS)
    further = tuple(repr(f.prompt_dict()) for f in profile.more_fields)  # a further field's labels are the prompt too
    return (
        profile.name,
        *([asdict(x) for x in part] if isinstance(part, list) else part for part in parts),
        profile.field_name,
        profile.ordered,
        further,
    )


def read_current(path: str | os.PathLike[str]) -> PromptProfile | None:
    """The file as it is now; None if there is none. Raises ValueError for a file that cannot be read
    (which is then never written over: the caller keeps it)."""
    if not Path(path).exists():
        return None
    profile = PromptProfile.load(path)
    profile.validate()
    return profile


def merge(
    base: PromptProfile, ours: PromptProfile, theirs: PromptProfile | None, path: Path, force: bool = False
) -> Merged:
    """See the module docstring. ``force``: ours wins a prompt conflict (the lead said so)."""
    if theirs is None:
        return Merged(ours)
    mine, before, other = prompt_part(ours), prompt_part(base), prompt_part(theirs)
    if mine != before and other != before and mine != other and not force:
        raise PromptConflict(path, theirs)
    prompt_source = ours if mine != before or other == before else theirs
    extra = dict(theirs.extra)
    for key in set(ours.extra) | set(base.extra):
        if ours.extra.get(key) != base.extra.get(key):
            if key in ours.extra:
                extra[key] = ours.extra[key]
            else:
                extra.pop(key, None)
    others = {  # a field added to the profile later (saved random checks, say): ours where we changed it
        f.name: getattr(ours if getattr(ours, f.name) != getattr(base, f.name) else theirs, f.name)
        for f in fields(ours)
        if f.name not in MERGED_FIELDS
    }
    (first, *more), from_them, renumbered, forgotten = merge_fields(base, ours, theirs, prompt_source)
    profile = replace(
        prompt_source, taught=first.taught, history=first.history, checks=first.checks, extra=extra,
        more_fields=more, **others,
    )  # fmt: skip
    return Merged(profile, from_them, renumbered, prompt_source is theirs and other != mine, forgotten)


def merge_fields(
    base: PromptProfile, ours: PromptProfile, theirs: PromptProfile, source: PromptProfile
) -> tuple[list[Field], list[tuple[str, str]], dict[int, int], list[tuple[str, str]]]:
    """Every field as ``source`` (the side whose prompt is written) has them, each with its taught tickets, versions
    and checks merged three-way with the same field on each side: by name, else (renamed) the field at its place
    whose name ``source`` lacks; and what :class:`Merged` says of our first field (wherever it stands now: the
    other window moved the priority first, and our queue ticket went into the priority, W18)."""
    prompt, mine = source.fields, ours.fields
    names = {f.name for f in prompt}

    def same(side: list[Field], f: Field, i: int) -> Field | None:
        """``f`` on ``side``: of its name, else renamed there (a name ``source`` lacks) with its labels, else the
        first field by place where it shares a label (an entry naming no field is the first's). By place alone, a
        field removed and another added in the other window was taken for a rename: the queue's taught tickets
        went into 'extra0', and the priority's into the queue where the other window had removed the queue (W18)."""
        found = next((x for x in side if x.name == f.name), None)
        if found is None:
            found = next((x for x in side if x.name not in names and x.label_names == f.label_names), None)
        if found is None:  # renamed there and a label renamed here (Keep mine over it: the other's tickets were lost)
            near = [x for x in side if x.name not in names and set(x.label_names) & set(f.label_names)]
            found = near[0] if len(near) == 1 else None
        if found is None and not i and side and side[0].name not in names:
            found = side[0] if set(side[0].label_names) & set(f.label_names) else None
        return found

    out, from_them, renumbered, forgotten = [], [], {}, []
    for i, f in enumerate(prompt):
        b, o, t = (same(side, f, i) for side in (base.fields, mine, theirs.fields))
        if o is None or t is None:  # a field one side added: as that side keeps it
            kept = o or t or f
            out.append(replace(f, taught=kept.taught, history=kept.history, checks=kept.checks))
            continue
        before = b or Field(f.name, "", [])
        taught, them, gone = merge_taught(before.taught, o.taught, t.taught)
        history, numbers = merge_history(before.history, o.history, t.history)
        if o is mine[0]:
            from_them, renumbered, forgotten = them, numbers, gone
        out.append(replace(f, taught=taught, history=history, checks=merge_checks(before.checks, o.checks, t.checks)))
    return out, from_them, renumbered, forgotten


def _ours_onto_theirs(before: dict[str, V], mine: dict[str, V], theirs: dict[str, V]) -> dict[str, V]:
    """The three-way step the taught set and the checks share, by ticket text: ``theirs`` with every entry
    ours added, changed or removed since ``before`` done to it too (in place; returned)."""
    for text in (*mine, *(t for t in before if t not in mine)):
        if mine.get(text) != before.get(text):
            if text in mine:
                theirs[text] = mine[text]
            else:
                theirs.pop(text, None)
    return theirs


def merge_taught(
    base: list[Example], ours: list[Example], theirs: list[Example]
) -> tuple[list[Example], list[tuple[str, str]], list[tuple[str, str]]]:
    """Theirs with our changes since ``base`` applied (by text), the tickets of the result that ours
    lacks or labels otherwise (for the window to take in), and ours the result lacks (forgotten there)."""
    mine = {e.text.strip(): e.label for e in ours}
    result = _ours_onto_theirs(
        {e.text.strip(): e.label for e in base}, mine, {e.text.strip(): e.label for e in theirs if e.text.strip()}
    )
    from_them = [(text, label) for text, label in result.items() if mine.get(text) != label]
    forgotten = [(text, label) for text, label in mine.items() if text and text not in result]
    return [Example(text, label) for text, label in result.items()], from_them, forgotten


def merge_checks(base: list[CheckRecord], ours: list[CheckRecord], theirs: list[CheckRecord]) -> list[CheckRecord]:
    """The file's checks with ours changed since ``base`` applied, by ticket text, oldest first."""
    result = _ours_onto_theirs({c.text: c for c in base}, {c.text: c for c in ours}, {c.text: c for c in theirs})
    return sorted(result.values(), key=lambda c: c.at)


def merge_history(
    base: list[VersionRecord], ours: list[VersionRecord], theirs: list[VersionRecord]
) -> tuple[list[VersionRecord], dict[int, int]]:
    """The file's versions with ours merged in by number (see the module docstring), oldest first,
    at most :data:`~engine.prompt.MAX_VERSIONS`; and the numbers our new versions were given."""
    known = {r.number: r for r in base}
    result = {r.number: r for r in theirs}
    renumbered: dict[int, int] = {}
    for record in ours:
        if known.get(record.number) == record:
            continue  # unchanged here: the file's entry (or its absence) stands
        there = result.get(record.number)
        if there is not None and there.content == record.content:
            result[record.number] = record  # the same version, scored here
        elif record.number in known and there is None:
            continue  # scored here, but the file no longer keeps that version
        elif there is None and (not result or record.number > max(result)):
            result[record.number] = record
        else:
            number = max(result) + 1
            renumbered[record.number] = number
            result[number] = replace(record, number=number)
    merged = [result[n] for n in sorted(result)]
    return merged[-MAX_VERSIONS:], renumbered


def known_taught(ours: PromptProfile, merged: Merged) -> list[Example]:
    """The base of the next write's taught tickets: what the file now holds (the window takes in the
    other side's tickets), and the tickets the other side forgot that this side still holds, as held
    (unchanged here, so the next write leaves them forgotten rather than teaching them again)."""
    written = {e.text.strip() for e in merged.profile.taught}
    return [*merged.profile.taught, *(e for e in ours.taught if e.text.strip() not in written)]


def move_aside(path: Path) -> Path:
    """Rename a file that cannot be read to a backup beside it (``prompt.unreadable-20261201-1405.json``),
    so a Save over it loses nothing; returns the backup's path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.stem}.unreadable-{stamp}{path.suffix}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.stem}.unreadable-{stamp}-{n}{path.suffix}")
    path.rename(backup)
    return backup
