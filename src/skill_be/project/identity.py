"""What makes an adapter entry answer as it does, as one digest: the response cache's key for the
model (engine/cache.py). It reads the files the entry names, so it lives here, beside the other
readers of the user's files, and the engine gets the digest as data."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

MODULE_SUFFIXES = (".py", ".js", ".mjs", ".cjs")
_MAX_HASHED_FILE = 8 << 20  # a file named on a command line is hashed only below this size


class EntryLike(Protocol):
    """The parts of a config's adapter entry that decide what the adapter answers."""

    @property
    def adapter(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def settings(self) -> Mapping[str, object]: ...


def digest(doc: object) -> str:
    """SHA-256 of a JSON document in one canonical spelling (sorted keys, no spaces)."""
    text = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _file_digest(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_HASHED_FILE:
            return None
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def adapter_identity(entry: EntryLike, root: Path) -> str:
    """A digest of the adapter and every setting of its entry (id, provider, thinking, baseUrl, api, run,
    ...), the content of an adapter module file, and the content of each file inside the config's folder
    that a `run` command line names (a scripted model: editing the script is a new model)."""
    files: dict[str, str | None] = {}
    if entry.adapter.endswith(MODULE_SUFFIXES):
        files[entry.adapter] = _file_digest(root / entry.adapter)
    run = entry.settings.get("run")
    if isinstance(run, str):
        try:
            words = shlex.split(run, posix=True)
        except ValueError:
            words = []
        base = root.resolve()
        for word in words:
            p = (root / word).resolve() if not os.path.isabs(word) else Path(word)
            if p.is_relative_to(base) and p != base:
                found = _file_digest(p)
                if found is not None:
                    files[word] = found
    return digest({"adapter": entry.adapter, "id": entry.id, "settings": dict(entry.settings), "files": files})
