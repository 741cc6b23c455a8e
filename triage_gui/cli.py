"""Command line: ``classify`` a ticket file headless, ``bench`` the scoring paths, or open the window."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ticket-triage", description="Label support tickets with a small local language model."
    )
    parser.add_argument("--version", action="store_true", help="print versions and exit")
    sub = parser.add_subparsers(dest="command")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--prompt", help="prompt profile (.json); default: the bundled support-triage profile")
    common.add_argument("--model", default="bundled", help="'bundled', a Hub id, a model folder or a .gguf file")
    common.add_argument("--device", default="auto", help="auto, cpu, cuda or mps")
    common.add_argument("--threads", type=int, help="CPU threads (default: physical cores)")
    common.add_argument(
        "--dtype",
        default="float32",
        choices=["float32", "bfloat16"],
        help="float32 (exact, default) or bfloat16 (opt-in, faster on CPUs with bf16 support; bench reports "
        "its agreement with float32)",
    )

    classify = sub.add_parser("classify", parents=[common], help="label every ticket in a file")
    classify.add_argument("file", help="CSV, TSV, TXT (one ticket a line) or JSONL")
    classify.add_argument("--column", help="column holding the ticket text (default: detected)")
    classify.add_argument("--out", help="output CSV (default: standard output)")
    classify.add_argument("--baseline", action="store_true", help="also run the naive full re-encode and compare")
    classify.add_argument("--batch-size", type=int, default=32, help="tickets per forward pass (default 32)")

    bench = sub.add_parser("bench", parents=[common], help="time naive, cached single and cached batched scoring")
    bench.add_argument("--tickets", help="ticket file (default: BANKING77 test set if present, else the sample)")
    bench.add_argument("--n", type=int, default=64, help="distinct tickets to score on every path (default 64)")
    bench.add_argument("--batch-size", type=int, default=32)

    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("--model", help="'bundled', a Hub id, a model folder or a .gguf file")
    gui.add_argument("--device", default="auto", help="auto, cpu, cuda or mps")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.version:
        from .versions import version_text

        print(version_text())
        return 0
    if args.command in (None, "gui"):
        from .gui.app import run_app

        return run_app(getattr(args, "model", None), getattr(args, "device", "auto"))
    try:
        if args.command == "classify":
            return classify(args)
        if args.command == "bench":
            from .bench import run_bench

            return run_bench(args)
    except KeyboardInterrupt:
        print("ticket-triage: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # one line, no traceback, for anything the user can fix
        if not _user_error(exc):
            raise
        print(f"ticket-triage: {exc}", file=sys.stderr)
        return 2
    return 1


def _user_error(exc: Exception) -> bool:
    from .engine.layout import LayoutError
    from .engine.model_loader import ModelLoadError
    from .engine.tickets import TicketFileError

    return isinstance(exc, TicketFileError | ModelLoadError | LayoutError | ValueError | OSError)


def classify(args: argparse.Namespace) -> int:
    from .engine.export import write_csv, write_results
    from .engine.model_loader import load_model
    from .engine.prompt import load_profile
    from .engine.results import AgreementStats
    from .engine.runner import score_stream
    from .engine.scorer import Scorer
    from .engine.tickets import open_tickets

    if args.batch_size < 1:
        raise ValueError("--batch-size must be at least 1")
    source = open_tickets(args.file)
    column = source.text_column
    if args.column is not None:
        if args.column not in source.columns:
            raise ValueError(f"no column {args.column!r}; the file has: {', '.join(source.columns)}")
        column = source.columns.index(args.column)
    tickets = source.read_all(column)
    if not tickets:
        raise ValueError(f"{Path(args.file).name} holds no tickets ({source.summary()})")
    print(f"{len(tickets)} tickets from column {source.columns[column]!r}: {source.summary()}", file=sys.stderr)
    profile = load_profile(args.prompt)

    def progress(fraction: float, message: str) -> None:
        print(message, file=sys.stderr)

    loaded = load_model(args.model, args.device, progress, args.threads, args.dtype)
    scorer = Scorer(loaded, profile)
    results: list = [None] * len(tickets)
    stats = AgreementStats()
    started = time.perf_counter()
    done = fallbacks = truncated = 0
    stream = score_stream(scorer, enumerate(t.text for t in tickets), args.batch_size, args.baseline)
    for batch in stream:
        for item in batch:
            results[item.index] = item
            fallbacks += item.cached.split_fallback
            truncated += item.cached.truncated
            if item.baseline is not None:
                stats.add(item.index, item.cached, item.baseline)
        done += len(batch)
        rate = done / max(1e-9, time.perf_counter() - started)
        print(f"\r{done}/{len(tickets)} tickets, {rate:.1f}/s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows = [(t.values, r.cached, r.baseline) for t, r in zip(tickets, results)]
    if args.out:
        write_results(args.out, source.columns, rows, profile.content_hash(), args.baseline)
    else:
        write_csv(sys.stdout, source.columns, rows, profile.content_hash(), args.baseline)
    notes = []
    if fallbacks:
        notes.append(f"{fallbacks} tickets used the shorter clean prefix (token boundary)")
    if truncated:
        notes.append(f"{truncated} tickets truncated to fit the model's context")
    if args.baseline:
        notes.append(
            f"baseline agreement {stats.agree}/{stats.total}, max log-prob difference {stats.max_logprob_diff:.2e}"
        )
    for note in notes:
        print(note, file=sys.stderr)
    return 0
