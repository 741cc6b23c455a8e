"""What the session tells its observers: small immutable snapshots, each describing the state now.

The window renders these as they come; it never keeps numbers of its own, so nothing on screen can
describe an older file, prompt or run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ModelStatus:
    state: str  # "loading", "ready", "failed", "none"
    name: str = ""
    device: str = ""
    message: str = ""  # progress text, or why it failed
    fraction: float = 0.0  # loading progress, 0..1
    seconds: float = 0.0  # load time, when ready
    licence: str = ""
    backend: str = ""


def model_ready(model: Any, message: str = "") -> ModelStatus:
    """The status of ``model`` loaded and in use (None: no model), with ``message`` or what its load repaired."""
    if model is None:
        return ModelStatus("none", message=message)
    backend = getattr(getattr(model, "decoder", None), "backend", "")
    message = message or getattr(model, "repaired", "")  # a damaged converted copy was rebuilt: say so
    return ModelStatus("ready", model.name, str(model.device), message, 1.0, model.load_seconds, model.licence, backend)


@dataclass(frozen=True)
class PromptStatus:
    state: str  # "waiting" (no model yet), "updating", "ready", "failed"
    version: int = -1
    prefix_tokens: int = 0
    seconds: float = 0.0
    from_disk: bool = False
    calibrated: bool = False
    message: str = ""  # why the last update failed
    field: str = ""  # the prompt field it points at
    notice: str = ""  # something repaired on the way (a damaged stored prefix discarded and recomputed)
    left_out: str = ""  # failed: the field a Save added, left out of the saved prompt (:mod:`failed_build`)


@dataclass(frozen=True)
class RunStatus:
    """Labelling progress over the loaded tickets, for the prompt version now in use."""

    state: str  # "idle", "running", "stopped", "done"
    labelled: int = 0  # scored by the current prompt version
    total: int = 0  # tickets that can be scored (problem rows excluded)
    baseline_done: int = 0
    baseline_total: int = 0
    rate: float = 0.0  # language-model tickets/s in this run
    eta_seconds: float | None = None  # only while running
    classified: int = 0  # rows with a label of this version (the first pass's or better) or taught
    # Stopped, the tickets the language model still reads in the batch it had started (its labels land, the
    # counts above move once more): the run line says "Stopping", and "Stopped: N not read" only once 0
    finishing: int = 0
    # Rows the classifier's first pass has still to embed (0 without a sentence encoder). With every ticket's
    # language-model score kept from an earlier run, embedding them is what a run does, and the line said
    # "0.0 tickets/s" beside 154/154 labelled for as long as it took (walkthrough, e5-small).
    first_pass_left: int = 0
    # A prompt with several fields: the fields the language model reads in this run (their indices; (): every
    # field, or none read yet). A Save that changed the priority alone has it read the priority alone, and the
    # run line said "each ticket read for 2 fields" at twice the rate of both (W11).
    fields_read: tuple[int, ...] = ()

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.labelled)


@dataclass(frozen=True)
class HeadStatus:
    """The taught classifier: how many tickets it learned from and how its heads are weighted. How good it
    is comes from random checks (:class:`CheckStatus`), never from the tickets it was taught."""

    state: str  # "off" (prompt only), "fitting", "ready", "failed"
    taught: int = 0  # tickets the lead taught (table rows and stored ones)
    examples: int = 0  # the prompt's few-shot examples and label descriptions it also learns from
    weights: str = ""  # how its heads are weighted, in words ("encoder 0.6, characters 0.15, ...")
    fit_ms: float = 0.0
    message: str = ""
    stranded: int = 0  # of the taught, those whose label the prompt no longer has: the fit leaves them out

    @property
    def learned(self) -> int:
        """The taught tickets the classifier learns from (a label of this prompt)."""
        return self.taught - self.stranded


@dataclass(frozen=True)
class FileStatus:
    state: str  # "reading", "done", "failed", "stopped"
    name: str
    rows: int = 0
    summary: str = ""
    message: str = ""
