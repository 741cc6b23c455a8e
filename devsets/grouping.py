#!/usr/bin/env python3
"""Measure *Suggest labels* (engine/grouping) on the dev sets against k-means told the true number of
labels and HDBSCAN alone (BERTopic's clustering without UMAP), on the same first-pass embeddings.

Per set and gold column: the number of groups, adjusted mutual information (AMI) with gold counting "fits
no group" as one more group and over the grouped tickets only, purity, the share in no group, the accuracy a
lead gets by naming each group by its majority gold label (no group counted wrong), and the time.
Usage: python devsets/grouping.py [--no-hdbscan] [SET ...]  (after devsets/build.py; embeddings cached in
devsets/build/; HDBSCAN took up to 70 s a set, --no-hdbscan leaves it out)
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.cluster import HDBSCAN
from sklearn.metrics import adjusted_mutual_info_score as ami
from threadpoolctl import threadpool_limits

from triage_gui.engine.grouping import find_groups
from triage_gui.engine.grouping._choose import kmeans

BUILD = Path(__file__).resolve().parent / "build"
SETS = ["queues5narrow", "queues5narrow-terse", "clinc-domains", "clinc-domains-terse", "clinc-support",
        "clinc-support-terse", "clinc-assistant", "clinc-assistant-terse", "queues5", "queues5-terse", "queues8",
        "queues8-terse"]  # fmt: skip


def embedded(name: str) -> np.ndarray:
    """The set's first-pass embeddings (the bundled encoder, as the window's first pass), cached."""
    cache = BUILD / f"{name}.npy"
    if cache.exists():
        return np.load(cache)
    from triage_gui.engine.learning import embed_table
    from triage_gui.engine.model import load_encoder
    from triage_gui.engine.tickets import read_table

    table, _, _ = read_table(str(BUILD / f"{name}.csv"), "text", None)
    embed_table(load_encoder("bundled", "cpu"), table, None)
    vectors = table.embeddings.get(np.arange(len(table)))
    np.save(cache, vectors)
    return vectors


def purity(gold: np.ndarray, found: np.ndarray) -> float:
    inside = found >= 0
    total = sum(np.unique(gold[found == g], return_counts=True)[1].max() for g in np.unique(found[inside]))
    return total / max(int(inside.sum()), 1)


def line(name: str, column: str, method: str, gold: np.ndarray, found: np.ndarray, seconds: float) -> str:
    inside = found >= 0
    p = purity(gold, found)
    return (
        f"| {name} | {column} | {method} | {len(np.unique(found[inside]))} | {ami(gold, found):.3f} | "
        f"{ami(gold[inside], found[inside]):.3f} | {p:.3f} | {100 * (1 - inside.mean()):.1f} % | "
        f"{p * inside.mean():.3f} | {seconds:.2f} s |"
    )


def main(names: list[str], hdbscan_too: bool = True) -> None:
    print("| set | gold | method | groups | AMI (all) | AMI (grouped) | purity | no group | majority acc. | time |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        vectors = embedded(name)
        with open(BUILD / f"{name}.csv", encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        texts = [r["text"] for r in rows]
        started = time.perf_counter()
        ours = find_groups(np.arange(len(rows)), vectors, texts).assignment
        mine = time.perf_counter() - started
        if hdbscan_too:
            with threadpool_limits(1):
                started = time.perf_counter()
                dense = HDBSCAN(min_cluster_size=10, copy=True).fit(vectors).labels_
                hdbscan = time.perf_counter() - started
        for column in ("category", "queue"):
            gold = np.asarray([r[column] for r in rows])
            print(line(name, column, "suggested", gold, ours, mine))
            with threadpool_limits(1):
                started = time.perf_counter()
                km = kmeans(vectors, len(set(gold.tolist())), 0, 3)[0]
                print(line(name, column, "k-means, true k", gold, km, time.perf_counter() - started))
            if hdbscan_too:
                print(line(name, column, "HDBSCAN", gold, dense, hdbscan))


if __name__ == "__main__":
    given = [a for a in sys.argv[1:] if a != "--no-hdbscan"]
    main(given or SETS, "--no-hdbscan" not in sys.argv[1:])
