"""Shared fixtures: the real bundled model (converted once per session into a temp cache) and tiny
randomly initialised Qwen2 / Llama models built from configs (no download)."""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

import pytest

# Before anything imports the engine: conversions go to a throwaway cache, settings to temp dirs.
os.environ.setdefault("TRIAGE_GUI_CACHE_DIR", tempfile.mkdtemp(prefix="triage-test-cache-"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"

ROOT = Path(__file__).resolve().parent.parent
BANKING77 = ROOT.parent / "shared" / "data" / "banking77" / "test.csv"
SAMPLE = ROOT / "resources" / "sample_tickets.csv"


@pytest.fixture(scope="session")
def loaded():
    from triage_gui.engine.model_loader import load_model

    return load_model("bundled", "cpu")


@pytest.fixture(scope="session")
def tokenizer(loaded):
    return loaded.tokenizer


@pytest.fixture(scope="session")
def profile():
    from triage_gui.engine.prompt import default_profile

    return default_profile()


def banking_tickets(n: int) -> list[str]:
    """n real tickets spread over the whole BANKING77 test set (or the shipped sample)."""
    path = BANKING77 if BANKING77.is_file() else SAMPLE
    with open(path, encoding="utf-8") as handle:
        texts = [row["text"] for row in csv.DictReader(handle)]
    step = max(1, len(texts) // n)
    return texts[::step][:n]


def reference_model(loaded):
    """The plain transformers model with the same weights: what every scoring path is checked against."""
    if getattr(loaded, "reference", None) is None:
        from transformers import AutoModelForCausalLM

        loaded.reference = AutoModelForCausalLM.from_pretrained(loaded.source).eval()
    return loaded.reference


def tiny_model(kind: str, tokenizer, backend: str = "lean"):
    """A randomly initialised 2-layer model of the given architecture, sharing the SmolLM2 tokenizer.

    ``backend`` "lean" runs it on triage_gui's own decoder, "transformers" on transformers' modules.
    """
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig, Qwen2Config

    from triage_gui.engine.decoder import Decoder
    from triage_gui.engine.model_loader import LoadedModel
    from triage_gui.engine.transformers_decoder import TransformersDecoder

    config_cls = {"qwen2": Qwen2Config, "llama": LlamaConfig}[kind]
    config = config_cls(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        initializer_range=0.5,
        tie_word_embeddings=False,
    )
    torch.manual_seed(1234)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()
    decoder = Decoder.from_transformers(model) if backend == "lean" else TransformersDecoder(model)
    loaded = LoadedModel(decoder, tokenizer, f"tiny-{kind}", f"tiny random {kind} ({backend})", "cpu", "none", 0.0)
    loaded.reference = model
    return loaded


TINY = [("qwen2", "lean"), ("llama", "lean"), ("qwen2", "transformers"), ("llama", "transformers")]


@pytest.fixture(scope="session", params=TINY, ids=[f"{k}-{b}" for k, b in TINY])
def tiny(request, tokenizer):
    kind, backend = request.param
    return tiny_model(kind, tokenizer, backend)


STALLS: dict[str, float] = {}


def record_stall(what: str, seconds: float) -> None:
    """Worst GUI event-loop gap seen by a test's heartbeat; reported at the end of the run."""
    STALLS[what] = max(seconds, STALLS.get(what, 0.0))


def pytest_terminal_summary(terminalreporter):
    if STALLS:
        terminalreporter.section("GUI event loop (10 ms heartbeat)")
        for what, seconds in sorted(STALLS.items()):
            terminalreporter.write_line(f"worst stall during {what}: {seconds * 1000:.0f} ms")
