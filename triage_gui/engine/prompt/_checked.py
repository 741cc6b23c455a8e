"""Random checks as kept in the prompt file: the lead's verdict on a randomly drawn ticket, by its text
(as the taught set), with the label it showed, the prompt version and the taught-set size it was checked
under, and when. Twenty checks gave "~40 % (22–61 %)"; after File › Open of the same workbook, or a
restart, the estimate was gone and the lead had to check twenty tickets again.

Like the versions, checks are a convenience next to the prompt: an entry that cannot be read is dropped
(the rest kept), never a reason to refuse the file. At most :data:`MAX_CHECKS` are kept, the oldest
dropped first (an entry is the ticket's text and ~100 bytes).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TypeGuard

log = logging.getLogger(__name__)
MAX_CHECKS = 5000


@dataclass(frozen=True)
class CheckRecord:
    text: str  # the ticket's text, as loaded
    right: str  # the label the lead said is right
    shown: str  # the label the ticket showed when checked
    version: int  # the prompt version in use then (its number in the file's history)
    taught: int  # tickets taught then (before this check taught its own)
    at: float  # when, in seconds since the epoch
    stage: str = ""  # where the shown label came from: "first pass" (before the language model read it), …
    encoder: str = ""  # the sentence encoder in use then, by name ("": none loaded, or a file from before it was kept)
    # Labels renamed since (old name -> new; ``right`` and ``shown`` carry the new names): the version's labels
    # read under these names are the ones the check was made on, so a rename alone keeps it counted
    renamed: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict:
        out = {"text": self.text, "right": self.right, "shown": self.shown, "version": self.version,
               "taught": self.taught, "at": round(self.at, 1)}  # fmt: skip
        out |= {"renamed": dict(self.renamed)} if self.renamed else {}
        return out | ({"stage": self.stage} if self.stage else {}) | ({"encoder": self.encoder} if self.encoder else {})

    def with_renames(self, mapping: Mapping[str, str]) -> CheckRecord:
        """This check once the labels in ``mapping`` (old name -> new) are renamed (a Save that renamed them)."""
        kept = {old: mapping.get(new, new) for old, new in self.renamed}  # a renamed label renamed again
        named = {new for _, new in self.renamed}
        kept |= {old: new for old, new in mapping.items() if old not in named and old not in kept}
        right, shown = (mapping.get(x, x) for x in (self.right, self.shown))
        return replace(self, right=right, shown=shown, renamed=tuple((o, n) for o, n in kept.items() if o != n))


def read_checks(value: object) -> list[CheckRecord]:
    """The entries of a prompt file's ``checks`` (absent in older files: none); unreadable ones dropped."""
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        record = _check(item)
        if record is None:
            log.info("random check dropped: %.80r", item)
        else:
            out.append(record)
    return out[-MAX_CHECKS:]


def _check(item: object) -> CheckRecord | None:
    if not isinstance(item, dict):
        return None
    text, right, shown = item.get("text"), item.get("right"), item.get("shown")
    version, taught, at = item.get("version"), item.get("taught"), item.get("at")
    if not (isinstance(text, str) and text.strip() and isinstance(right, str) and isinstance(shown, str)):
        return None
    if not (right and shown):
        return None
    if not (count(version) and count(taught) and isinstance(at, float | int) and not isinstance(at, bool)):
        return None
    if not math.isfinite(at):
        return None
    stage, encoder, renamed = item.get("stage"), item.get("encoder"), item.get("renamed")
    stage, encoder = (v if isinstance(v, str) else "" for v in (stage, encoder))
    pairs = renamed.items() if isinstance(renamed, dict) else ()
    kept = tuple((old, new) for old, new in pairs if isinstance(old, str) and isinstance(new, str) and old and new)
    return CheckRecord(text, right, shown, version, taught, float(at), stage, encoder, kept)


def count(value: object) -> TypeGuard[int]:
    """A whole number of at least 0 as JSON gives it (true and false are no numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def write_checks(records: list[CheckRecord]) -> list[dict]:
    return [r.to_dict() for r in records[-MAX_CHECKS:]]
