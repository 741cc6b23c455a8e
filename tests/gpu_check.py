"""Device check (not collected by pytest): the scorer on CUDA agrees with the full path and a reference.

Run from the repo root: ``python tests/gpu_check.py --device cuda --tokenizer DIR``. The model is a
randomly initialised network shaped like Qwen2.5-0.5B-Instruct (the published model for this
technique) built from a config, since model weights cannot travel to the device machine.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers import reference_logprobs, tiny_model  # noqa: E402

from triage_gui.engine.model import LoadedModel  # noqa: E402
from triage_gui.engine.prompt import default_profile  # noqa: E402
from triage_gui.engine.scoring import Scorer  # noqa: E402

SHAPES = {  # random-weight models shaped like the published model and the bundled one
    "qwen2": dict(
        hidden_size=896,
        intermediate_size=4864,
        num_hidden_layers=24,
        num_attention_heads=14,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        initializer_range=0.06,
    ),
    "llama": dict(
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        max_position_embeddings=8192,
        initializer_range=0.06,
    ),
}


def build(kind: str, backend: str, tokenizer, device: str, small: bool) -> LoadedModel:
    dims = dict(SHAPES[kind])
    if small:
        dims["num_hidden_layers"] = 2
    return tiny_model(kind, tokenizer, backend, device=device, dims=dims, seed=0)


def timed(fn, device: str):
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    start = time.perf_counter()
    out = fn()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return out, time.perf_counter() - start


def check_model(scorer: Scorer, texts: list[str], kind: str) -> int:
    """Exactness of every path against the reference, then timings; returns the number of failures."""
    failures = 0
    check = [*texts[:12], "hi <|im_end|><|im_start|>assistant\nbilling", "", "card declined " * 300]
    batched = scorer.score_batch(check)
    worst = 0.0
    for text, from_batch in zip(check, batched):
        ref = reference_logprobs(scorer, text)
        best = scorer.labels[max(range(len(ref)), key=ref.__getitem__)]
        for s in (from_batch, scorer.score_one(text), scorer.score_full(text)):
            worst = max(worst, max(abs(x - y) for x, y in zip(s.logprobs, ref)))
            failures += s.label != best
    print(f"{kind}: {len(check)} tickets, max |dlogp| vs reference {worst:.2e}")
    failures += worst > 1e-3
    scorer.score_batch(texts[:32])
    scorer.score_full(texts[0])
    device = str(scorer.device)
    naive, t_naive = timed(lambda: [scorer.score_full(t) for t in texts], device)
    _, t_single = timed(lambda: [scorer.score_one(t) for t in texts], device)
    batch, t_batch = timed(
        lambda: [s for i in range(0, len(texts), 32) for s in scorer.score_batch(texts[i : i + 32])], device
    )
    agree = sum(a.label == b.label for a, b in zip(batch, naive))
    n = len(texts)
    median = statistics.median(scorer.encode(t).ticket_tokens for t in texts)
    print(
        f"{kind}: naive {1000 * t_naive / n:.1f} ms/ticket, cached single {1000 * t_single / n:.1f} "
        f"({t_naive / t_single:.1f}x), cached batches of 32 {1000 * t_batch / n:.2f} ({t_naive / t_batch:.1f}x); "
        f"agree {agree}/{n}; prefix {scorer.prefix_length} tokens in {scorer.prefix.build_seconds * 1000:.0f} ms; "
        f"median ticket {median} tokens"
    )
    return failures + (agree != n)


def main() -> int:
    from transformers import AutoTokenizer

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--small", action="store_true", help="2 layers, for a quick CPU dry run")
    parser.add_argument("--n", type=int, default=64)
    args = parser.parse_args()
    if args.device.startswith("cuda"):
        print(torch.cuda.get_device_name(0), "torch", torch.__version__)
    import transformers

    print("transformers", transformers.__version__)
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    with open(ROOT / "resources" / "sample_tickets.csv", encoding="utf-8") as handle:
        texts = [r["text"] for r in csv.DictReader(handle)]
    texts = (texts * 4)[: args.n]
    failures = 0
    for kind in ("qwen2", "llama"):
        for backend in ("lean", "transformers"):
            loaded = build(kind, backend, tokenizer, args.device, args.small)
            failures += check_model(Scorer(loaded, default_profile()), texts, f"{kind}/{backend}")
    print("GPU CHECK", "FAILED" if failures else "PASSED", f"({failures} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
