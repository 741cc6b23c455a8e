"""The command line: the parser, the table of commands, and ``main``.

One module per command (``classify``, ``evaluate`` for ``eval``, ``bench``, ``discover``; ``gui`` opens the
window), each with its ``run``-style entry point named in :data:`COMMANDS`; their shared steps
(:mod:`._steps`: reading a ticket file or standard input, the first pass, local scoring) and the progress line
on the terminal (:mod:`._console`) are private to this package. The scale-out path is :mod:`triage_gui.ray`.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from ..defaults import BATCH_SIZE
from ..engine.model import ENCODERS
from ._console import end_line

# The bundled sentence encoders by name, as every command's --encoder help says them ("bundled" is MiniLM too).
ENCODER_NAMES = " or ".join(f"'{name}' ({title})" for name, title in ENCODERS.items())

PACKAGE = Path(__file__).resolve().parent.parent  # triage_gui: where our own errors are raised

ECHO_LIMIT = 300  # characters of a refused command line echoed back: enough to see what was typed
# owner/name is always a Hub id: a same-named folder under the current folder is written as a path.
MODEL_HELP = (
    "'bundled', a Hub id (owner/name, always fetched from the Hub), a model folder (one named like a Hub id "
    "is written as a path: ./owner/name) or a .gguf file"
)
DEVICE = re.compile(r"auto|cpu|mps|cuda(:\d+)?")


class Parser(argparse.ArgumentParser):
    """argparse with its refusals in one line (no usage block): bad values get one sentence, exit 2."""

    def error(self, message: str) -> NoReturn:
        line = message.splitlines()[0] if message else "bad arguments"
        if len(line) > ECHO_LIMIT:  # 5,000 stray arguments were echoed as one 174 KB line
            line = f"{line[:ECHO_LIMIT].rstrip()}… ({len(line) - ECHO_LIMIT:,} more characters not shown)"
        self.exit(2, f"ticket-triage: {line}\n")


def between(high: int) -> Callable[[str], int]:
    """A whole number from 1 to ``high``: 0 or -4 threads, tickets per batch or draws is no request to
    run, and 2**70 threads would end in an overflow deep inside torch."""

    def check(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
        if number < 1:
            raise argparse.ArgumentTypeError(f"must be at least 1, not {number}")
        if number > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, not {number:,}")
        return number

    return check


def seed(value: str) -> int:
    """A seed from 0 to 2**31 - 1: numpy refuses a negative one, and seed + draw must stay a 32-bit seed."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if not 0 <= number <= 2**31 - 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to {2**31 - 1:,}, not {number}")
    return number


