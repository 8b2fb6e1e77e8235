"""A scenario's reference answers (`references`): answers whose result on each line is known, so
`check --graders` can grade them before a run and show which criterion or test disagrees. The key's
model is project/models.py `ReferenceModel`; here are its record and the reading of its files (beside
the eval file, inside the project)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.errors import ConfigError
from skill_be.project.places import Places

VERDICTS = ("YES", "NO")  # what a reference's `expect` gives each line (project/models.py ReferenceModel)


class Reference(NamedTuple):
    """A reference answer: its 1-based number in the scenario, its text, and per line (as the report
    names it) whether it must pass; `where` is its place in the eval file."""

    number: int
    text: str
    expect: tuple[tuple[str, bool], ...]
    where: str
    keys: tuple[str, ...] = ()  # each expectation's key as written, for the messages


def line_of(key: str, scored: Sequence[str]) -> str | None:
    """The line a key names: a criterion's 1-based number, a scored line's text (a criterion, an
    assertion, a budget limit) or a code test (`[test] name`, checked once the tests are parsed)."""
    if key.isdigit():
        i = int(key)
        return scored[i - 1] if 1 <= i <= len(scored) else None
    if key in scored or key.startswith("[test] "):
        return key
    return None


def read_references(
    raw: Sequence[Mapping[str, Any]],
    scored: Sequence[str],
    where: str,
    places: Places,
    loc: list[str | int],
    base: Path,
    root: Path,
) -> tuple[Reference, ...]:
    """Each reference's text (a file read from `base`, kept inside `root`) and its expectations; a key
    that names no line, or a file that cannot be read, is one ConfigError line with its place."""
    from skill_be.project.validation import at_place, path_text

    out = []
    for j, r in enumerate(raw):
        here = [*loc, j]
        at = f"{at_place(where, places.find(here))}: {path_text(here)}"
        text = r.get("answer")
        if text is None:
            full = (base / str(r["file"])).resolve()
            if not full.is_relative_to(root.resolve()):
                raise ConfigError(f'{at}.file: "{r["file"]}" is outside the project; keep reference answers inside it')
            try:
                text = full.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise ConfigError(
                    f'{at}.file: cannot read "{r["file"]}" ({e.__class__.__name__}); fix the path'
                ) from None
        expect = []
        for key, verdict in r["expect"].items():
            line = line_of(str(key), scored)
            if line is None:
                raise ConfigError(
                    f'{at}.expect: "{key}" names no line of the scenario; use a criterion\'s text or its number '
                    f'(1-{len(scored)}), a line as the report names it ("[assert] ..."), or "[test] <name>"'
                )
            expect.append((line, verdict == "YES"))
        out.append(Reference(j + 1, str(text), tuple(expect), at, tuple(str(k) for k in r["expect"])))
    return tuple(out)
