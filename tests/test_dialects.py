"""CSV dialects as real exports write them: line endings, very long rows, Excel's "Unicode text", and a
comparison with Python's csv module over generated dialects."""

import codecs
import csv
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage_gui.engine.tickets import SAMPLE_BYTES, open_tickets


def write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def values(path):
    return [t.values for t in open_tickets(path).read_all()]


def test_old_mac_cr_only_line_endings(tmp_path):
    path = write(tmp_path, "mac.csv", b'text,team\rmy card is lost,billing\r"app\rcrash",technical\r')
    assert values(path) == [["my card is lost", "billing"], ["app\rcrash", "technical"]]


def test_mixed_line_endings(tmp_path):
    data = b'text,team\r\nfirst,a\rsecond,b\n"multi\r\nline, quoted",c\r\nlast,d'
    source = open_tickets(write(tmp_path, "mixed.csv", data))
    assert [t.values for t in source.read_all()] == [
        ["first", "a"],
        ["second", "b"],
        ["multi\r\nline, quoted", "c"],
        ["last", "d"],
    ]
    assert source.columns == ["text", "team"]


LONG = "my card was declined " * 20_000  # ~420 KB, longer than the sniffing sample


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("comma.csv", f"text,team\n{LONG},billing\nshort one,account\n"),
        ("tab.csv", f"text\tteam\n{LONG}\tbilling\nshort one\taccount\n"),
        ("quoted.csv", f'text,team\n"{LONG}\nwith a line break",billing\nshort one,account\n'),
        ("headerless.csv", f"{LONG}\nshort one\n"),
    ],
)
def test_first_row_longer_than_the_sample_is_a_ticket(tmp_path, name, data):
    assert len(LONG.encode()) > SAMPLE_BYTES
    tickets = open_tickets(write(tmp_path, name, data.encode())).read_all()
    assert [t.text[:30] for t in tickets] == [LONG[:30], "short one"]
    assert tickets[0].text.startswith(LONG.strip())
    assert all(t.problem is None for t in tickets)


def test_jsonl_first_line_longer_than_the_sample(tmp_path):
    lines = [json.dumps({"id": 1, "text": LONG}), json.dumps({"id": 2, "text": "short one"})]
    source = open_tickets(write(tmp_path, "long.jsonl", "\n".join(lines).encode()))
    assert source.columns == ["id", "text"]
    assert [t.text[:9] for t in source.read_all()] == [LONG[:9], "short one"]


def test_long_rows_across_the_sample_boundary(tmp_path):
    rows = [[f"{i} {LONG[: 100_000 + i * 50_000]}", "billing"] for i in range(5)]
    buffer = io.StringIO()
    csv.writer(buffer).writerows([["text", "team"], *rows])
    assert values(write(tmp_path, "t.csv", buffer.getvalue().encode())) == rows


def test_excel_unicode_text_export_saved_as_txt_is_a_table(tmp_path):
    # Excel's "Unicode text": UTF-16 with a BOM, tabs, CRLF, quotes around cells with tabs or line breaks.
    data = 'text\tteam\r\nCarte bloquée\taccount\r\n"two\tlines\r\nof text"\tbilling\r\nApp crash 😀\ttechnical\r\n'
    source = open_tickets(write(tmp_path, "export.txt", data.encode("utf-16")))
    assert source.columns == ["text", "team"] and source.delimiter == "\t"
    tickets = source.read_all()
    assert [t.text for t in tickets] == ["Carte bloquée", "two\tlines\r\nof text", "App crash 😀"]
    assert [t.values[1] for t in tickets] == ["account", "billing", "technical"]  # the gold label stays apart
    assert "tab-separated" in source.summary()