def given(value: str) -> str:
    """A name that is there: an empty one (``--out ''``, a shell variable never set) is no choice."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty; give a value or leave the option out")
    return value


def there(value: str) -> str:
    """A file to open in the window that exists: said here, in one line, rather than in a dialog."""
    if not Path(given(value)).exists():
        raise argparse.ArgumentTypeError(f"{value!r} does not exist")
    return value


def device(value: str) -> str:
    if not DEVICE.fullmatch(value):
        raise argparse.ArgumentTypeError(f"{value!r} is no device; use auto, cpu, cuda, cuda:N or mps")
    return value


def counts(value: str) -> str:
    """A comma-separated list of taught tickets per label, each at least 1."""
    parts = [p.strip() for p in value.split(",")]
    if not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise argparse.ArgumentTypeError(f"{value!r} is not a list of whole numbers of at least 1, such as 2,5,10")
    return ",".join(parts)


def build_parser() -> argparse.ArgumentParser:
    from ..engine.tickets import FORMAT_NAMES  # the one table of formats (no model or torch imported)

    parser = Parser(prog="ticket-triage", description="Label support tickets with a small local language model.")
    parser.add_argument("--version", action="store_true", help="print versions and exit")
    sub = parser.add_subparsers(dest="command")

    common = Parser(add_help=False)
    common.add_argument(
        "--prompt", type=given, help="prompt profile (.json); default: the bundled support-triage profile"
    )
    common.add_argument("--model", type=given, default="bundled", help=MODEL_HELP)
    common.add_argument("--device", default="auto", type=device, help="auto, cpu, cuda, cuda:N or mps")
    common.add_argument("--threads", type=between(1024), help="CPU threads (default: physical cores)")
    common.add_argument(
        "--encoder",
        default="bundled",
        type=given,
        help=f"sentence encoder for the learned labels: {ENCODER_NAMES}, a Hub id, a folder, or 'none'",
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
    classify.add_argument("file", type=given, help=f"{FORMAT_NAMES}; - reads standard input")
    classify.add_argument(
        "--column", type=given, help="column holding the ticket text (default: detected); subject,body reads both"
    )
    classify.add_argument(
        "--sheet", type=given, help="the sheet of an .xlsx file to read (default: the first visible one with data)"
    )
    classify.add_argument(
        "--out",
        type=given,
        help="output file: Excel where the name ends in .xlsx (any case), CSV under any other name (.xls, .xlsm "
        "and .xlsb refused: we write neither); default: standard output",
    )
    classify.add_argument("--baseline", action="store_true", help="also run the naive full re-encode and compare")
    classify.add_argument(
        "--batch-size", type=between(4096), default=BATCH_SIZE, help=f"tickets per forward pass (default {BATCH_SIZE})"
    )
    classify.add_argument(
        "--train", type=given, help="a labelled ticket file to teach the classifier from before labelling"
    )
    classify.add_argument(
        "--train-label",
        type=given,
        help="the column of --train holding the labels (default: detected; several "
        "fields: the columns named after them)",
    )
    classify.add_argument(
        "--no-learning",
        action="store_true",
        help="label with the prompt alone (default: a classifier learned from the prompt's examples and --train)",
    )
    classify.add_argument(
        "--fast",
        action="store_true",
        help="the first pass alone: the classifier's labels from the sentence encoder, words and characters, "
        "with no language-model forward (for backlogs: ~10x the tickets/s; the window's first-pass labels)",
    )
    classify.add_argument(
        "--no-taught",
        action="store_true",
        help="leave out the taught tickets saved in the --prompt file (default: learn from them, as the window does)",
    )
    classify.add_argument("--ray", type=given, metavar="ADDRESS", help="run on a Ray cluster: its address, or 'local'")
    classify.add_argument(
        "--ray-actors",
        type=between(100_000),
        help="scoring actors on the cluster, with --ray (default: one per 2 CPUs)",
    )

    evaluate = sub.add_parser("eval", parents=[common], help="accuracy of every method against a gold column")
    evaluate.add_argument("file", type=given, help="a labelled ticket file; - reads standard input")
    evaluate.add_argument(
        "--gold", type=given, required=True, help="the column of correct labels (several fields: field=column,…)"
    )
    evaluate.add_argument("--column", type=given, help="column holding the ticket text (default: detected)")
    evaluate.add_argument(
        "--sheet", type=given, help="the sheet of an .xlsx file to read (default: the first visible one with data)"
    )
    evaluate.add_argument(
        "--train-per-label",
        type=counts,
        default="2,5,10,20,50",
        help="taught tickets per label to try (default 2,5,10,20,50)",
    )
    evaluate.add_argument(
        "--draws", type=between(1000), default=5, help="random draws of taught tickets per K (default 5)"
    )
    evaluate.add_argument("--seed", type=seed, default=0, help="random seed, 0 to 2**31 - 1 (default 0)")
    evaluate.add_argument("--batch-size", type=between(4096), default=BATCH_SIZE)
    evaluate.add_argument(
        "--strategy",
        type=given,
        help="also simulate teaching one ticket at a time: random, suggested, or both (comma-separated)",
    )
    evaluate.add_argument("--steps", default="0,5,10,20,30,40", help="tickets taught at which to measure --strategy")

    bench = sub.add_parser("bench", parents=[common], help="time naive, cached single and cached batched scoring")
    bench.add_argument(
        "--tickets", type=given, help="ticket file (default: BANKING77 test set if present, else the sample)"
    )
    bench.add_argument(
        "--n", type=between(1_000_000), default=64, help="distinct tickets to score on every path (default 64)"
    )
    bench.add_argument("--batch-size", type=between(4096), default=BATCH_SIZE)
    bench.add_argument(
        "--quick",
        action="store_true",
        help="skip the 100,000-row refit and the two new-process starts (what the tests use)",
    )

    discover = sub.add_parser("discover", help="suggest labels: group the tickets by meaning, name each group")
    discover.add_argument("file", type=given, help="a ticket file; - reads standard input")
    discover.add_argument("--column", type=given, help="column holding the ticket text (default: detected)")
    discover.add_argument("--sheet", type=given, help="the sheet of an .xlsx file to read (default: the first)")
    discover.add_argument("--out", type=given, required=True, help="CSV: every input row with a group column")
    discover.add_argument("--prompt-out", type=given, help="also write a prompt file with a label per group")
    discover.add_argument("--groups", type=between(1000), help="how many groups (default: chosen from the tickets)")
    discover.add_argument("--seed", type=seed, default=0, help="random seed, 0 to 2**31 - 1 (default 0)")
    discover.add_argument(
        "--encoder", default="bundled", type=given, help=f"sentence encoder: {ENCODER_NAMES}, a Hub id or a folder"
    )

    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument(
        "files",
        nargs="*",
        type=there,
        help="files to open: a prompt profile (.json) and ticket files; 'ticket-triage FILE …' does the same",
    )
    gui.add_argument("--model", type=given, help=MODEL_HELP)
    gui.add_argument("--device", default="auto", type=device, help="auto, cpu, cuda, cuda:N or mps")
    gui.add_argument(
        "--encoder",
        type=given,
        help=f"sentence encoder: {ENCODER_NAMES}, a Hub id, a folder, or 'none' (default: the one last chosen "
        "in the window, else minilm)",
    )
    return parser


# Options that mean nothing without another one: refused rather than ignored silently.
NEEDS = {"ray_actors": ("ray", "--ray-actors", "--ray"), "train_label": ("train", "--train-label", "--train")}
# Options that contradict each other: (option, the other, why), refused rather than one of them ignored.
CONFLICTS = [("train", "no_learning", "--train teaches the learned classifier, which --no-learning turns off")]


GUI_OPTIONS = ("--model", "--device", "--encoder")  # the window's options: they open it without "gui" before them


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The parsed command line, every value range-checked; a bad one exits 2 with one line."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0][:1] != "-" and argv[0] not in (*COMMANDS, "gui") and Path(argv[0]).exists():
        argv = ["gui", *argv]  # the desktop's Open with runs "ticket-triage FILE …" (Exec=ticket-triage %F)
    elif argv and argv[0].split("=")[0] in GUI_OPTIONS:  # "--encoder e5-small FILE …": the window's, as files are
        argv = ["gui", *argv]
    args = parser.parse_args(argv)
    for option, (needed, name, other) in NEEDS.items():
        if getattr(args, option, None) is not None and not getattr(args, needed, None):
            parser.error(f"{name} needs {other}")
    for option, other, why in CONFLICTS:
        if getattr(args, option, None) and getattr(args, other, None):
            parser.error(f"{why}; give one of them")
    return args


# The headless commands: name -> (its module here, its entry point), imported when the command runs (torch,
# transformers and scikit-learn load with them, not with ``--help``).
COMMANDS: dict[str, tuple[str, str]] = {
    "classify": ("classify", "run"),
    "eval": ("evaluate", "run_eval"),
    "bench": ("bench", "run_bench"),
    "discover": ("discover", "run_discover"),
}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.version:
        from ..versions import version_text

        print(version_text())
        return 0
    if args.command in (None, "gui"):
        from ..gui.app import run_app

        return run_app(
            getattr(args, "model", None),
            getattr(args, "device", "auto"),
            getattr(args, "encoder", None),
            getattr(args, "files", []),
        )
    try:
        module, entry = COMMANDS[args.command]
        run: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(f"{__name__}.{module}"), entry)
        return run(args)
    except KeyboardInterrupt:
        end_line()
        print("ticket-triage: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # one line, no traceback, for anything the user can fix
        if not _user_error(exc):
            raise
        end_line()
        print(f"ticket-triage: {exc}", file=sys.stderr)
        return 2


def _user_error(exc: Exception) -> bool:
    """Whether to say ``exc`` in one line (exit 2) rather than let its traceback show (a bug to report).

    Our own error classes always are the user's to fix. A ValueError or OSError is only when it was raised
    in this package (our checks say what to fix, and OSError from ``open`` and friends is raised by C code
    called from our frames), not inside a library: a ValueError from numpy or scikit-learn deep in a fit
    is a programming error, and one line without a traceback hid where it came from."""
    from ..engine.model import ModelLoadError
    from ..engine.prompt import LayoutError
    from ..engine.scoring import ScoringError
    from ..engine.tickets import TicketFileError

    if isinstance(exc, TicketFileError | ModelLoadError | LayoutError | ScoringError):
        return True
    if not isinstance(exc, ValueError | OSError):
        return False
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    if frame is None:
        return True
    where = Path(frame.tb_frame.f_code.co_filename).resolve()
    return PACKAGE in where.parents
