"""``bench``: every scoring path on the same distinct tickets in one run, reported as ratios to naive.

Timings are only ever compared within one run, because the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from ..paths import sample_tickets


def default_tickets() -> Path:
    banking = Path(__file__).resolve().parents[3] / "shared" / "data" / "banking77" / "test.csv"
    return banking if banking.is_file() else sample_tickets()


def peak_rss_mb() -> float:
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 1024 if sys.platform != "darwin" else peak / 1024 / 1024
    except ImportError:  # Windows
        import psutil

        return psutil.Process().memory_info().peak_wset / 1024 / 1024


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def process_start(args: argparse.Namespace, encoder: str) -> float:
    """Wall time of a fresh ``classify`` process on one ticket: imports, model (and encoder) load, prefix,
    one label."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        ticket = Path(tmp) / "one.txt"
        ticket.write_text("My card payment was declined twice today.\n", encoding="utf-8")
        command = [sys.executable, "-m", "triage_gui", "classify", str(ticket), "--model", args.model]
        command += ["--encoder", encoder]
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        return time.perf_counter() - started


def run_bench(args: argparse.Namespace) -> int:
    import torch

    from ..engine.model import load_model
    from ..engine.prompt import load_profile
    from ..engine.scoring import Scorer, score_stream
    from ..engine.tickets import open_tickets

    path = Path(args.tickets) if args.tickets else default_tickets()
    # rows without text are no tickets (classify labels none of them); a blank one was benchmarked as "1 distinct
    # ticket" of 0 tokens
    distinct = list(dict.fromkeys(t.text for t in open_tickets(path).read_all() if not t.problem and t.text.strip()))
    step = max(1, len(distinct) // max(1, args.n))
    texts = distinct[::step][: args.n]  # spread over the file: every intent, every length
    if not texts:
        raise ValueError(f"{path} holds no tickets")
    fields_of = load_profile(args.prompt)
    profile = fields_of.field_profile(0)  # the paths below are timed on the first field (the only one, mostly)

    from ..engine.model import load_encoder

    cold_started = time.perf_counter()
    loaded = load_model(args.model, args.device, None, args.threads)
    scorer = Scorer(loaded, profile)
    scorer.score_one(texts[0])
    cold_start = time.perf_counter() - cold_started
    load_time = loaded.load_seconds

    # Warm every path once, then time a fresh prefix build.
    scorer.score_full(texts[0])
    scorer.score_batch(texts[: args.batch_size])
    scorer = Scorer(loaded, profile, stored_prefix=False)
    prefix_build = scorer.prefix.build_seconds
    prefix_read = Scorer(loaded, profile).prefix.build_seconds  # the on-disk store, as the next start sees it
    exact = scorer
    if args.dtype != "float32":
        # The opt-in reduced precision is measured against the exact float32 naive loops.
        scorer = Scorer(load_model(args.model, args.device, None, args.threads, args.dtype), profile)
        scorer.score_batch(texts[: args.batch_size])
        scorer = Scorer(scorer.loaded, profile, stored_prefix=False)
        prefix_build = scorer.prefix.build_seconds

    worst_batch_ms = 0.0
    encoder = None if args.encoder == "none" else load_encoder(args.encoder, "cpu")
    embeddings: list = []

    def batched_run(chunk: list[str], with_encoder: bool = False) -> list:
        nonlocal worst_batch_ms
        out: list = [None] * len(chunk)
        stream = score_stream(scorer, enumerate(chunk), args.batch_size, encoder=encoder if with_encoder else None)
        for batch in stream:
            for item in batch:
                out[item.index] = item.cached
                if item.embedding is not None:
                    embeddings.append(item.embedding)
            worst_batch_ms = max(worst_batch_ms, sum(item.cached.latency_ms for item in batch if item.cached))
        return out

    lean = loaded.decoder.backend == "lean decoder"
    paths = {"single": lambda chunk: [scorer.score_one(t) for t in chunk], "batched": batched_run}
    if encoder is not None:
        paths["encoder"] = lambda chunk: list(encoder.encode(chunk))
        paths["batched_encoder"] = lambda chunk: batched_run(chunk, True)
    if lean:
        paths["lean_naive"] = lambda chunk: [exact.score_full(t) for t in chunk]
    for run in paths.values():
        run(texts[:2])
    peak_rss = peak_rss_mb()  # the app's engine; the reference model below is the benchmark's own
    reference = transformers_scorer(loaded, profile) if lean else exact
    paths["naive"] = lambda chunk: [reference.score_full(t) for t in chunk]
    paths["naive"](texts[:1])
    scores: dict[str, list] = {name: [] for name in paths}
    spent = dict.fromkeys(paths, 0.0)
    # The paths take turns chunk by chunk, so a slow spell of this shared machine slows all of them alike.
    for start in range(0, len(texts), args.batch_size):
        chunk = texts[start : start + args.batch_size]
        for name, run in paths.items():
            started = time.perf_counter()
            scores[name] += run(chunk)
            spent[name] += time.perf_counter() - started
    names = ("naive", "single", "batched", "lean_naive", "encoder", "batched_encoder")
    naive_ms, single_ms, batched_ms, lean_naive_ms, encoder_ms, with_encoder_ms = (
        spent.get(name, 0.0) * 1000 / len(texts) for name in names
    )
    naive, single, batched, lean_naive, _, with_encoder = (scores.get(n, []) for n in names)

    def agreement(scores) -> str:
        same = sum(a.label == b.label for a, b in zip(scores, naive))
        diff = max(max(abs(x - y) for x, y in zip(a.logprobs, b.logprobs)) for a, b in zip(scores, naive))
        return f"{same}/{len(texts)} (max |dlogp| {diff:.1e})"

    import transformers

    ticket_tokens = statistics.median(scorer.encode(t).ticket_tokens for t in texts)
    fallbacks = sum(scorer.encode(t).split_fallback for t in texts)
    print(f"machine: {cpu_name()}, {os.cpu_count()} logical CPUs, torch threads {torch.get_num_threads()}")
    print(
        f"software: Python {platform.python_version()}, torch {torch.__version__}, "
        f"transformers {transformers.__version__}"
    )
    print(
        f"model: {loaded.name} on {loaded.device}, {args.dtype}, "
        f"{loaded.decoder.backend}; prompt: {len(scorer.labels)} labels, "
        f"prefix {scorer.prefix_length} tokens, median ticket {ticket_tokens:g} tokens, "
        f"{scorer.layout.trie.n_nodes} label-trie tokens; {len(texts)} distinct tickets from {path.name}"
        + (f"; {fallbacks} split fallbacks" if fallbacks else "")
    )
    print()
    print("| path | ms/ticket | tickets/s | speed-up vs naive | same label as naive |")
    print("|---|---:|---:|---:|---|")
    suffix = "" if args.dtype == "float32" else f" ({args.dtype})"
    rows = [("naive full re-encode, transformers modules (float32)", naive_ms, "-")]
    if lean:
        rows.append(("naive full re-encode, lean decoder (float32)", lean_naive_ms, agreement(lean_naive)))
    rows += [
        (f"cached prefix, one ticket at a time{suffix}", single_ms, agreement(single)),
        (f"cached prefix, batches of {args.batch_size}{suffix}", batched_ms, agreement(batched)),
    ]
    if encoder is not None:
        rows.append(
            (f"cached prefix, batches of {args.batch_size}, with the encoder", with_encoder_ms, agreement(with_encoder))
        )
    if encoder is not None:
        fast_ms = first_pass_ms(texts, profile, encoder)
        rows.append(("first pass (`classify --fast`: encoder + classifier, no language model)", fast_ms, "–"))
        for name in other_encoders(args.encoder):  # the first pass's cost with each bundled encoder (issue 35)
            other = load_encoder(name, "cpu")
            rows.append((f"first pass with {name} ({other.name})", first_pass_ms(texts, profile, other), "–"))
    for name, ms, agree in rows:
        print(f"| {name} | {ms:.1f} | {1000 / ms:.2f} | {naive_ms / ms:.2f}x | {agree} |")
    print()
    print(f"single-ticket latency / naive: {single_ms / naive_ms:.3f}")
    if lean:
        print(
            f"against the naive loop on the lean decoder: batched {lean_naive_ms / batched_ms:.2f}x, "
            f"single {single_ms / lean_naive_ms:.3f}"
        )
    if encoder is not None:
        print(
            f"sentence encoder {encoder.name}: {encoder_ms:.1f} ms/ticket in batches of {args.batch_size} (loaded in "
            f"{encoder.load_seconds:.2f} s); batched throughput with it {1000 / with_encoder_ms:.2f} tickets/s "
            f"against {1000 / batched_ms:.2f} without ({100 * (batched_ms / with_encoder_ms - 1):+.0f}%), "
            f"{naive_ms / with_encoder_ms:.2f}x the naive loop"
        )
    print(f"prefix cache build: {prefix_build:.3f} s (forward pass); {prefix_read:.3f} s read back from the store")
    load_line = (
        f"model load (converted): {load_time:.2f} s; load + prefix + first label, imports excluded: "
        f"{cold_start:.2f} s; new process to first label (classify of one ticket): "
    )
    if args.quick:
        print(load_line + "not measured (--quick)")
    else:
        first = process_start(args, "none")
        with_it = process_start(args, args.encoder) if encoder is not None else first
        print(load_line + f"{first:.2f} s without the encoder, {with_it:.2f} s with it ({with_it - first:+.2f} s)")
    print(f"longest micro-batch (worker thread; the window's event loop is not blocked by it): {worst_batch_ms:.0f} ms")
    if fields_of.several:
        print_fields(texts, fields_of, loaded, encoder, args.batch_size)
    both = "" if args.dtype == "float32" else f" (float32 and {args.dtype} models both loaded)"
    print(f"peak RSS: {peak_rss:.0f} MB{both}")
    print()
    vectors = np_stack(embeddings[: len(texts)]) if embeddings else None
    for loaded_rows in (1_000,) if args.quick else (1_000, 100_000):
        fit_s, apply_s, oof_s, memory = refit_timing(batched, vectors, texts, profile, exact, encoder, loaded_rows)
        heads = f"{count_heads(vectors is not None)} heads" + ("" if vectors is not None else ", no encoder")
        print(
            f"teaching: refit after a correction with {loaded_rows:,} loaded tickets: {1000 * fit_s:.0f} ms fit "
            f"({heads}, every row predicted) + {1000 * apply_s:.0f} ms relabelling every row, then "
            f"{1000 * oof_s:.0f} ms for the out-of-fold labels, weights and a re-prediction (off the critical "
            f"path); features, embeddings and n-grams kept: {memory / 2**20:.0f} MB"
        )
    return 0


def other_encoders(chosen: str) -> list[str]:
    """The bundled encoders other than ``chosen`` (by name; "bundled" is MiniLM)."""
    from ..engine.model import ENCODERS, canonical_encoder

    return [name for name in ENCODERS if name != canonical_encoder(chosen)]


def first_pass_ms(texts: list[str], profile, encoder) -> float:
    """ms a ticket of the first pass alone, as ``classify --fast`` runs it: every ticket embedded in aligned
    blocks, the classifier fitted on the prompt's examples and every row labelled."""
    from ..engine.learning import Teacher, embed_table
    from ..engine.table import NewRow, TicketTable

    started = time.perf_counter()
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    table.start_version(0, profile.label_names, [])
    embed_table(encoder, table)
    Teacher(None, profile, encoder).fit_table(table, [])
    return 1000 * (time.perf_counter() - started) / len(texts)


def print_fields(texts: list[str], profile, loaded, encoder, batch_size: int) -> None:
    """Each field's cost, as ``classify`` runs a prompt of several fields: the first pass (the encoder once
    for every field, then each field's heads) per field and in total against one field alone, and the
    language model's scoring per field (each field its own cached prefix) and in total."""
    import copy

    from ..engine.learning import Teacher, embed_table
    from ..engine.scoring import Scorer
    from ..engine.table import NewRow, TicketTable
    from ._fields import SharedEncoder

    n, fields = len(texts), profile.fields
    print(f"\n{len(fields)} fields ({', '.join(f.name for f in fields)}), {n} tickets, ms a ticket:\n")
    print("| field | first pass: its heads | language model (cached prefix, batched) |")
    print("|---|---:|---:|")
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    embedding = 0.0
    if encoder is not None:
        shared = SharedEncoder(encoder)
        started = time.perf_counter()
        embed_table(shared, table)
        embedding = 1000 * (time.perf_counter() - started) / n
    heads_ms, model_ms = [], []
    for i, f in enumerate(fields):
        single = profile.field_profile(i)
        heads = 0.0
        if encoder is not None:
            mine = copy.deepcopy(table)
            mine.start_version(0, single.label_names, [])
            started = time.perf_counter()
            Teacher(None, single, shared).fit_table(mine, [])
            heads = 1000 * (time.perf_counter() - started) / n
        scorer = Scorer(loaded, single)
        scorer.score_batch(texts[:batch_size])  # warm
        started = time.perf_counter()
        for start in range(0, n, batch_size):
            scorer.score_batch(texts[start : start + batch_size])
        model = 1000 * (time.perf_counter() - started) / n
        heads_ms.append(heads)
        model_ms.append(model)
        print(f"| {f.name} ({len(f.labels)} labels) | {heads:.2f} | {model:.1f} |")
    print(f"| all {len(fields)} | {sum(heads_ms):.2f} | {sum(model_ms):.1f} |")
    if encoder is not None:
        one, every = embedding + heads_ms[0], embedding + sum(heads_ms)
        print(
            f"\nfirst pass: the encoder {embedding:.2f} ms a ticket once for every field; {len(fields)} fields "
            f"{every:.2f} ms a ticket against {one:.2f} for the first field alone ({every / one:.2f}x; "
            f"each field alone would embed again: {len(fields) * embedding + sum(heads_ms):.2f})"
        )
    ratio = sum(model_ms) / model_ms[0]
    print(f"language model: {sum(model_ms):.1f} ms a ticket for {len(fields)} fields ({ratio:.2f}x the first)")


def count_heads(encoder: bool) -> int:
    """The taught classifier's heads (its table), without those over the sentence encoder's features."""
    from ..engine.learning import heads

    return sum(1 for h in heads() if encoder or not getattr(h.source, "encoder", False))


def np_stack(arrays: list):
    import numpy as np

    return np.stack(arrays).astype(np.float32)


def refit_timing(
    scores: list, vectors, texts: list[str], profile, scorer, encoder, rows: int
) -> tuple[float, float, float, int]:
    """Refit + relabel time after one correction, with ``rows`` tickets loaded (real features and
    embeddings of the bench's tickets, repeated with small noise so no two rows are equal) and 10 taught
    tickets per label."""
    import numpy as np

    from ..engine.learning import (
        Examples,
        LexicalStore,
        features_of,
        fit_all,
        out_of_fold,
        prompt_examples,
        pseudo_set,
        reweigh,
        row_source,
    )
    from ..engine.table import NewRow, TicketTable

    rng = np.random.default_rng(0)
    base = np.stack([s.features for s in scores]).astype(np.float32)
    table = TicketTable()
    table.add([NewRow({"text": f"{texts[i % len(texts)]} #{i}"}, f"{texts[i % len(texts)]} #{i}") for i in range(rows)])
    table.start_version(0, scorer.labels, scorer.bias.tolist())
    picks = np.arange(rows) % len(base)
    noisy = base[picks] + rng.normal(0, 0.05, (rows, base.shape[1])).astype(np.float32)
    every = list(range(rows))
    table.apply(every, [scores[i] for i in picks], 0)
    table.features.put(np.arange(rows), noisy)
    if vectors is not None:
        moved = vectors[picks % len(vectors)] + rng.normal(0, 0.01, (rows, vectors.shape[1])).astype(np.float32)
        table.apply_embeddings(every, moved / np.linalg.norm(moved, axis=1, keepdims=True))
    store = LexicalStore()
    store.add(table.texts)  # done as tickets load, on the learning thread: not part of a refit
    k = len(scorer.labels)
    pseudo = pseudo_set(profile, features_of(scorer, encoder, [t for t, _ in prompt_examples(profile)], k))
    taught_rows = rng.choice(rows, 10 * k, replace=False)
    source = row_source(table)
    embedded = source.values("embeddings")[taught_rows] if vectors is not None else np.zeros((10 * k, 0), np.float32)
    taught = Examples(
        {"hidden": noisy[taught_rows], "embeddings": embedded, "prompt": source.values("prompt")[taught_rows]},
        [table.texts[r] for r in taught_rows],
        np.arange(10 * k) % k,
        taught_rows.tolist(),
    )
    scaler = fit_all(taught, pseudo, source, store, k).head.scaler  # the first fit's spread
    started = time.perf_counter()
    fit = fit_all(taught, pseudo, source, store, k, scaler=scaler)  # a correction's refit
    fitted = time.perf_counter()
    table.set_head(fit.probs, np.arange(rows))
    applied = time.perf_counter()
    chosen = out_of_fold(taught, pseudo, scaler, store, k)
    chosen.weights = {**chosen.weights, "prompt": chosen.weights.get("prompt", 0) + 0.01}  # time a re-prediction
    reweigh(source, fit, chosen)
    estimated = time.perf_counter()
    memory = table.features.nbytes + table.embeddings.nbytes + store.nbytes
    return fitted - started, applied - fitted, estimated - applied, memory


def transformers_scorer(loaded, profile):
    """The issue's naive baseline: the same weights through transformers' own modules (SDPA attention)."""
    import copy

    import torch
    from transformers import AutoModelForCausalLM

    from ..engine.model import TransformersDecoder
    from ..engine.scoring import Scorer

    model = AutoModelForCausalLM.from_pretrained(loaded.source, dtype=torch.float32).to(loaded.device).eval()
    reference = copy.copy(loaded)
    reference.decoder = TransformersDecoder(model)
    return Scorer(reference, profile)
