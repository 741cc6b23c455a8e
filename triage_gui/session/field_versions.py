"""Versions and flips of the fields after the first (a prompt with a queue and a priority), as the first
field's are: the tickets whose label of a field changed, and each field's versions with its accuracy against
*its own* gold column, kept in the prompt file with the field (``"field": "priority"``).

A further field's version is its part of the prompt (its instruction, labels and examples: the content hash of
:meth:`PromptProfile.field_profile`); a Save that changed only the priority's part gives the priority a new
version and leaves the queue's part as it was. The field's labels are its first pass (:mod:`fields`), so its
previous labels are those it showed before its prompt part or its taught set last changed
(:attr:`FieldLabels.previous`); its flips compare them with its labels now, row by row where both exist.

Scoring a version and listing the flips for the window: :mod:`field_scoring`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..engine.prompt import MAX_VERSIONS, PROMPT_KEYS, Measure, PromptProfile, VersionRecord

if TYPE_CHECKING:
    from ..engine.table import TicketTable
    from .field_fit import FieldSpec


Flip = tuple[int, str, str, str]  # source row, ticket text, old label, new label


def previous_tables(
    specs: Sequence[FieldSpec],
    taught: Sequence[dict[str, str]],
    tables: Sequence[TicketTable | None],
    previous: Sequence[TicketTable | None],
    new_specs: Sequence[FieldSpec],
    new_taught: Sequence[dict[str, str]],
) -> list[TicketTable | None]:
    """Each further field's previous labels under a new prompt (matched by name): the table it showed, where its
    prompt part or taught set changed (its previous one while none was fitted yet); its previous kept where
    neither did (another field's change refits it, and that is no flip of its own); None for a new field."""
    old = {s.name: i for i, s in enumerate(specs)}
    out: list[TicketTable | None] = []
    for spec, items in zip(new_specs, new_taught, strict=True):
        i = old.get(spec.name)
        if i is None:
            out.append(None)
            continue
        kept = previous[i] if i < len(previous) else None
        same = specs[i].profile.content_hash() == spec.profile.content_hash() and taught[i] == items
        out.append(kept if same or tables[i] is None else tables[i])
    return out


def first_field_flips(table: TicketTable, limit: int = 2000) -> tuple[list[Flip], int]:
    """The first field's tickets whose label changed with the last prompt version (the first ``limit``), and how
    many: its table keeps the labels it showed before (:meth:`TicketTable.previous_ids`), in its own vocabulary,
    read under the names a Save renamed them to (:func:`as_renamed`)."""
    vocab, current = table.label_vocab, table.label_ids()
    index = {name: i for i, name in enumerate(vocab)}
    remap = np.array([index[as_renamed(name, table.renamed, table.labels)] for name in vocab] + [-1], dtype=np.int64)
    previous = remap[table.previous_ids().astype(np.int64)]  # NONE (-1) maps to -1
    changed = np.flatnonzero(table.scored_mask() & (previous >= 0) & (current >= 0) & (previous != current))
    out = [(int(row), table.texts[row], vocab[previous[row]], vocab[current[row]]) for row in changed[:limit]]
    return out, len(changed)


def as_renamed(name: str, renamed: Mapping[str, str], labels: Sequence[str]) -> str:
    """A previous label under the name a Save renamed it to; a name the labels still have, its own. W15: the queue's
    'access' renamed 'accounts', the Flipped tab listed every ticket of it, "access → accounts"."""
    new = renamed.get(name, name) if name not in labels else name
    return new if new in labels else name


def flips_between(
    previous: TicketTable | None,
    current: TicketTable | None,
    limit: int = 2000,
    renamed: Mapping[str, str] | None = None,
) -> tuple[list[Flip], int]:
    """A further field's tickets whose label changed from its previous labels to its labels now (the first
    ``limit``), and how many; rows compared only where both tables have a label for them. The two tables' label
    ids are of their own vocabularies: the previous ones are mapped to the current's (a label the field no longer
    has maps to none of them; one a Save renamed, to its new name). 100,000 rows, two thirds flipped: 2.1 ms (their
    names compared as object arrays: 5.9 ms; steady state, 2 loaded cores)."""
    if previous is None or current is None:
        return [], 0
    n = min(len(previous), len(current))
    index = {name: i for i, name in enumerate(current.label_vocab)}
    gone = len(current.label_vocab)  # a previous label the current vocabulary lacks: differs from every label
    names = [as_renamed(n, renamed, current.labels) for n in previous.label_vocab] if renamed else previous.label_vocab
    remap = np.array([index.get(name, gone) for name in names] + [-1], dtype=np.int64)
    before, now = previous.label_ids()[:n], current.label_ids()[:n]
    was = remap[np.where(before >= 0, before, -1)]  # NONE (-1) maps to -1
    changed = np.flatnonzero((before >= 0) & (now >= 0) & (was != now))
    out = [(int(r), current.texts[r], names[before[r]], current.label_vocab[now[r]]) for r in changed[:limit]]
    return out, len(changed)


# ------------------------------------------------------------------ the versions kept in the prompt file


def with_version(field: PromptProfile, history: list[VersionRecord]) -> list[VersionRecord]:
    """A further field's ``history`` with its part of the prompt (``field``: the one-field prompt holding it) as
    the newest entry, dated now, unless the newest holds it already (as the first field's)."""
    last = history[-1] if history else None
    content = field.content_hash()
    if last is not None and last.content == content:
        return history
    data = field.to_dict()
    prompt = {k: data[k] for k in ("name", *PROMPT_KEYS)}
    number = (last.number if last else 0) + 1
    return [*history, VersionRecord(number, time.strftime("%Y-%m-%d %H:%M"), prompt, content)][-MAX_VERSIONS:]


def number_in(history: Sequence[VersionRecord], profile: PromptProfile | None, field: int) -> int:
    """Field ``field``'s version in ``profile`` (the prompt in use; 1: the second field) in ``history``, that
    field's own versions as the prompt file keeps them and its Versions tab lists them (each field numbers its
    own: a Save that changed only the priority is the priority's v2 and still the queue's v1). The newest entry
    holding that field's part; else the newest (1 where the field has none yet)."""
    if profile is not None and 0 <= field < len(profile.fields):
        content = profile.field_profile(field).content_hash()
        if found := [r.number for r in history if r.content == content]:
            return found[-1]
    return history[-1].number if history else 1


def versions_said(first: int, profile: PromptProfile | None, further: Sequence[Sequence[VersionRecord]]) -> str:
    """The prompt in use's version as the status bar says it: "v3" (``first``: the first field's number); a
    prompt with several fields, each field's own ("queue v1, priority v2"; ``further``: the further fields'
    histories, by position): the first field's number alone stayed "v1" after a Save that changed only the
    priority."""
    names = [f.name for f in profile.fields] if profile is not None else []
    if len(names) < 2:
        return f"v{first}"
    said = [f"{names[0]} v{first}"]
    for i, name in enumerate(names[1:], start=1):
        said.append(f"{name} v{number_in(further[i - 1] if i <= len(further) else [], profile, i)}")
    return ", ".join(said)


def applied(profile: PromptProfile, histories: list[list[VersionRecord]]) -> list[list[VersionRecord]]:
    """Every further field's versions with the prompt in use's part of it the newest (``histories``: as the
    prompt file keeps them, by position; a list that does not match the prompt's fields is returned as it is)."""
    if len(histories) != len(profile.more_fields):
        return histories
    return [with_version(profile.field_profile(i + 1), h) for i, h in enumerate(histories)]


def scored(
    histories: list[list[VersionRecord]], field: int, part: PromptProfile, measure: Measure
) -> list[list[VersionRecord]]:
    """``histories`` (the further fields', by position) with ``measure`` kept in field ``field``'s version of
    ``part`` (the one-field prompt holding that field; 1: the second field): one per gold rows and taught set, the
    first measured. The version is added first where the newest is not it: a field's fit can land, and be scored,
    before the window numbers the version the session applied (:func:`applied`)."""
    out = [list(h) for h in histories]
    if not 0 < field <= len(out):
        return out
    history = out[field - 1] = with_version(part, out[field - 1])
    history[-1] = history[-1].scored(measure)
    return out


def kept_with(fields: Sequence, histories: Sequence[Sequence[VersionRecord]]) -> list | None:
    """The further fields (:class:`engine.prompt.Field`) with these histories; None where nothing changed."""
    if len(histories) != len(fields) or all(f.history == list(h) for f, h in zip(fields, histories, strict=True)):
        return None
    return [replace(f, history=list(h)) for f, h in zip(fields, histories, strict=True)]
