"""mkdocs hook: fills the reference pages' `<!-- generated:NAME -->` markers from the code.

The command-line table comes from cli.COMMANDS (argparse), the key tables from the JSON Schemas that
the pydantic models generate, the fixed report strings from reports/strings.py, and the architecture
page from ARCHITECTURE.md: a page cannot drift from the code it describes.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"<!-- generated:([a-z-]+) -->")


def cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def cli_reference() -> str:
    from skill_be.cli import COMMANDS, EPILOG

    out = []
    for c in COMMANDS:
        p = argparse.ArgumentParser(add_help=False)
        c.add_options(p)
        out += [f"## `skill-be {c.name}`", "", cell(c.summary), "", f"```\n{c.usage}\n```", ""]
        rows = [a for a in p._actions if a.help != argparse.SUPPRESS]
        if rows:
            out += ["| Option | Meaning |", "| --- | --- |"]
            for a in rows:
                name = ", ".join(f"`{s}`" for s in a.option_strings) or f"`{a.metavar or a.dest}`"
                if a.option_strings and a.metavar:
                    name += f" `{a.metavar}`"
                out.append(f"| {name} | {cell((a.help or '').replace('%%', '%'))} |")
            out.append("")
    out += ["## Exit codes", "", EPILOG.replace("\n", " "), ""]
    return "\n".join(out)


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str):
        return dict(schema["$defs"][ref.rsplit("/", 1)[1]])
    for branch in node.get("anyOf", []):
        if "$ref" in branch:
            return _resolve(schema, branch)
    return node


def _kind(schema: dict[str, Any], node: dict[str, Any]) -> str:
    node = {**node, **_resolve(schema, node)} if "$ref" in node else node
    if "enum" in node:
        return " or ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "anyOf" in node:
        return " or ".join(_kind(schema, b) for b in node["anyOf"])
    kind = node.get("type", "object" if "properties" in node else "any")
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"list of {_kind(schema, node['items'])}"
    return str(kind)


def _keys(schema: dict[str, Any], node: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str, str, str]]:
    node = _resolve(schema, node)
    required = set(node.get("required", []))
    for key, sub in node.get("properties", {}).items():
        path = prefix + key
        full = {**sub, **_resolve(schema, sub)} if ("$ref" in sub or "anyOf" in sub) else sub
        default = json.dumps(sub["default"]) if "default" in sub else ("required" if key in required else "")
        desc = sub.get("description") or full.get("description") or ""
        yield path, _kind(schema, sub), default, desc
        if "properties" in full:
            yield from _keys(schema, full, path + ".")
        items = full.get("items")
        if isinstance(items, dict) and "properties" in _resolve(schema, items):
            yield from _keys(schema, items, path + "[].")


def key_table(fmt: str) -> str:
    from skill_be.schema import generate

    schema = generate(fmt)
    out = ["| Key | Type | Default | Meaning |", "| --- | --- | --- | --- |"]
    for path, kind, default, desc in _keys(schema, schema):
        out.append(f"| `{path}` | {cell(kind)} | {cell(default)} | {cell(desc)} |")
    return "\n".join(out)


def schemas() -> str:
    from skill_be.schema import FORMATS, generate

    out = []
    for fmt in FORMATS:
        schema = generate(fmt)
        title = schema.get("title", fmt)
        out += [
            f"## `{fmt}.schema.json`",
            "",
            f"`schemas/{fmt}.schema.json` ({title}); `skill-be schema {fmt}` prints it.",
            "",
            f'??? note "The schema"\n    ```json\n{_indent(json.dumps(schema, indent=2))}\n    ```',
            "",
        ]
    return "\n".join(out)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def strings() -> str:
    from skill_be.reports import strings as s

    out = ["| Name | Text |", "| --- | --- |"]
    for name, value in vars(s).items():
        if name.isupper() and isinstance(value, str):
            out.append(f"| `{name}` | `{cell(value).replace('`', '')}` |")
    return "\n".join(out)


def architecture() -> str:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return text.split("\n", 1)[1]  # the page has its own title


GENERATORS: dict[str, Callable[[], str]] = {
    "cli": cli_reference,
    "config-keys": lambda: key_table("config"),
    "eval-keys": lambda: key_table("eval"),
    "result-keys": lambda: key_table("result"),
    "schemas": schemas,
    "strings": strings,
    "architecture": architecture,
}


def render(markdown: str) -> str:
    """The page with every marker replaced by its generated text (an unknown marker is an error)."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATORS:
            raise ValueError(f"unknown generated block {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(fill, markdown)


# A link to one of the project's own pages on GitHub (docs/ at github.com) leaves the site for a copy
# of the same page, or for a stale one: the site's own relative link is the way (the build fails).
GITHUB_PAGE = re.compile(r"\]\((https://github\.com/ngwes/skill-be/(?:blob|tree)/[^/)]+/docs/[^)]*)\)")


def on_page_markdown(markdown: str, page: Any = None, **_: Any) -> str:
    found = GITHUB_PAGE.search(markdown)
    if found:
        where = getattr(getattr(page, "file", None), "src_path", "a page")
        raise ValueError(
            f"{where}: links to {found.group(1)}, a page of this site on GitHub; link the page itself (a relative .md link)"
        )
    return render(markdown)
