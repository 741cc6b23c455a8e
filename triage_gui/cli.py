"""Command line: ``classify`` a ticket file headless, ``bench`` the scoring paths, or open the window."""

from __future__ import annotations

import argparse
import sys

from .defaults import BATCH_SIZE


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
        "--encoder",
        default="bundled",
        help="sentence encoder for the learned labels: 'bundled' (all-MiniLM-L6-v2), a Hub id, a folder, or 'none'",
    )
    common.add_argument(
        "--no-calibration",
        action="store_true",
        help="use the prompt's raw label scores (default: calibrated against the prompt's own label bias)",
    )
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
    classify.add_argument(
        "--batch-size", type=int, default=BATCH_SIZE, help=f"tickets per forward pass (default {BATCH_SIZE})"
    )
    classify.add_argument("--train", help="a labelled ticket file to teach the classifier from before labelling")
    classify.add_argument("--train-label", help="the column of --train holding the labels (default: detected)")
    classify.add_argument(
        "--no-learning",
        action="store_true",
        help="label with the prompt alone (default: a classifier learned from the prompt's examples and --train)",
    )
    classify.add_argument("--ray", metavar="ADDRESS", help="run on a Ray cluster: its address, or 'local'")
    classify.add_argument("--ray-actors", type=int, help="scoring actors on the cluster (default: one per 2 CPUs)")

    evaluate = sub.add_parser("eval", parents=[common], help="accuracy of every method against a gold column")
    evaluate.add_argument("file", help="a labelled ticket file")
    evaluate.add_argument("--gold", required=True, help="the column holding the correct labels")
    evaluate.add_argument("--column", help="column holding the ticket text (default: detected)")
    evaluate.add_argument(
        "--train-per-label", default="2,5,10,20,50", help="taught tickets per label to try (default 2,5,10,20,50)"
    )
    evaluate.add_argument("--draws", type=int, default=5, help="random draws of taught tickets per K (default 5)")
    evaluate.add_argument("--seed", type=int, default=0)
    evaluate.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    evaluate.add_argument(
        "--strategy", help="also simulate teaching one ticket at a time: random, suggested, or both (comma-separated)"
    )
    evaluate.add_argument("--steps", default="0,5,10,20,30,40", help="tickets taught at which to measure --strategy")

    bench = sub.add_parser("bench", parents=[common], help="time naive, cached single and cached batched scoring")
    bench.add_argument("--tickets", help="ticket file (default: BANKING77 test set if present, else the sample)")
    bench.add_argument("--n", type=int, default=64, help="distinct tickets to score on every path (default 64)")
    bench.add_argument("--batch-size", type=int, default=BATCH_SIZE)

    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("--model", help="'bundled', a Hub id, a model folder or a .gguf file")
    gui.add_argument("--device", default="auto", help="auto, cpu, cuda or mps")
    gui.add_argument("--encoder", default="bundled", help="sentence encoder: 'bundled', a Hub id, a folder, or 'none'")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.version:
        from .versions import version_text

        print(version_text())
        return 0
    if args.command in (None, "gui"):
        from .gui.app import run_app

        return run_app(
            getattr(args, "model", None), getattr(args, "device", "auto"), getattr(args, "encoder", "bundled")
        )
    try:
        if args.command == "classify":
            from .classify import run

            return run(args)
        if args.command == "eval":
            from .evaluate import run_eval

            return run_eval(args)
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
    from .engine.scorer import ScoringError
    from .engine.tickets import TicketFileError

    return isinstance(exc, TicketFileError | ModelLoadError | LayoutError | ScoringError | ValueError | OSError)
