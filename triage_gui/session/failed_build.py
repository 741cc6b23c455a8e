"""What a prompt with several fields does when the model cannot build one of its fields after a Save.

A Save whose fields stand where they stood goes back to the prompt in use, every field of it, as a one-field
prompt does (:meth:`FieldLabels.back_to`; W13: a further field had switched). A Save that moved the fields (or
put a new field first, :func:`field_order.regrouped`) has already put them in their new order, in the file and in
the session's taught sets, checks and undo steps (:meth:`Intents.fields_moved`); going back to the old order
there left the session's fields named ['priority', 'priority'] while the file had ['priority', 'queue'], and a
queue ticket then taught was written into the priority. So there:

- a field the Save changed keeps the new order and labels with its part in use meanwhile (:attr:`retry`);
- a field the Save added is left out of the saved prompt (:attr:`left_out`): the window saves the prompt
  without it, which moves every field back through the Save's own path, and the editor keeps it for the next
  Save. A field added after the others moves nothing, so it needs none of this: the file keeps it and what the
  session holds goes to the file's fields by name (:func:`field_order.by_name`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..engine.prompt import Example, PromptProfile
from .field_order import field_order, regrouped

PART = ("instruction", "labels", "examples", "ordered")  # what the model reads of a field


@dataclass(frozen=True)
class FailedBuild:
    message: str  # what the lead is told
    retry: PromptProfile | None = None  # the prompt to build instead, in the Save's order
    left_out: str = ""  # the name of the field a Save added, to save the prompt without


def failed_build(
    failed: PromptProfile, in_use: PromptProfile | None, index: int, taught: Sequence[Mapping[str, str]], why: str
) -> FailedBuild:
    """``failed``'s field ``index`` could not be built (``why``) while ``in_use`` labels (None: nothing yet);
    ``taught``: each further field's taught set now, in ``failed``'s order."""
    name, several = failed.fields[index].name, len(failed.fields) > 1
    plain = FailedBuild(f"The {name} field cannot be built. {why}" if several and name else why)
    order = [] if in_use is None else field_order(failed.fields, in_use.fields)
    if in_use is None or not regrouped(order) or index >= len(order) or len(taught) != len(order) - 1:
        return plain
    at = order[index]  # (the consequence first: the status bar cut the second sentence, which field it was, W20)
    if at is None:
        return FailedBuild(f"The {name} field is left out of the saved prompt; the editor keeps it. {why}", None, name)
    fields = list(failed.fields)
    fields[index] = replace(fields[index], **{k: getattr(in_use.fields[at], k) for k in PART})
    if fields[index] == failed.fields[index]:
        return plain
    fields[1:] = [
        replace(f, taught=[Example(text, label) for text, label in t.items()])
        for f, t in zip(fields[1:], taught, strict=True)
    ]
    retry = PromptProfile.of_fields(fields, failed.name, failed.extra)
    return FailedBuild(f"The {name} labels with its prompt in use meanwhile. {why}", retry)
