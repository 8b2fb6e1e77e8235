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
