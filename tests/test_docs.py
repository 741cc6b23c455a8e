"""Every relative link in README.md and docs/*.md leads somewhere: the file exists, and so does the heading
an ``#anchor`` names (GitHub's rule for heading anchors). The README is a newcomer's first screen; the
rest lives in docs/, so a moved or renamed page would otherwise leave a dead link nobody sees."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
CODE = re.compile(r"`[^`\n]*`")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation other than - and _ dropped, spaces to -."""
    found: set[str] = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", title)))
    return found


def broken_links(page: Path) -> list[str]:
    text = CODE.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: … are not ours to check
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{page.name}: {target} (no such file)")
        elif anchor and (file.suffix != ".md" or anchor not in anchors(file)):
            broken.append(f"{page.name}: {target} (no such heading)")
    return broken


def test_every_relative_link_in_the_readme_and_docs_leads_somewhere():
    assert (ROOT / "docs").is_dir() and len(pages()) > 1
    assert [b for page in pages() for b in broken_links(page)] == []


def test_the_readme_links_every_page_of_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in pages()[1:] if f"](docs/{p.name})" not in readme]
    assert unlinked == []


def test_a_missing_page_or_heading_is_reported(tmp_path):
    (tmp_path / "there.md").write_text("# A title, with punctuation\n\n## Second part\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-title-with-punctuation) [ok](#here) ![img](there.md)\n"
        "[gone](missing.md) [bad](there.md#third-part) `[code](not-a-link.md)` [web](https://example.com)\n"
        "# Here\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "page.md: missing.md (no such file)",
        "page.md: there.md#third-part (no such heading)",
    ]
