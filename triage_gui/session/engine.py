"""How the session makes models and scorers: the real engine in the app, fakes in the session tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.model import ScorerLike
from ..engine.prompt import PromptProfile

Progress = Callable[[float, str], None]


@dataclass
class Engine:
    """How the session makes models and scorers; the tests pass fakes, the app the real ones."""

    load: Callable[[str, str, Progress], Any]  # (spec, device, progress) -> LoadedModel
    build: Callable[[Any, PromptProfile, bool], ScorerLike]  # (loaded, profile, calibrate) -> Scorer
    load_encoder: Callable[[str], Any] | None = None  # (spec) -> SentenceEncoder; None: no encoder
    # (scorer) -> what its scores depend on (model identity, prompt prefix and content); None: not storable
    score_key: Callable[[Any], str | None] | None = None
    scores_dir: Path | None = None  # where the scores of the last file per prompt version are kept (None: not)

    @staticmethod
    def real() -> Engine:
        def load(spec: str, device: str, progress: Progress) -> Any:
            from ..engine.model import load_model

            return load_model(spec, device, progress)

        def build(loaded: Any, profile: PromptProfile, calibrate: bool) -> ScorerLike:
            from ..engine.scoring import Scorer

            return Scorer(loaded, profile, calibrate=calibrate)

        def load_encoder(spec: str) -> Any:
            from ..engine.model import load_encoder as load

            return load(spec, "cpu")

        def score_key(scorer: Any) -> str | None:
            from ..engine.model import prefix_store

            model = prefix_store.key(scorer.loaded, list(scorer.layout.prefix_ids))
            profile = scorer.profile  # the first field's scorer reads its first field alone (engine.prompt layout)
            read = profile.field_profile(0) if profile.several else profile
            return None if model is None else f"{model}|{read.content_hash()}"

        from ..paths import cache_dir

        return Engine(load, build, load_encoder, score_key, cache_dir() / "scores")


def field_of(exc: BaseException) -> str:
    return str(getattr(exc, "field", "") or "instruction")
