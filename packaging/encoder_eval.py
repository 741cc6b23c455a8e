#!/usr/bin/env python3
"""The first pass per sentence encoder on the dev sets (issue 35): accuracy untaught and at K taught per label,
overall and per ticket language.

Usage: .venv/bin/python packaging/encoder_eval.py [SET ...] [--encoders minilm,e5-small] [--k 0,10,50] [--draws 3]
       .venv/bin/python packaging/encoder_eval.py devsets/xsid/xsid.csv --prompt devsets/xsid-prompt.json \
           --gold intent --by-language

For each dev set (devsets/build/SET.csv with its devsets/SET-prompt.json; ``devsets/build.py`` writes them; or
a CSV path with ``--prompt``) and each encoder, every ticket is embedded once, then per K and draw: K tickets
per label drawn (seeded) are taught, the first pass is fitted as ``classify --fast`` fits it (the classifier
over the encoder, words and characters, no language model) and its labels on the other tickets are scored
against the gold column. Also the encoder's embedding time per ticket. The language model is not loaded:
this is the first pass alone. ``--by-language`` adds a row per ticket language (the table's language
column: each ticket's detected language, "unknown" where the detector would not say) with 20 tickets or more.
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
from triage_gui.engine.table import NewRow, TicketTable, fill_languages, language_name  # noqa: E402

MIN_TICKETS = 20  # a language with fewer tickets gets no row of its own


def read_set(name: str, gold: str, prompt: str | None = None) -> tuple[list[str], list[str], list[PromptProfile]]:
    path = Path(name) if name.endswith(".csv") else ROOT / "devsets" / "build" / f"{name}.csv"
    rows = list(csv.DictReader(path.open(encoding="utf-8", newline="")))
    stem = name.removesuffix("-terse")
    paths = [Path(p) for p in prompt.split(",")] if prompt else [ROOT / "devsets" / f"{stem}-prompt.json"]
    profiles = [PromptProfile.from_dict(json.loads(p.read_text("utf-8"))) for p in paths]
    return [r["text"] for r in rows], [r[gold] for r in rows], profiles


def first_pass_right(texts, gold, profile, encoder, vectors, k: int, seed: int) -> np.ndarray:
    """Per ticket: 1.0 where the first pass is right, 0.0 where wrong, NaN where it was taught."""
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
    right = np.array([float(table.label(r) == gold[r]) for r in range(len(texts))])
    right[taught_rows] = np.nan
    return right


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("sets", nargs="*", default=["queues5narrow", "clinc-support"])
    parser.add_argument("--gold", default="queue")
    parser.add_argument(
        "--prompt", help="the prompt file, or several comma-separated, each measured (default: devsets/SET-prompt.json)"
    )
    parser.add_argument("--encoders", default="minilm,e5-small")
    parser.add_argument("--k", default="0,10,50")
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--by-language", action="store_true", help="also a row per detected ticket language")
    args = parser.parse_args()
    ks = [int(k) for k in args.k.split(",")]
    print("| set | encoder | embed ms/ticket | language (tickets) | " + " | ".join(f"K={k}" for k in ks) + " |")
    print("|---|---|---|---|" + "---|" * len(ks))
    for name in args.sets:
        texts, gold, profiles = read_set(name, args.gold, args.prompt)
        groups: dict[str, np.ndarray] = {"all": np.ones(len(texts), dtype=bool)}
        if args.by_language:
            detected = TicketTable()
            detected.add([NewRow({"text": t}, t) for t in texts])
            fill_languages(detected)
            codes = np.array([detected.language(r) for r in range(len(texts))], dtype=object)
            for code, n in sorted(zip(*np.unique(codes, return_counts=True)), key=lambda x: -x[1]):
                if n >= MIN_TICKETS:
                    groups[language_name(str(code)) or "unknown"] = codes == code
        for spec in args.encoders.split(","):
            encoder = load_encoder(spec)
            table = TicketTable()
            table.add([NewRow({"text": t}, t) for t in texts])
            started = time.perf_counter()
            embed_table(encoder, table)
            ms = 1000 * (time.perf_counter() - started) / len(texts)
            vectors = table.embeddings.get(np.arange(len(texts)))
            for profile in profiles:
                runs = {k: [first_pass_right(texts, gold, profile, encoder, vectors, k, s)
                            for s in range(args.draws if k else 1)] for k in ks}  # fmt: skip
                title = Path(name).stem + (f", {profile.name}" if len(profiles) > 1 else "")
                for group, mask in groups.items():
                    cells = [f"{100 * np.mean([np.nanmean(r[mask]) for r in runs[k]]):.1f}" for k in ks]
                    label = f"{group} ({int(mask.sum())})"
                    print(f"| {title} | {spec} | {ms:.1f} | {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
