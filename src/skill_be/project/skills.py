"""SKILL.md: front matter and fenced code blocks with their line numbers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.places import Places
from skill_be.project.where import Where, type_name
from skill_be.project.yamlfile import load_yaml

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


class CodeBlock(NamedTuple):
    """A fenced block. `line` is the SKILL.md line of its first code line (1-based)."""

    lang: str
    skip: bool
    code: str
    line: int
    fence_line: int
    end_line: int = 0  # the closing fence's line; one past the last line when the block is never closed


class SkillDoc(NamedTuple):
    text: str  # the whole SKILL.md as read: what {{skill}} becomes
    name: str  # front matter `name`, else the folder name
    description: str | None
    version: str | None
    blocks: tuple[CodeBlock, ...]


def parse_skill_md(text: str, file: str, folder_name: str) -> SkillDoc:
    meta, body_start = _front_matter(text, file)
    places = Places("\n".join(text.split("\n")[1 : max(body_start - 1, 1)]), "yaml", first_line=2)

    def field(key: str) -> str | None:
        value = meta.get(key)
        if value is None:
            return None
        if isinstance(value, int | float) and not isinstance(value, bool) and key == "version":
            return str(value)  # `version: 1.2` reads as a number in YAML; it means the text
        if not isinstance(value, str):
            raise Where(file, f"front matter: {key}", (key,), places).error(
                f'must be a string, not {type_name(value)}; write it as text, such as {key}: "..."'
            )
        return value

    name = field("name") or folder_name
    return SkillDoc(
        text=text,
        name=name,
        description=field("description"),
        version=field("version"),
        blocks=tuple(code_blocks(text, body_start)),
    )


def read_skill_md(path: Path) -> SkillDoc:
    return parse_skill_md(read_text(path, what="SKILL.md"), shown(path), path.parent.name)


def _front_matter(text: str, file: str) -> tuple[dict[str, object], int]:
    """The front matter mapping and the 0-based index of the first body line."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return {}, 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            data = load_yaml("\n".join(lines[1:i]), file, first_line=2, part="front matter")
            if data is None:
                return {}, i + 1
            if not isinstance(data, dict):
                raise ConfigError(
                    f"{file}:2:1: front matter: must be a mapping of keys to values (name, description, ...), "
                    f"not {type_name(data)}"
                )
            return {str(k): val for k, val in data.items()}, i + 1
    raise ConfigError(f'{file}:1: the front matter opened with "---" is never closed; add a "---" line after it')


def code_blocks(text: str, start: int = 0) -> list[CodeBlock]:
    """Every fenced block after line index `start`; an unclosed block runs to the end, as in CommonMark."""
    lines = text.split("\n")
    blocks: list[CodeBlock] = []
    i = start
    while i < len(lines):
        m = _FENCE.match(lines[i].rstrip("\r"))
        if not m or (m["fence"][0] == "`" and "`" in m["info"]):
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        words = m["info"].split()
        lang = words[0].lower() if words else ""
        skip = "skip" in words[1:]
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            line = lines[j].rstrip("\r")
            stripped = line.lstrip(" ")
            if (
                len(line) - len(stripped) <= 3
                and stripped.startswith(fence[0] * len(fence))
                and not stripped.strip(fence[0]).strip()
            ):
                break
            body.append(_dedent(line, indent))
            j += 1
        end_line = j + 1
        if j == len(lines) and lines[-1] == "":
            end_line -= 1  # the file's last newline ends its last line; it adds no line
            if body and body[-1] == "":
                body.pop()
        blocks.append(
            CodeBlock(lang=lang, skip=skip, code="\n".join(body), line=i + 2, fence_line=i + 1, end_line=end_line)
        )
        i = j + 1
    return blocks


def _dedent(line: str, indent: int) -> str:
    k = 0
    while k < indent and k < len(line) and line[k] == " ":
        k += 1
    return line[k:]


def inline_code(text: str) -> list[str]:
    """The contents of inline code spans outside the front matter and fenced blocks (the hint-word check reads them)."""
    lines = text.split("\n")
    start = _body_start(lines)
    fenced: set[int] = set()
    for block in code_blocks(text, start):
        fenced.update(range(block.fence_line - 1, block.end_line))
    out: list[str] = []
    for i in range(start, len(lines)):
        if i not in fenced:
            out.extend(m.group(2) for m in re.finditer(r"(`+)(.+?)\1", lines[i]))
    return out


def _body_start(lines: list[str]) -> int:
    if lines and lines[0].rstrip() == "---":
        for i in range(1, len(lines)):
            if lines[i].rstrip() in ("---", "..."):
                return i + 1
    return 0


def skill_md_warnings(doc: SkillDoc, file: str) -> list[str]:
    """What a SKILL.md lacks that an agent needs: text, and a `description` in its front
    matter (agents choose a skill by it). A missing `name` is no warning: the folder names it."""
    if not doc.text.strip():
        return [f"warning: {file} is empty: the with-skill arm gets the template without a skill; write the skill"]
    if not (doc.description or "").strip():
        return [
            f"warning: {file} has no description in its front matter; agents choose a skill by it, "
            "so add `description: <what it teaches and when to use it>` between its --- lines"
        ]
    return []
