"""The one reader of a skill folder for an agent: the whole folder (SKILL.md, scripts/, references/,
assets/) as a user installs it, bounded, for agent scenarios' arms, their neighbours and the trigger
calls on agent CLIs; and SKILL.md with another description (`skill-be triggers` trying a new one)."""

from __future__ import annotations

import re
from pathlib import Path

from skill_be.agents.drivers.base import SkillToInstall

SKILL_FILE_LIMIT = 8 << 20  # a skill folder installed for an agent: at most this many bytes


def read_skill(folder: Path, name: str, description: str, new_description: str | None = None) -> SkillToInstall:
    """The regular files of `folder` (no symlink, nothing under .git), up to SKILL_FILE_LIMIT bytes;
    with `new_description`, SKILL.md's front matter says that instead."""
    files: dict[str, bytes] = {}
    total = 0
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink() and ".git" not in p.relative_to(folder).parts:
            total += p.stat().st_size
            if total > SKILL_FILE_LIMIT:
                break
            files[p.relative_to(folder).as_posix()] = p.read_bytes()
    if new_description is not None and "SKILL.md" in files:
        text = with_description(files["SKILL.md"].decode("utf-8"), new_description)
        files["SKILL.md"] = text.encode("utf-8")
        description = new_description
    return SkillToInstall(name=name, description=description, files=files)


def with_description(skill_md: str, description: str) -> str:
    """SKILL.md with its front matter's description replaced (a quoted one-line value)."""
    lines = skill_md.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return skill_md
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return skill_md
    quoted = '"' + description.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
    head = lines[1:end]
    i = next((k for k, line in enumerate(head) if re.match(r"description\s*:", line)), None)
    if i is None:
        head.append(f"description: {quoted}")
    else:
        j = i + 1
        while j < len(head) and (head[j].startswith((" ", "\t")) or not head[j].strip()):
            j += 1  # the continuation lines of a folded or multi-line value
        head[i:j] = [f"description: {quoted}"]
    return "\n".join([lines[0], *head, *lines[end:]])
