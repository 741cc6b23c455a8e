#!/usr/bin/env python3
"""The first pass per sentence encoder on the dev sets (issue 35): accuracy untaught and at K taught per label.

Usage: .venv/bin/python packaging/encoder_eval.py [SET ...] [--encoders minilm,e5-small] [--k 0,10,50] [--draws 3]

For each dev set (devsets/build/SET.csv with its devsets/SET-prompt.json; ``devsets/build.py`` writes them) and
each encoder, every ticket is embedded once, then per K and draw: K tickets per label drawn (seeded) are
taught, the first pass is fitted as ``classify --fast`` fits it (the classifier over the encoder, words and
characters, no language model) and its labels on the other tickets are scored against the gold column. Also
the encoder's embedding time per ticket. The language model is not loaded: this is the first pass alone.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage_gui.engine.learning import Teacher, embed_table  # noqa: E402
from triage_gui.engine.model import encoder_key, load_encoder  # noqa: E402
from triage_gui.engine.prompt import PromptProfile  # noqa: E402
from triage_gui.engine.table import NewRow, TicketTable  # noqa: E402


def read_set(name: str, gold: str) -> tuple[list[str], list[str], PromptProfile]:
    rows = list(csv.DictReader((ROOT / "devsets" / "build" / f"{name}.csv").open(encoding="utf-8", newline="")))
    stem = name.removesuffix("-terse")
    profile = PromptProfile.from_dict(json.loads((ROOT / "devsets" / f"{stem}-prompt.json").read_text("utf-8")))
    return [r["text"] for r in rows], [r[gold] for r in rows], profile


def first_pass_accuracy(texts, gold, profile, encoder, vectors, k: int, seed: int) -> float:
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    table.start_version(0, profile.label_names, [])
    table.apply_embeddings(list(range(len(texts))), vectors, encoder_key(encoder))
    by_label: dict[str, list[int]] = {}
    for i, g in enumerate(gold):
        by_label.setdefault(g, []).append(i)
    rng = random.Random(seed)
    taught_rows = [r for rows in by_label.values() for r in rng.sample(rows, min(k, len(rows) - 1))] if k else []
    Teacher(None, profile, encoder).fit_table(table, [(texts[r], gold[r]) for r in taught_rows])
    held = sorted(set(range(len(texts))) - set(taught_rows))
    return float(np.mean([table.label(r) == gold[r] for r in held]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("sets", nargs="*", default=["queues5narrow", "clinc-support"])
    parser.add_argument("--gold", default="queue")
    parser.add_argument("--encoders", default="minilm,e5-small")
    parser.add_argument("--k", default="0,10,50")
    parser.add_argument("--draws", type=int, default=3)
    args = parser.parse_args()
    ks = [int(k) for k in args.k.split(",")]
    print("| set | encoder | embed ms/ticket | " + " | ".join(f"K={k}" for k in ks) + " |")
    print("|---|---|---|" + "---|" * len(ks))
    for name in args.sets:
        texts, gold, profile = read_set(name, args.gold)
        for spec in args.encoders.split(","):
            encoder = load_encoder(spec)
            table = TicketTable()
            table.add([NewRow({"text": t}, t) for t in texts])
            started = time.perf_counter()
            embed_table(encoder, table)
            ms = 1000 * (time.perf_counter() - started) / len(texts)
            vectors = table.embeddings.get(np.arange(len(texts)))
            cells = []
            for k in ks:
                draws = [
                    first_pass_accuracy(texts, gold, profile, encoder, vectors, k, s)
                    for s in range(args.draws if k else 1)
                ]
                cells.append(f"{100 * np.mean(draws):.1f}")
            print(f"| {name} ({len(texts)}) | {spec} | {ms:.1f} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
