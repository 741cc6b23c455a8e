"""Helpers the tests and tests/gpu_check.py share: data, the tiny random models, the reference scoring.

A plain module (no environment side effects, unlike conftest), so the device check can import it too.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BANKING77 = ROOT.parent / "shared" / "data" / "banking77" / "test.csv"
SAMPLE = ROOT / "resources" / "sample_tickets.csv"
LABELS = {"billing", "technical", "account"}  # the default prompt's labels


def banking_rows() -> list[dict[str, str]]:
    """BANKING77's test set as rows (text, category), or the shipped sample where ../shared is absent."""
    path = BANKING77 if BANKING77.is_file() else SAMPLE
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def banking_tickets(n: int) -> list[str]:
    """n distinct real tickets spread over the whole BANKING77 test set.

    Where ../shared is absent (a clone elsewhere) the shipped sample's 60 tickets are repeated with a
    number appended, so tests that need a long run still get n rows.
    """
    texts = [row["text"] for row in banking_rows()]
    if len(texts) < n:
        return [texts[i % len(texts)] + ("" if i < len(texts) else f" (#{i})") for i in range(n)]
    step = max(1, len(texts) // n)
    return texts[::step][:n]


def write_tickets(path: Path, texts: list[str], extra: tuple[str, list[str]] | None = None) -> Path:
    """A CSV with a ``text`` column (and one more column ``extra = (name, values)``)."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", *([extra[0]] if extra else [])])
        for i, text in enumerate(texts):
            writer.writerow([text, *([extra[1][i]] if extra else [])])
    return path


def reference_model(loaded: Any) -> Any:
    """The plain transformers model with the same weights: what every scoring path is checked against."""
    if getattr(loaded, "reference", None) is None:
        from transformers import AutoModelForCausalLM

        loaded.reference = AutoModelForCausalLM.from_pretrained(loaded.source).eval()
    return loaded.reference


TINY_DIMS = dict(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=4096,
    initializer_range=0.5,
)


def tiny_model(
    kind: str, tokenizer: Any, backend: str = "lean", device: str = "cpu", dims: dict | None = None, seed: int = 1234
) -> Any:
    """A randomly initialised model of the given architecture ("qwen2" or "llama") sharing ``tokenizer``.

    ``backend`` "lean" runs it on triage_gui's own decoder, "transformers" on transformers' modules; the
    transformers model itself is kept as ``.reference``. ``dims`` overrides the tiny default shape.
    """
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig, Qwen2Config

    from triage_gui.engine.model import LoadedModel, TransformersDecoder
    from triage_gui.engine.model._decoder import LeanDecoder

    config_cls = {"qwen2": Qwen2Config, "llama": LlamaConfig}[kind]
    config = config_cls(vocab_size=len(tokenizer), tie_word_embeddings=False, **{**TINY_DIMS, **(dims or {})})
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32).to(device).eval()
    decoder = LeanDecoder.from_transformers(model) if backend == "lean" else TransformersDecoder(model)
    assert decoder is not None, "the lean decoder refused a plain Llama-family model"
    loaded = LoadedModel(decoder, tokenizer, f"tiny-{kind}", f"random {kind} ({backend})", device, "none", 0.0)
    loaded.reference = model  # type: ignore[attr-defined]
    return loaded


def reference_logprobs(scorer: Any, text: str) -> list[float]:
    """The slowest, plainest scoring: one causal forward per label over prompt + ticket + label.

    Logits only where the label's tokens are read (``logits_to_keep``: the last len(label) + 1 positions; the
    same hidden states, the output layer applied to fewer rows): at every position, the output layer (49,152
    words) and its log-softmax were most of a tiny model's forward and a fifth of SmolLM2's."""
    import torch

    enc = scorer.encode(text)
    model = reference_model(scorer.loaded)
    out = []
    with torch.inference_mode():
        for seq in scorer.layout.label_sequences:
            ids = torch.tensor([enc.full_ids + seq], device=scorer.device)
            # Row j is position len(full_ids) - 1 + j: the logits that predict the label's j-th token.
            logits = model(ids, logits_to_keep=len(seq) + 1).logits[0]
            logp = torch.log_softmax(logits.float(), dim=-1)
            out.append(sum(float(logp[j, tok]) for j, tok in enumerate(seq)))
    return out
