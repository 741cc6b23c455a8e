"""The prompt a lead edits: the profile (one or more fields, each an instruction, labels and examples; the
taught set), its layout into token ids (the cacheable prefix and each ticket's suffix), the versions and
random checks kept beside it in the prompt file, and the merge of two windows' writes to one file.

Imports only :mod:`..files`.
"""

from __future__ import annotations

from ._checked import CheckRecord
from ._fields import MAX_FIELDS, Field
from ._history import MAX_VERSIONS, PROMPT_KEYS, Measure, VersionRecord
from ._layout import EncodedTicket, LayoutError, PromptLayout
from ._lock import LOCK_WAIT, FileLocked, GaveUp, locked
from ._merge import Merged, PromptConflict, known_taught, merge, merge_history, move_aside, read_current
from ._profile import (
    MAX_TAUGHT_CHARS,
    SCHEMA_VERSION,
    Example,
    Label,
    Problem,
    ProfileError,
    PromptProfile,
    default_profile,
    gold_column,
    label_key,
    learned_text,
    load_profile,
    looks_like_prompt,
)

__all__ = [
    "LOCK_WAIT",
    "MAX_FIELDS",
    "MAX_TAUGHT_CHARS",
    "MAX_VERSIONS",
    "PROMPT_KEYS",
    "SCHEMA_VERSION",
    "CheckRecord",
    "EncodedTicket",
    "Example",
    "Field",
    "FileLocked",
    "GaveUp",
    "Label",
    "LayoutError",
    "Measure",
    "Merged",
    "Problem",
    "ProfileError",
    "PromptConflict",
    "PromptLayout",
    "PromptProfile",
    "VersionRecord",
    "default_profile",
    "gold_column",
    "known_taught",
    "label_key",
    "learned_text",
    "load_profile",
    "locked",
    "looks_like_prompt",
    "merge",
    "merge_history",
    "move_aside",
    "read_current",
]
