"""Atomic writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write `text` (UTF-8, LF line endings; bytes as they are) beside `path`, flush it to disk, then
    rename it over `path`. The one atomic write of skill-be (run files, the result file, the cache).

    The temp file is created with mode 0o666 minus the umask, like any new file (mkstemp's 0o600 would
    leave a committed result file unreadable to others); an existing file keeps its mode.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        data = text.encode("utf-8") if isinstance(text, str) else text
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
