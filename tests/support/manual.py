"""The user's manual as tests read it: README.md (the front page) and the site's pages under docs/."""

from __future__ import annotations

from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@cache
def pages() -> tuple[tuple[Path, str], ...]:
    """README.md, then every page of docs/ in path order, with its text."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return tuple((f, f.read_text(encoding="utf-8")) for f in files)


def manual() -> str:
    """Every page's text, joined: for checks that something is documented anywhere."""
    return "\n\n".join(text for _, text in pages())


def section(name: str) -> str:
    """The text between `<!-- section:NAME -->` and `<!-- /section:NAME -->`, on whichever page has it."""
    start, end = f"<!-- section:{name} -->", f"<!-- /section:{name} -->"
    for _, text in pages():
        if start in text and end in text:
            return text[text.index(start) : text.index(end)]
    raise AssertionError(f"no page of the manual has the section {name!r}")
