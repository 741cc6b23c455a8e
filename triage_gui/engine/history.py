"""The prompt's versions, kept in the prompt file beside it: what each version said (instruction, labels,
examples), when it was first used, and what it scored against gold with how many taught tickets. The
versions list showed only this session's versions; a lead who restarted lost the record of what they
had tried and what it scored.

Entries are a convenience next to the prompt, not the prompt: an entry that cannot be read is dropped
(with the rest kept) rather than making the prompt unreadable. At most :data:`MAX_VERSIONS` are kept,
the oldest dropped first (an entry is a few hundred bytes to a few KB).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace

log = logging.getLogger(__name__)
MAX_VERSIONS = 100
PROMPT_KEYS = ("instruction", "labels", "examples")  # what the model reads; the name is shown too


@dataclass(frozen=True)
class VersionRecord:
    number: int  # 1-based, kept across restarts: "version 7" means the same prompt tomorrow
    saved_at: str  # local time it was first applied, "2026-12-01 14:05"
    prompt: dict  # name, instruction, labels and examples, as in the prompt file
    content: str  # the prompt's content hash (PromptProfile.content_hash)
    accuracy: float | None = None  # against gold, after the version's run (and the refits after it)
    taught: int | None = None  # taught tickets when that accuracy was measured
    gold_rows: int | None = None  # gold rows it was measured on

    def to_dict(self) -> dict:
        out = {"number": self.number, "saved_at": self.saved_at, "content": self.content, **self.prompt}
        if self.accuracy is not None:
            out |= {"accuracy": round(self.accuracy, 6), "taught": self.taught, "gold_rows": self.gold_rows}
        return out

    def scored(self, accuracy: float, taught: int, gold_rows: int) -> VersionRecord:
        return replace(self, accuracy=accuracy, taught=taught, gold_rows=gold_rows)


def read_history(value: object) -> list[VersionRecord]:
    """The entries of a prompt file's ``history``; unreadable ones dropped, numbers kept increasing."""
    if not isinstance(value, list):
        return []
    out: list[VersionRecord] = []
    for item in value:
        record = _record(item)
        if record is None or (out and record.number <= out[-1].number):
            log.info("prompt history entry dropped: %.80r", item)
            continue
        out.append(record)
    return out[-MAX_VERSIONS:]


def _record(item: object) -> VersionRecord | None:
    if not isinstance(item, dict):
        return None
    number, saved_at, content = item.get("number"), item.get("saved_at", ""), item.get("content", "")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        return None
    if not isinstance(saved_at, str) or not isinstance(content, str):
        return None
    prompt = {k: item[k] for k in ("name", *PROMPT_KEYS) if k in item}
    if not isinstance(prompt.get("instruction"), str) or not isinstance(prompt.get("labels"), list):
        return None
    accuracy, taught, rows = item.get("accuracy"), item.get("taught"), item.get("gold_rows")
    measured = isinstance(accuracy, float) and math.isfinite(accuracy) and 0 <= accuracy <= 1
    if not (measured and isinstance(taught, int) and isinstance(rows, int)):
        accuracy, taught, rows = None, None, None
    return VersionRecord(number, saved_at, prompt, content, accuracy, taught, rows)


def write_history(records: list[VersionRecord]) -> list[dict]:
    return [r.to_dict() for r in records[-MAX_VERSIONS:]]
