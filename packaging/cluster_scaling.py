"""Tickets per second of ``classify --ray local``: one actor with 2 torch threads against two actors with one
thread each, and the one-process run for reference, on 512 BANKING77 tickets. Prints a Markdown table.

Each configuration runs the real command line once, as a subprocess, with ``--no-learning`` (the learned
head is fitted on the driver after scoring, the same in every configuration). Columns:

- *scoring/s*: tickets per second while scoring (one process: the final progress line, which starts
  after the model is loaded; Ray: from the first worker with its model ready to the last block back);
- *Ray up*, *worker load*, *prefix*: what each run pays before scoring starts: starting Ray, and per
  worker loading the model and building (or reading back from the prefix store) the prompt prefix;
- *end to end*: the whole command's wall time, reading and writing the files included.

Usage: ``.venv/bin/python packaging/cluster_scaling.py [--n 512] [--file tickets.csv] [--repeat 2]``. On a
shared machine the numbers move with whatever else runs: each row gives the load average when it started,
and ``--repeat`` alternates the configurations so a busy minute does not land on one of them only.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BANKING77 = ROOT.parent / "shared" / "data" / "banking77" / "test.csv"
SAMPLE = ROOT / "resources" / "sample_tickets.csv"
CONFIGS = [  # (name, extra arguments)
    ("one process, 2 threads", ["--threads", "2"]),
    ("Ray local, 1 actor x 2 threads", ["--ray", "local", "--ray-actors", "1", "--threads", "2"]),
    ("Ray local, 2 actors x 1 thread", ["--ray", "local", "--ray-actors", "2", "--threads", "1"]),
]


def tickets(path: Path, n: int) -> list[str]:
    """n tickets spread over the whole file (as tests/helpers.banking_tickets picks them)."""
    with open(path, encoding="utf-8", newline="") as handle:
        texts = [row["text"] for row in csv.DictReader(handle)]
    step = max(1, len(texts) // n)
    return texts[::step][:n]


def run(file: Path, out: Path, extra: list[str], batch_size: int) -> dict[str, object]:
    command = [sys.executable, "-m", "triage_gui", "classify", str(file), "--out", str(out), "--no-learning"]
    started = time.perf_counter()
    result = subprocess.run(
        [*command, "--batch-size", str(batch_size), *extra],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(extra) or 'local'} failed:\n{result.stderr[-3000:]}")
    err = result.stderr
    found: dict[str, object] = {"wall": wall}
    if "--ray" in extra:
        up = re.search(r"Ray up in ([\d.]+) s", err)
        workers = re.search(
            r"model load ([\d.]+)-([\d.]+) s, prefix ([\d.]+)-([\d.]+) s .*?in ([\d.]+) s from the first ready worker "
            r"\(([\d.]+)/s\), ([\d.]+)/s per busy worker",
            err,
        )
        if not (up and workers):
            raise SystemExit(f"no Ray summary in the output:\n{err[-3000:]}")
        found.update(up=float(up.group(1)), load=workers.group(2), prefix=workers.group(4))
        found.update(rate=float(workers.group(6)), per_worker=float(workers.group(7)))
    else:
        rates = re.findall(r"(\d+)/(\d+) tickets, ([\d.]+)/s", err)
        found.update(rate=float(rates[-1][2]))
    with open(out, encoding="utf-8", newline="") as handle:
        found["labels"] = [row["label"] for row in csv.DictReader(handle)]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--file", type=Path, default=BANKING77 if BANKING77.is_file() else SAMPLE)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=1, help="rounds; configurations alternate within a round")
    args = parser.parse_args()
    texts = tickets(args.file, args.n)
    rows: list[str] = []
    rates: dict[str, list[float]] = {name: [] for name, _ in CONFIGS}
    with tempfile.TemporaryDirectory(prefix="cluster-scaling-") as tmp:
        file = Path(tmp) / "tickets.csv"
        with open(file, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["text"])
            writer.writerows([t] for t in texts)
        reference: list[str] | None = None
        for _ in range(args.repeat):
            for name, extra in CONFIGS:
                print(f"running: {name}…", file=sys.stderr, flush=True)
                load = os.getloadavg()[0]  # other work on a shared machine moves every number
                got = run(file, Path(tmp) / "out.csv", extra, args.batch_size)
                reference = reference or got["labels"]  # type: ignore[assignment]
                same = "yes" if got["labels"] == reference else "NO"
                startup, per_worker = "- | - | -", "-"
                if "up" in got:
                    startup = f"{got['up']:.1f} s | {got['load']} s | {got['prefix']} s"
                    per_worker = f"{got['per_worker']:.1f}"
                rate, wall = float(got["rate"]), float(got["wall"])  # type: ignore[arg-type]
                rates[name].append(rate)
                cells = [name, f"{load:.1f}", f"{rate:.1f}", per_worker, startup, f"{wall:.0f} s"]
                rows.append("| " + " | ".join([*cells, f"{len(texts) / wall:.1f}", same]) + " |")
    print(f"\n{len(texts)} tickets from {args.file.name}, batch size {args.batch_size}, {os.cpu_count()} CPUs\n")
    header = ["run", "load avg", "scoring/s", "per busy worker/s", "Ray up", "worker load", "prefix", "end to end"]
    print("| " + " | ".join([*header, "end-to-end/s", "labels = first"]) + " |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
    print("\n".join(rows))
    if args.repeat > 1:
        print("\nmedian scoring/s: " + ", ".join(f"{n}: {statistics.median(r):.1f}" for n, r in rates.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
