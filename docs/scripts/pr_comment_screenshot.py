"""Render a PR comment as GitHub shows it and screenshot it with headless Chromium.

Usage: python docs/scripts/pr_comment_screenshot.py [COMMENT.md] [OUT.png]
(default: the comment shown on docs/pr-comment.md, written by `skill-be verify --base main --comment F`,
to docs/assets/pr-comment.png). Needs python-markdown and `chromium` (apt-get install -y chromium
fonts-noto-color-emoji).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import markdown

DOCS = Path(__file__).resolve().parents[1]
# GitHub's comment look, near enough: its fonts, table borders and zebra rows, a 760 px wide comment.
CSS = """
body { margin: 0; background: #fff; }
.comment { width: 760px; margin: 16px; border: 1px solid #d0d7de; border-radius: 6px;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
  color: #1f2328; }
.head { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px; color: #59636e; }
.body { padding: 8px 16px 16px; }
h3 { font-size: 1.25em; margin: 12px 0 8px; }
table { border-collapse: collapse; margin: 8px 0 16px; display: block; overflow: auto; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; }
th { font-weight: 600; } tr:nth-child(2n) { background: #f6f8fa; }
code { background: #eff1f3; border-radius: 6px; padding: 0.2em 0.4em; font-size: 85%; }
summary { cursor: pointer; } ul { padding-left: 2em; }
"""


def comment_of_page() -> str:
    """The example comment on docs/pr-comment.md (its first ````markdown block)."""
    page = (DOCS / "pr-comment.md").read_text(encoding="utf-8")
    found = re.search(r"````markdown\n(.*?)\n````", page, re.S)
    if not found:
        raise SystemExit("docs/pr-comment.md: no ````markdown block with the comment")
    return found.group(1)


def page_html(comment: str) -> str:
    # GitHub renders Markdown inside an HTML block (<details>); python-markdown needs markdown="1" for that.
    comment = comment.replace("<details open>", '<details open markdown="1">').replace("<details>", '<details markdown="1">')
    body = markdown.markdown(comment, extensions=["tables", "md_in_html"])
    return (
        f'<!doctype html><meta charset="utf-8"><style>{CSS}</style>'
        f'<div class="comment"><div class="head"><b>github-actions</b> bot commented</div>'
        f'<div class="body">{body}</div></div>'
    )


def main(argv: list[str]) -> int:
    comment = Path(argv[0]).read_text(encoding="utf-8") if argv else comment_of_page()
    out = Path(argv[1]) if len(argv) > 1 else DOCS / "assets" / "pr-comment.png"
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "comment.html"
        html.write_text(page_html(comment), encoding="utf-8")
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--window-size=800,860", f"--screenshot={out.resolve()}", html.as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
