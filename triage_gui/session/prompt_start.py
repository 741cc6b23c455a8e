"""What the prompt file and its draft hold when the window starts, read before the document takes them
(:meth:`PromptDocument.start`): the saved prompt (else the default), an unsaved draft that differs from it,
the taught tickets and random checks the draft keeps for a file that could not take them, and a note for the
lead where the file is gone or cannot be read (such a file is kept as it is, never written over).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine.prompt import CheckRecord, Example, PromptProfile, default_profile

UNEDITED = "draft_unedited"  # a draft that only keeps a taught set: its prompt is not an edit to offer


@dataclass
class Start:
    path: Path  # the prompt file in use: the one remembered, else (gone since) the default prompt's own
    saved: PromptProfile  # as read there, or the default prompt
    draft: PromptProfile | None  # the editor's unsaved content, where it differs from ``saved``
    note: str  # for the lead ("" nothing to say)
    unreadable: str  # why the file cannot be read ("" it can)
    draft_taught: list[tuple[str, str]]  # taught tickets the draft keeps for a file that could not take them
    checks: list[CheckRecord]  # the file's random checks, and those the draft keeps likewise


def read_start(path: Path, draft_path: Path, fallback: Path | None) -> Start:
    """See the module docstring. ``fallback``: the default prompt's file, where a remembered one gone since
    leads, unless a draft waits for it (a new prompt never saved, or taught tickets no file has taken)."""
    note, unreadable = "", ""
    saved: PromptProfile | None = None
    if not path.exists() and fallback not in (None, path) and not draft_path.is_file():
        # W11: moved or deleted, the default prompt showed under "Saved: p.json", and a teach wrote it there
        note = f"The prompt file {path} was not found, so the default prompt is in use; File › Open prompt…"
        note, path = note + " opens it where it is now.", fallback or path
    if path.exists():
        try:
            saved = read_valid(path)
        except ValueError as exc:
            unreadable = str(exc)
            note = (
                f"Could not read the prompt file {path.name} ({exc}); it is kept as it is and the "
                f"default prompt is in use: what you teach is kept in the draft until you Save, which first "
                f"moves {path.name} aside as a backup."
            )
    saved = saved or default_profile()
    checks = list(saved.checks)
    draft: PromptProfile | None = None
    if draft_path.is_file():
        try:
            draft = PromptProfile.load(draft_path)
        except ValueError:
            draft = None
    held = draft is not None and not unreadable and taught_pairs(draft.taught) == taught_pairs(saved.taught)
    draft_taught = [(e.text, e.label) for e in draft.taught] if draft is not None and not held else []
    if draft_taught and draft is not None:  # random checks answered where the file could not take them
        known = {c.text for c in checks}
        checks += [c for c in draft.checks if c.text not in known]
    if draft is not None:
        unedited = draft.extra.get(UNEDITED) is True
        draft = replace(draft, taught=[], history=[], extra={})
        if unedited or same_prompt(draft, saved):
            draft = None
    return Start(path, saved, draft, note, unreadable, draft_taught, checks)


def read_valid(path: str | Path) -> PromptProfile:
    """A valid profile from ``path``; raises ValueError saying why not."""
    profile = PromptProfile.load(path)
    profile.validate()
    return profile


def taught_pairs(taught: Sequence[Example]) -> set[tuple[str, str]]:
    """A taught set as (stripped text, label) pairs: two sets that are the same set compare equal."""
    return {(e.text.strip(), e.label) for e in taught}


def same_prompt(a: PromptProfile, b: PromptProfile) -> bool:
    """The same prompt as far as saving goes: what the model reads, and the name."""
    return (a.content_hash(), a.name) == (b.content_hash(), b.name)
