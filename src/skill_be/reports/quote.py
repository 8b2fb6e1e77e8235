"""Untrusted text as quoted data in every report format.

Texts that come from the answer's side (code-test errors and messages, test names, a runner's fatal
event, an adapter's error) and names from files under review (criteria, scenario ids) are shown so
that no line of them can become a heading, a table row, a list item, HTML, a link or a verdict line:

- `one_line`: every line break (and the Unicode ones Markdown or a browser also breaks on) becomes a
  visible ` ⏎ `, control and bidirectional-override characters go, and the text is cut to a length.
- `md_code`: Markdown prose: a code span whose fence is longer than any backtick run inside, so the
  text can neither close it nor be read as Markdown or HTML; in a table cell, `|` is escaped too.
- `md_text`: a name inside a fixed sentence (`*"criterion"*`): one line with Markdown's active
  characters backslash-escaped, so it reads as it was written and cannot start a link, HTML or code.
- `md_fence`: a block of lines (a command's log, check output) as a fenced block whose fence no
  line of it can close.
- `plain`: one line for a plain-text field (a check run's title, an annotation, JUnit's message).

HTML goes through jinja2's autoescape and the `quoted` filter of reports/html.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from skill_be.reports.strings import TEST_PREFIX

LINE_PREFIXES = (TEST_PREFIX, "[assert] ", "[budget] ")  # kinds of a scored line's name

NEWLINE_MARK = " ⏎ "
DEFAULT_LIMIT = 2_000
# \r\n first so it counts as one break; then each character CommonMark, HTML or Python splits lines on.
_BREAKS = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# C0/C1 controls, zero-width and bidirectional controls: they hide or reorder what a reader sees.
_HIDDEN = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
# Markdown's characters that can open or close something inline (code, emphasis, links, HTML,
# entities, strikethrough, table cells) and the escape character itself. Left as written: a run of
# `*` or `_` with whitespace (or the text's ends) on both sides, which can neither open nor close
# emphasis, and the redactor's `***` (a secret's place must read `***` in a report and to a grep; at
# worst it starts emphasis, which changes how text looks, never what is a heading, row or verdict).
_ACTIVE = re.compile(r"(?<!\S)[*_]+(?!\S)|(?<!\*)\*\*\*(?!\*)|([\\`*_\[\]<>|&!~])")
_BACKTICKS = re.compile("`+")


def one_line(text: object, limit: int = DEFAULT_LIMIT, hidden: str = "") -> str:
    """`text` on one visible line: breaks shown as ⏎, hidden characters replaced by `hidden`
    (removed by default; JUnit marks them with U+FFFD, as it marks what XML cannot hold), cut at `limit`."""
    flat = _HIDDEN.sub(hidden, _BREAKS.sub(NEWLINE_MARK, str(text)))
    tabs = flat.replace("\t", " ")
    return tabs if len(tabs) <= limit else tabs[: limit - 1] + "…"


def md_code(text: object, *, table: bool = False, limit: int = DEFAULT_LIMIT) -> str:
    """A code span holding `text` as data (one line; in a table cell, its pipes escaped)."""
    body = one_line(text, limit)
    if table:
        # GitHub splits a table row on unescaped pipes before it reads code spans; `\|` shows as `|`.
        body = body.replace("|", "\\|")
    longest = max((len(m) for m in _BACKTICKS.findall(body)), default=0)
    fence = "`" * (longest + 1)
    # A space on each side keeps a leading or trailing backtick inside the span; CommonMark strips one.
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def md_text(text: object, *, limit: int = DEFAULT_LIMIT) -> str:
    """A name shown as written, inside Markdown prose or a table cell, unable to become markup.

    A line's kind prefix (`[test] `, as the reference writes it, and skill-be's `[assert] ` and
    `[budget] `) is kept (followed by a space, it cannot start a link); the name after it is escaped
    like any other text."""
    flat = one_line(text, limit)
    prefix = next((p for p in LINE_PREFIXES if flat.startswith(p)), "")
    return prefix + _ACTIVE.sub(_escape, flat[len(prefix) :])


def _escape(m: re.Match[str]) -> str:
    return "\\" + m.group(1) if m.group(1) else m.group(0)


def md_fence(lines: Iterable[object], info: str = "text") -> list[str]:
    """A fenced code block of `lines` (each kept on its own line, hidden characters removed): the
    fence is longer than any backtick run in them, so no line can close it and end the block."""
    body = [_HIDDEN.sub("", one) for line in lines for one in _BREAKS.split(str(line))]
    longest = max((len(m) for line in body for m in _BACKTICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, *body, fence]


def plain(text: object, limit: int = DEFAULT_LIMIT) -> str:
    """One line for a plain-text field: a title, an annotation's message, an XML attribute."""
    return one_line(text, limit)


def html_text(text: object) -> str:
    """Text for an HTML element's content or attribute (`<summary>`, where Markdown is not read)."""
    return (
        str(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def secret_forms(secret: str | None) -> list[str]:
    """A secret as each quoting above may write it, for the redactor: a secret with `_` or `|` in it
    is written escaped in a report (`ghs\\_…`), and the plain form alone would no longer match."""
    if not secret:
        return []
    forms = {secret, md_text(secret), html_text(secret), secret.replace("|", "\\|"), one_line(secret)}
    return sorted(forms, key=len, reverse=True)
