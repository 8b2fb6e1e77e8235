"""Can the run write where the config says? Checked before the first model call, so an
unwritable, read-only, full or misplaced folder is one line and exit 2, not a traceback after the
calls were paid for."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from skill_be.errors import ConfigError
from skill_be.paths import shown

_PROBE = b"skill-be write check\n"


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _why(e: OSError) -> str:
    if e.errno == errno.ENOSPC:
        return "the disk is full"
    if e.errno == errno.EROFS:
        return "read-only file system"
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return e.strerror or str(e)


def check_folder(folder: Path, what: str, fix: str) -> None:
    """`folder` is a folder (or can be made one) that takes a new file; else a ConfigError naming
    it, why, and `fix`. Writes and removes one small probe file, makes no folder."""
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        blocker = shown(existing)
        raise ConfigError(f"{what}: {shown(folder)} cannot be a folder: {blocker} is a file; {fix}")
    probe = existing / f".skill-be-probe-{os.getpid()}"
    try:
        with open(probe, "wb") as f:
            f.write(_PROBE)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        raise ConfigError(f"{what}: {shown(folder)} cannot be written ({_why(e)}); {fix}") from None
    finally:
        with contextlib.suppress(OSError):  # never made, or gone already
            probe.unlink()


def check_run_folders(config_name: str, results: Path, result_file: Path, cache: Path | None = None) -> None:
    """The results folder and the result file's folder; the cache folder only when passed (`run`
    passes none: an unwritable cache turns the cache off with one warning and loses nothing,
    results/response_cache.py)."""
    check_folder(results, f"{config_name}: results", "fix the path or its permissions (results: <folder>)")
    if result_file.is_dir():
        raise ConfigError(f"{config_name}: resultFile: {shown(result_file)} is a folder; name a file")
    check_folder(
        result_file.parent, f"{config_name}: resultFile", "fix the path or its permissions (resultFile: <file>)"
    )
    if cache is not None:
        check_folder(cache, "the response cache", "fix its permissions, or run with --no-cache")
