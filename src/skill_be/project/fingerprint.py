"""The fingerprint of a skill: what verify compares against the result file."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
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


# --- version 2: what decides a result, part by part ----------------------------------
#
# Version 1 (above; the Node tool's scheme, and skill-be's until 0.1.x) hashes the config file
# whole, so a comment or `concurrency` made every skill stale, and verify could not say what changed.
# Version 2 hashes each input apart: the skill's files as in version 1, and of the config only the
# settings that reach the skill's calls, key by key, each as the value it decides with (a default
# written out equals the default left out). The entry records every part's hash (`inputs`), so
# verify names the file or key that changed. A version-2 fingerprint starts with "v2:"; a bare
# 64-hex one is version 1 and is still compared the version-1 way.

V2 = "v2:"
# The config's keys that decide a skill's result. Left out on purpose: concurrency, cache, pricing,
# results, resultFile (where and how fast, not what), checks (verify runs them itself), triage,
# skills, evals and tests (their files are hashed instead), reps (recorded and checked on its own).
DECIDING = ("model", "grader", "gradings", "timeoutSeconds", "withSkillTemplate", "graderPrompt", "gate", "codeTests")


def part_hash(data: bytes) -> str:
    h: Any = _sha256()
    h.update(data)
    digest: str = h.hexdigest()
    return digest[:16]


def file_inputs(parts: Iterable[tuple[str, Path]]) -> dict[str, str]:
    """Each labelled file's hash, after LF normalisation."""
    out: dict[str, str] = {}
    for label, path in parts:
        try:
            out[label] = part_hash(normalize(path.read_bytes()))
        except OSError as e:
            raise ConfigError(f"{shown(path)}: cannot be read ({e.strerror or e}); fix its permissions") from None
    return out


def setting_inputs(settings: dict[str, object], prefix: str = "config:") -> dict[str, str]:
    """Each deciding setting as `config:<key path>` -> hash of its canonical JSON; nested mappings
    are split into their keys, so verify can say `gate.rule` rather than `gate`."""
    out: dict[str, str] = {}
    for key, value in settings.items():
        if isinstance(value, dict) and key not in ("model", "grader"):  # {} (all defaults): no part
            out.update(setting_inputs(value, f"{prefix}{key}."))
        else:
            text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
            out[f"{prefix}{key}"] = part_hash(text.encode("utf-8"))
    return out


def combine(inputs: Mapping[str, str]) -> str:
    """The version-2 fingerprint: "v2:" and a SHA-256 over the sorted `label NUL hash LF` lines."""
    h: Any = _sha256()
    for label in sorted(inputs):
        h.update(label.encode("utf-8") + b"\0" + inputs[label].encode("ascii") + b"\n")
    digest: str = h.hexdigest()
    return V2 + digest


def changed_inputs(recorded: Mapping[str, str], current: Mapping[str, str]) -> list[str]:
    """The labels whose hash differs, or that one side lacks, in label order."""
    return sorted(k for k in set(recorded) | set(current) if recorded.get(k) != current.get(k))
