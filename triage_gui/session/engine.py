"""How the session makes models and scorers: the real engine in the app, fakes in the session tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine.prompt import PromptProfile
from ..engine.runner import ScorerLike

Progress = Callable[[float, str], None]


@dataclass
class Engine:
    """How the session makes models and scorers; the tests pass fakes, the app the real ones."""

    load: Callable[[str, str, Progress], Any]  # (spec, device, progress) -> LoadedModel
    build: Callable[[Any, PromptProfile, bool], ScorerLike]  # (loaded, profile, calibrate) -> Scorer

    @staticmethod
    def real() -> Engine:
        def load(spec: str, device: str, progress: Progress) -> Any:
            from ..engine.model_loader import load_model  # torch loads on a worker thread, not the GUI's

            return load_model(spec, device, progress)

        def build(loaded: Any, profile: PromptProfile, calibrate: bool) -> ScorerLike:
            from ..engine.scorer import Scorer

            return Scorer(loaded, profile, calibrate=calibrate)

        return Engine(load, build)


def field_of(exc: BaseException) -> str:
    return str(getattr(exc, "field", "") or "instruction")
