"""The prompt's versions, kept in the prompt file beside it: what each version said (instruction, labels,
examples), when it was first used, and what it scored against gold with how many taught tickets. The
versions list showed only this session's versions; a lead who restarted lost the record of what they
had tried and what it scored.

Entries are a convenience next to the prompt, not the prompt: an entry that cannot be read is dropped
(with the rest kept) rather than making the prompt unreadable. At most :data:`MAX_VERSIONS` are kept,
the oldest dropped first (an entry is a few hundred bytes to a few KB).

A version keeps one score per file and taught set (:class:`Measure`, by fingerprints of the gold rows and
of the taught set): the first one measured stays. One version and the same 40 taught tickets scored
48.2 %, 50.6 % and 48.4 % on three loads of one file, and each load wrote over the last, so the list
compared one version's third load with another's first.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace

from ._checked import count

log = logging.getLogger(__name__)
MAX_VERSIONS = 100
MAX_SCORES = 20  # scores kept per version (files and taught sets it was measured on), oldest dropped
# What the model reads: the one list (the content hash, a version's prompt, the merge's "prompt itself",
# the prompt document's save); the name is shown beside it and merged with it, but read by no model.
PROMPT_KEYS = ("instruction", "labels", "examples")


@dataclass(frozen=True)
class Measure:
    """A version's accuracy against gold, with what it was measured on."""

    accuracy: float
    taught: int  # taught tickets
    gold_rows: int  # gold rows, all labelled by the version
    gold: str = ""  # fingerprint of the gold rows (text and gold label): which file; "" in older files
    taught_set: str = ""  # fingerprint of the taught set (text and label)
    at: str = ""  # local time measured, "2026-12-01 14:05"
    encoder: str = ""  # fingerprint of the sentence encoder the labels came from ("" in older files)

    def same_conditions(self, other: Measure) -> bool:
        """Measured on the same gold rows with the same taught set, and the same sentence encoder where both
        say (a score from before the fingerprints were kept: the same counts). Without the encoder, a
        version scored with all-MiniLM-L6-v2 kept that score in the Versions tab after the lead switched
        to e5-small, beside the Accuracy tab's new one (walkthrough W4)."""
        if self.encoder and other.encoder and self.encoder != other.encoder:
            return False
        if self.gold and self.taught_set and other.gold and other.taught_set:
            return (self.gold, self.taught_set) == (other.gold, other.taught_set)
        return (self.taught, self.gold_rows) == (other.taught, other.gold_rows)

    def differs_from(self, gold: str, taught_set: str, encoder: str) -> list[str]:
        """Which of the conditions it keeps differ from these fingerprints, in words (for "not comparable")."""
        kept = (("the gold rows", self.gold, gold), ("the taught tickets", self.taught_set, taught_set),
                ("the sentence encoder", self.encoder, encoder))  # fmt: skip
        return [what for what, was, now in kept if was and was != now]

    def to_dict(self) -> dict:
        out = {"accuracy": round(self.accuracy, 6), "taught": self.taught, "gold_rows": self.gold_rows}
        kept = (("gold", self.gold), ("taught_set", self.taught_set), ("at", self.at), ("encoder", self.encoder))
        return out | {k: v for k, v in kept if v}


@dataclass(frozen=True)
class VersionRecord:
    number: int  # 1-based, kept across restarts: "version 7" means the same prompt tomorrow
    saved_at: str  # local time it was first applied, "2026-12-01 14:05"
    prompt: dict  # name, instruction, labels and examples, as in the prompt file
    content: str  # the prompt's content hash (PromptProfile.content_hash)
    accuracy: float | None = None  # against gold, after the version's run (and the refits after it)
    taught: int | None = None  # taught tickets when that accuracy was measured
    gold_rows: int | None = None  # gold rows it was measured on
    scores: tuple[Measure, ...] = ()  # one per file and taught set; the newest is the one above

    def to_dict(self) -> dict:
        out = {"number": self.number, "saved_at": self.saved_at, "content": self.content, **self.prompt}
        if self.accuracy is not None:
            out |= {"accuracy": round(self.accuracy, 6), "taught": self.taught, "gold_rows": self.gold_rows}
        if self.scores:
            out["scores"] = [m.to_dict() for m in self.scores]
        return out

    def scored(self, measure: Measure) -> VersionRecord:
        """With ``measure`` kept and shown, unless this version has a score under the same conditions already:
        that older one stays, and is the one shown (self is returned where it is shown already). Measured
        under other conditions in between (another taught set, another encoder), the version showed that
        other score when the lead went back to the first conditions."""
        known = self.scores or self._legacy()
        m = next((k for k in known if k.same_conditions(measure)), None)
        if m is not None and (self.accuracy, self.taught, self.gold_rows) == (m.accuracy, m.taught, m.gold_rows):
            return self
        scores = known if m is not None else (*known, measure)[-MAX_SCORES:]
        m = m or measure
        return replace(self, accuracy=m.accuracy, taught=m.taught, gold_rows=m.gold_rows, scores=scores)

    def _legacy(self) -> tuple[Measure, ...]:
        """A score written before the scores list (accuracy, taught, gold rows only)."""
        if self.accuracy is None or self.taught is None or self.gold_rows is None:
            return ()
        return (Measure(self.accuracy, self.taught, self.gold_rows),)


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
    scores = item.get("scores")
    kept = tuple(m for m in map(_measure, scores if isinstance(scores, list) else []) if m is not None)
    return VersionRecord(number, saved_at, prompt, content, accuracy, taught, rows, kept[-MAX_SCORES:])


def _measure(item: object) -> Measure | None:
    """One kept score; None (dropped) unless every field has its type."""
    if not isinstance(item, dict):
        return None
    accuracy, taught, rows = item.get("accuracy"), item.get("taught"), item.get("gold_rows")
    gold, taught_set, at, encoder = (item.get(k, "") for k in ("gold", "taught_set", "at", "encoder"))
    if not isinstance(accuracy, float | int) or isinstance(accuracy, bool) or not 0 <= accuracy <= 1:
        return None  # (NaN fails the comparison too)
    if not (count(taught) and count(rows)):
        return None
    if not all(isinstance(v, str) for v in (gold, taught_set, at, encoder)):
        return None
    return Measure(float(accuracy), taught, rows, gold, taught_set, at, encoder)


def write_history(records: list[VersionRecord]) -> list[dict]:
    return [r.to_dict() for r in records[-MAX_VERSIONS:]]
