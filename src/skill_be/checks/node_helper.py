"""Driving the Node checks helper: one JSON request on stdin, one JSON answer on stdout."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skill_be.checks.typescript import TypeScript
from skill_be.errors import ConfigError
from skill_be.proc import StartFailed, run_sync, tail

HELPER = Path(__file__).parent / "node" / "checks_helper.cjs"
TIMEOUT = 600  # seconds for every job of one request together


def run_helper(ts: TypeScript, jobs: Mapping[str, object]) -> dict[str, Any]:
    """Run the helper once with any of the jobs `typecheck`, `coverage` and `parse`."""
    request = json.dumps({"typescript": str(ts.main), **jobs})
    try:
        done = run_sync([ts.node, str(HELPER)], stdin=request.encode("utf-8"), timeout=TIMEOUT)
    except StartFailed as e:
        raise ConfigError(f"cannot start {ts.node} for the TypeScript checks ({e.why})") from None
    if done.timed_out:
        raise ConfigError(f"the TypeScript checks did not finish within {TIMEOUT} seconds")
    if done.returncode != 0:
        raise ConfigError(
            f"the TypeScript checks failed (TypeScript {ts.version} at {ts.module_dir}, exit code "
            f"{done.returncode}): {tail(done.stderr, 500)}"
        )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer
