"""skill-be as a user runs it: `python -m skill_be` in a folder, the one way tests spawn the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


def skill_be(
    cwd: Path,
    *args: str,
    drop: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """Run the CLI in `cwd`, the environment less `drop` (a name, or a prefix ending in "_"), plus `env`."""
    full = {
        k: v for k, v in os.environ.items() if not any(k == d or (d.endswith("_") and k.startswith(d)) for d in drop)
    }
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )
