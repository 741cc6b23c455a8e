"""Guesses about a ticket file made from its first few hundred kilobytes: encoding, whether it is text
at all, delimiter, header and the column that holds the ticket text, and the
checks that refuse a file before any reading (no regular file, empty, binary) with ``TicketFileError``.

Kept apart from the reader (``_reader.py``) because these rules are tuned against hostile inputs and
change for different reasons than the streaming does; the reader only acts on what they decided.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import os
import re
import stat
import unicodedata
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..files import UnsafeLinkError, check_links, shown
from ._records import rows_of, uses_quoting

SAMPLE_BYTES = 256 * 1024
# A first row longer than the sample is still read whole for sniffing, up to this many characters a line,
# so one long ticket at the top does not make the file look like a header without tickets.
LINE_CAP = 16 * 1024 * 1024
TEXT_COLUMN_NAMES = ("text", "ticket", "message", "body", "description", "content", "query", "question", "subject")
DELIMITERS = ",;\t|"
# NUL bytes a text file may hold and still be read (kept in its text): one pasted into a ticket is no sign
# of a binary, which holds thousands in its first kilobytes (a PNG header alone holds 7).
NUL_LIMIT = 8

csv.field_size_limit(2**31 - 1)


class TicketFileError(ValueError):
    """A ticket file that cannot be read; the message says why in one line."""


class NoTickets(TicketFileError):
    """A table with a header and no rows: nothing to label, but as ``--train`` a taught set of none (K = 0)."""


def file_name(path: Path) -> str:
    """The name a message shows: non-UTF-8 bytes and newlines escaped (``links.shown``)."""
    return shown(path.name or str(path))


def check_regular_file(path: Path) -> None:
    """Refuse anything but a regular file before opening it (opening a FIFO for reading blocks), and a
    link another user planted in a shared folder (``links.check_links``)."""
    try:
        check_links(path)
        mode = os.stat(path).st_mode
    except UnsafeLinkError as exc:
        raise TicketFileError(str(exc)) from None
    except FileNotFoundError:
        raise TicketFileError(f"{file_name(path)}: no such file.") from None
    except OSError as exc:
        raise TicketFileError(f"{file_name(path)} cannot be read: {exc.strerror or exc}.") from None
    if stat.S_ISDIR(mode):
        raise TicketFileError(f"{file_name(path)} is a directory, not a ticket file.")
    if not stat.S_ISREG(mode):
        kind = "a named pipe" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else ""
        raise TicketFileError(f"{file_name(path)} is not a regular file{f' (it is {kind})' if kind else ''}.")


@contextlib.contextmanager
def reading(path: Path, encoding: str, errors: str) -> Iterator[IO[str]]:
    """The file opened for a pass over its text. One that vanished before the pass, or shrank while it
    was read (truncated, or cut by a copy still being written), ends in one sentence: a short read
    would otherwise give fewer rows without a word."""
    try:
        handle = open(path, encoding=encoding, errors=errors, newline="")  # noqa: SIM115 (the with is below)
    except OSError as exc:
        raise TicketFileError(f"{file_name(path)} cannot be read any more: {exc.strerror or exc}.") from None
    with handle:
        size = os.fstat(handle.fileno()).st_size
        yield handle
        now = os.fstat(handle.fileno()).st_size
    if now < size:
        raise TicketFileError(
            f"{file_name(path)} shrank from {size:,} to {now:,} bytes while it was read; open it again once it "
            "is complete."
        )


def read_head(path: Path) -> bytes:
    """The file's first ``SAMPLE_BYTES``, refused in one sentence where it is no file or empty."""
    check_regular_file(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(SAMPLE_BYTES)
    except OSError as exc:
        raise TicketFileError(f"{file_name(path)} cannot be read: {exc.strerror or exc}.") from None
    if not raw.strip():
        raise TicketFileError(f"{file_name(path)} is empty.")
    return raw


def text_encoding(path: Path, raw: bytes) -> tuple[str, str | None, str]:
    """(encoding, a note about it, the decoded sample) of a text file; a binary one is refused."""
    encoding, note = detect_encoding(raw, path.name)
    sample = decode_sample(raw, encoding)
    if looks_binary(sample, decode_errors(raw, encoding, sample), encoding):
        raise TicketFileError(f"{file_name(path)} is not a text file (it looks binary); export the tickets as CSV.")
    return encoding, note, sample


def detect_encoding(raw: bytes, name: str = "file") -> tuple[str, str | None]:
    """Pick the encoding; the note says so when it is a guess the user should know about."""
    if raw.startswith(codecs.BOM_UTF8):
        return "utf-8-sig", None
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # before UTF-16's: FF FE starts both
        return "utf-32", None
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", None
    if len(raw) >= 4 and raw[1::2][:64].count(0) > 24 and raw[0::2][:64].count(0) == 0:
        return "utf-16-le", "read as UTF-16 (no byte-order mark)"
    try:
        # A multi-byte character may be cut at the end of the sample.
        raw.decode("utf-8") if len(raw) < SAMPLE_BYTES else codecs.getincrementaldecoder("utf-8")().decode(raw)
        return "utf-8", None
    except UnicodeDecodeError:
        pass
    if raw.count(b"\x00") > NUL_LIMIT:
        return "utf-8", None  # binary; refused by the caller
    try:
        raw.decode("cp1252")  # Western Excel's default; every byte but five is defined
        return "cp1252", "not UTF-8: read as cp1252"
    except UnicodeDecodeError:
        pass
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(raw, cp_isolation=["cp1252", "latin_1", "cp1250", "iso8859_15", "mac_roman"]).best()
        guess = best.encoding if best is not None else "cp1252"
    except ImportError:
        guess = "cp1252"
    if guess in ("latin_1", "iso8859_1"):
        guess = "cp1252"  # a superset for the printable range; Excel writes cp1252
    return guess, f"not UTF-8: read as {guess.replace('_', '-')}"


def decode_sample(raw: bytes, encoding: str) -> str:
    return codecs.getincrementaldecoder(encoding)(errors="replace").decode(raw)


def decode_errors(raw: bytes, encoding: str, sample: str) -> int:
    """Bytes the decoder had to replace: U+FFFD that the file itself holds as text does not count."""
    kept = codecs.getincrementaldecoder(encoding)(errors="ignore").decode(raw)
    return sample.count("\ufffd") - kept.count("\ufffd")


def looks_binary(sample: str, errors: int, encoding: str) -> bool:
    """Whether the decoded sample is data rather than text.

    NULs, C0 controls and undecodable bytes give most binaries away. What they miss is bytes that decode
    without error: random high bytes read as cp1252/mac-roman come out as a wall of accented letters and
    symbols with no spaces, and random bytes behind a UTF-16 byte-order mark come out as private-use and
    unassigned code points. Real text in those encodings has neither. Valid UTF-8 is never random, so it
    only gets the first checks.
    """
    if not sample:
        return False
    counts = Counter(sample)
    size = len(sample)
    nuls = counts["\x00"]
    if nuls > NUL_LIMIT or (nuls > 1 and nuls > 0.01 * size):
        return True
    controls = sum(n for c, n in counts.items() if c < " " and c not in "\t\n\r\f")
    if controls > max(1, 0.05 * size) or errors > 0.05 * size:
        return True
    name = codecs.lookup(encoding).name
    if name.startswith("utf-8"):
        return False
    odd = errors + sum(n for c, n in counts.items() if _odd_character(c))
    if odd > 0.05 * size and odd >= 16:
        return True
    if size < 256 or name.startswith(("utf-16", "utf-32")):
        return False  # too little to judge; CJK in UTF-16 is rightly all non-ASCII without spaces
    non_ascii = sum(n for c, n in counts.items() if c > "\x7f")
    spaces = sum(counts[c] for c in " \t\r\n")
    return non_ascii > 0.5 * size and spaces < 0.05 * size


def _odd_character(c: str) -> bool:
    """C1 controls, private-use and unassigned code points: what text never holds but noise decodes to.

    Only in the BMP: random UTF-16 units rarely pair into astral characters, while real text has astral
    emoji that an older Unicode database may not know yet.
    """
    return "\x80" <= c <= "\x9f" or ("\x9f" < c <= "\uffff" and unicodedata.category(c) in ("Co", "Cn"))


def text_sample(path: Path, encoding: str, wanted: int = SAMPLE_BYTES) -> tuple[str, bool]:
    """Whole lines from the top of the file, about ``SAMPLE_BYTES`` of them, and whether that was all of it.

    Whole lines rather than a byte prefix, so a first ticket longer than the sample is seen as a row and the
    rows seen are not cut mid-line. At least two lines are read (a header and a first row).
    """
    lines: list[str] = []
    size = 0
    with open(path, encoding=encoding, errors="replace", newline="") as handle:
        while size < wanted or len(lines) < 2:
            line = handle.readline(LINE_CAP)
            if not line:
                return "".join(lines), True
            lines.append(line)
            size += len(line)
        complete = not handle.read(1)
    return "".join(lines), complete


def csv_rows(text: str, delimiter: str, quoted: bool | None = None) -> list[list[str]]:
    """Rows of ``text`` as the reader reads a file opened with ``newline=""``: CR, LF and CRLF all end a
    line, and a stray quote does not merge lines (``records.py``; ``quoted`` None decides from ``text``)."""
    return rows_of(text, delimiter, quoted)


def has_content(row: list[str]) -> bool:
    return any(c.strip() for c in row)


def sniff_delimiter(sample: str, suffix: str, complete: bool = True) -> str:
    """The delimiter that splits the sample into the most consistent number (>1) of columns."""
    if suffix in (".tsv", ".tab"):
        return "\t"
    text = sample[:65536]
    cut = not complete or len(text) < len(sample)
    quoted = uses_quoting(text)
    best, best_score = ",", (0.0, 0)
    for candidate in DELIMITERS:
        try:
            rows = [r for r in csv_rows(text, candidate, quoted) if has_content(r)]
        except csv.Error:
            continue
        if cut and len(rows) > 1:
            rows.pop()  # the last row may be cut short
        widths = [len(r) for r in rows[:200]]
        if not widths:
            continue
        # On a tie (a header and one long row cut short) the first row's width wins: headers are complete.
        modal = max(set(widths), key=lambda w: (widths.count(w), w == widths[0]))
        if modal < 2:
            continue
        score = (widths.count(modal) / len(widths), modal)
        if score > best_score:
            best, best_score = candidate, score
    return best


def has_header(rows: list[list[str]]) -> bool:
    first = [c.strip() for c in rows[0]]
    if any(c.lower() in TEXT_COLUMN_NAMES for c in first):
        return True
    if not all(first) or len(set(first)) != len(first) or any(len(c) > 40 for c in first):
        return False
    if len(rows) < 2:
        return len(first) > 1
    body = rows[1:50]
    first_len = sum(len(c) for c in first) / len(first)
    body_len = sum(len(c) for r in body for c in r) / max(1, sum(len(r) for r in body))
    return len(first) > 1 or first_len * 1.5 < body_len


def is_tab_table(sample: str, complete: bool) -> bool:
    """A .txt that is clearly a tab-separated table: Excel's "Unicode text" export is one (UTF-16, tabs).

    Every row must have the same number (>1) of tab-separated cells and the first must read as a header;
    a plain one-ticket-per-line file with a stray tab here and there fails that and stays one per line.
    """
    rows = [r for r in csv_rows(sample, "\t") if r]
    if not complete and len(rows) > 2:
        rows.pop()
    if len(rows) < 2 or len(rows[0]) < 2:
        return False
    return all(len(r) == len(rows[0]) for r in rows) and has_header(rows)


# Names a header row holds besides a text column's: with any, a file under no telling name is a table
HEADER_WORDS = ("id", "label", "queue", "priority", "category", "team", "date", "name", "email", "status")


def looks_like_lines(sample: str) -> bool:
    """Text under no telling name (standard input, a file without a suffix) that is one ticket a line, as a .txt
    is: no quote or tab, each ``,``, ``;`` or ``|`` followed by a space as in prose ("stolen, please block it"),
    and a first line naming no column. Read as CSV, three piped tickets each with one comma lost the first as a
    header and were labelled on half their words; one short first line ("Refund please") was a header too."""
    first = next((line for line in sample.splitlines() if line.strip()), None)
    if first is None or '"' in sample or "\t" in sample:
        return False
    if re.search(r"[,;|](?=[^ \n])", sample):  # "a,b": a delimiter
        return False
    names = {c.strip().lower().rstrip("s") for c in re.split(r"[,;|]", first)}
    return not names & {n.rstrip("s") for n in (*TEXT_COLUMN_NAMES, *HEADER_WORDS)}


def looks_jsonl(sample: str) -> bool:
    lines = [line for line in sample.splitlines()[:5] if line.strip()]
    return bool(lines) and all(line.lstrip().startswith("{") for line in lines)


def choose_text_column(columns: list[str], rows: list[list[str]]) -> int:
    """The column most likely to hold the ticket text: a telling name, else the longest prose."""
    for preferred in TEXT_COLUMN_NAMES:
        for i, name in enumerate(columns):
            if name.strip().lower() == preferred:
                return i
    best, best_score = 0, -1.0
    for i in range(len(columns)):
        values = [r[i] for r in rows[:500] if i < len(r) and r[i].strip()]
        if not values:
            continue
        prose = sum(1 for v in values if re.search(r"[^\W\d_]{2,}\s+[^\W\d_]", v)) / len(values)
        mean_len = sum(len(v) for v in values) / len(values)
        score = mean_len * (0.1 + prose)
        if score > best_score:
            best, best_score = i, score
    return best


CHUNK = 1 << 20
MIXED_UTF8 = "triage-cp1252"  # the error handler that reads a stray non-UTF-8 byte as cp1252


def _cp1252_bytes(exc: UnicodeError) -> tuple[str, int]:
    """A byte that is not UTF-8 in an otherwise UTF-8 file: almost always a cp1252 character pasted in."""
    assert isinstance(exc, UnicodeDecodeError)
    return exc.object[exc.start : exc.end].decode("cp1252", errors="replace"), exc.end


codecs.register_error(MIXED_UTF8, _cp1252_bytes)


def scan_whole_file(path: Path, encoding: str) -> tuple[int | None, int | None, int]:
    """(line of the first NUL byte where the file holds more than ``NUL_LIMIT``, line of the first byte
    that is not UTF-8, how many such bytes).

    The sample decided the encoding; this pass holds the rest of the file to the same rules, so NULs or
    a cp1252 byte past the first 256 KB are refused or noted as in the sample. NULs are not
    looked for in UTF-16 (where they are half of every ASCII character); bytes only in UTF-8.
    """
    check_utf8 = codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")
    check_nul = not codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))
    decoder = codecs.getincrementaldecoder("utf-8")()
    nul_line = bad_line = None
    bad = lines = nuls = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            if check_nul and b"\x00" in chunk:
                nuls += chunk.count(b"\x00")
                if nul_line is None:
                    nul_line = lines + chunk[: chunk.index(b"\x00")].count(b"\n") + 1
            if check_utf8:
                data, start = chunk, 0
                while True:
                    try:
                        decoder.decode(data[start:])
                        break
                    except UnicodeDecodeError as exc:
                        if bad_line is None:
                            bad_line = lines + data[: start + max(0, exc.start)].count(b"\n") + 1
                        bad += exc.end - exc.start
                        decoder.reset()
                        start += max(exc.end, 1)
            lines += chunk.count(b"\n")
    return nul_line if nuls > NUL_LIMIT else None, bad_line, bad
