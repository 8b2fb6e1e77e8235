"""How paths are shown to the user."""

from __future__ import annotations

import os
from pathlib import Path


def shown(path: Path | str) -> str:
    """The path relative to the current directory when it is inside it, else absolute; `/` separators."""
    p = Path(path)
    try:
        rel = os.path.relpath(p.absolute(), Path.cwd())
    except ValueError:  # another drive on Windows
        return p.as_posix()
    if rel.startswith(".."):
        return p.absolute().as_posix()
    return Path(rel).as_posix()


CONFIG_NAME = "skill-be.yaml"  # the config a command reads when no --config is given


def command_line(command: str, config: Path | str | None = None) -> str:
    """`skill-be <command>` as a hint the user can paste: with `--config <path>` when the config is not
    the working folder's skill-be.yaml (the one a bare command reads)."""
    if config is None or Path(config).absolute() == Path.cwd() / CONFIG_NAME:
        return f"skill-be {command}"
    return f"skill-be {command} --config {shown(config)}"
