"""Whether a process is still running, for tests that check no child outlives its parent."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Running: it exists and is not a zombie (a zombie is dead, waiting for its parent to reap it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