@pytest.mark.parametrize(
    "data",
    [
        "my card\twas declined\nthe app crashes when I log in\n",  # a stray tab in one line
        "first ticket\nsecond ticket\n",  # no tabs at all
        "hello\tworld, my card was declined yesterday at the shop\n",  # one line: nothing to be consistent with
        "a\tb\nmy card was declined at the shop\twhy\tplease\n",  # tab counts differ
    ],
)
def test_plain_txt_stays_one_ticket_per_line(tmp_path, data):
    for encoding in ("utf-8", "utf-16"):
        source = open_tickets(write(tmp_path, "plain.txt", data.encode(encoding)))
        assert source.kind == "txt"
        assert [t.text for t in source.read_all()] == [line.strip() for line in data.splitlines()]


# ------------------------------------------------------------- property: same rows as csv.reader

HEADER_NAMES = ["id", "catégorie", "note", "zone"]  # "é" makes a cp1252 file unmistakably not UTF-8
WORDS = [
    "card",
    "déclinée",
    "Zürich",
    "€20",
    "naïve",
    "“quoted”",
    '"',
    'say "hi"',
    ",",
    ";",
    "|",
    "\t",
    "a,b;c|d",
    "\n",
    "\r",
    "\r\n",
    "",
    " ",
    "12",
    "3.5",
    "😀",
    "カード",
]


def cells(encoding: str) -> st.SearchStrategy[str | int | float]:
    """Words with embedded delimiters, quotes and line breaks, numbers (unquoted under QUOTE_NONNUMERIC),
    and any characters where the encoding holds them all. Not controls, private-use or unassigned code
    points: no ticket holds those, and the binary check rightly counts them against a file."""
    words = [w for w in WORDS if w.encode(encoding, errors="ignore").decode(encoding) == w]
    joined = st.lists(st.sampled_from(words), max_size=6).map(" ".join)
    numbers = st.integers(-999, 99_999) | st.floats(allow_nan=False, allow_infinity=False, width=32)
    if encoding == "cp1252":
        return joined | numbers
    anything = st.text(st.characters(exclude_categories=("Cs", "Cc", "Co", "Cn")), max_size=12)
    return joined | numbers | anything


@st.composite
def dialect_files(draw):
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be-bom", "cp1252"]))
    codec = "utf-16" if encoding.startswith("utf-16") else encoding
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    quoting = draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC]))
    endings = draw(
        st.sampled_from(["\n", "\r\n", "\r"]).map(lambda e: [e])
        | st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=2, max_size=4)
    )
    width = draw(st.integers(2, 4))
    header = draw(st.permutations(["text", *HEADER_NAMES]))[:width]
    if "text" not in header:
        header[draw(st.integers(0, width - 1))] = "text"
    rows = draw(st.lists(st.lists(cells(codec), min_size=width, max_size=width), min_size=1, max_size=10))
    empty_after = draw(st.sets(st.integers(0, len(rows))))
    trailing = draw(st.booleans())
    out = []
    for i, row in enumerate([header, *rows]):
        buffer = io.StringIO()
        # Written with CRLF so minimal quoting quotes any cell holding CR or LF, then given its own ending.
        csv.writer(buffer, delimiter=delimiter, quoting=quoting, lineterminator="\r\n").writerow(row)
        out.append(buffer.getvalue()[:-2])
        ending = endings[i % len(endings)]
        if i <= len(rows) - 1 or trailing:
            out.append(ending)
        if i and i - 1 in empty_after and i < len(rows):
            out.append("\n")  # a completely empty line: not a record for csv.reader nor for us
    text = "".join(out)
    data = codecs.BOM_UTF16_BE + text.encode("utf-16-be") if encoding == "utf-16-be-bom" else text.encode(codec)
    return data, codec, delimiter


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dialect_files())
def test_reader_returns_the_rows_csv_reader_returns(tmp_path, case):
    data, codec, delimiter = case
    path = write(tmp_path, "dialect.csv", data)
    decoded = data.decode("utf-16" if codec == "utf-16" else codec)
    expected = [row for row in csv.reader(io.StringIO(decoded, newline=""), delimiter=delimiter) if row][1:]
    assert len({len(row) for row in expected}) == 1  # the generator wrote what it meant to
    source = open_tickets(path)
    assert source.delimiter == delimiter
    assert [t.values for t in source.read_all()] == expected
