"""The fingerprint of a skill: what verify compares against the result file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

try:  # CPython's own SHA-256: hashlib loads OpenSSL first, which costs verify a few ms at every start
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found,unused-ignore]  # Python 3.11
except ImportError:  # pragma: no cover - other Pythons
    try:
        from _sha2 import sha256 as _sha256  # type: ignore[import-not-found,unused-ignore]  # Python 3.12+
    except ImportError:
        from hashlib import sha256 as _sha256

from skill_be.errors import ConfigError
from skill_be.paths import shown

# Never part of a fingerprint: what tools leave in a tests folder, not what the user wrote.
IGNORED_NAMES = frozenset({"node_modules", "__pycache__"})


def normalize(data: bytes) -> bytes:
    """CRLF and lone CR become LF, so a Windows checkout matches a Linux one."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def tree_files(root: Path, label: str) -> Iterator[tuple[str, Path]]:
    """Every file under `root` as (label/relative posix path, path), sorted, skipping dotfiles."""
    if not root.is_dir():
        return
    found: list[tuple[str, Path]] = []
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if any(part.startswith(".") or part in IGNORED_NAMES for part in rel.parts):
            continue
        if p.is_file():
            found.append((f"{label}/{rel.as_posix()}", p))
    yield from sorted(found)


def fingerprint(parts: Iterable[tuple[str, Path]]) -> str:
    """SHA-256 over labelled, LF-normalised files; the order and machine do not change it.

    Each file adds `label NUL length NUL content`, in label order; the length keeps two files from
    hashing the same as one file holding both.
    """
    h: Any = _sha256()
    for label, path in sorted(parts, key=lambda part: part[0]):
        try:
            raw = path.read_bytes()
        except OSError as e:
            raise ConfigError(f"{shown(path)}: cannot be read ({e.strerror or e}); fix its permissions") from None
        data = normalize(raw)
        h.update(label.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        h.update(data)
    digest: str = h.hexdigest()
    return digest
