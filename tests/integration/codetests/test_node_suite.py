"""The Node side's own tests (tests/node, node:test): the membrane's wire format and invariants, the
transport's framing, the launcher's permission flags; run here so CI runs them with the rest."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_node_tests_pass() -> None:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed for the code tests"
    files = sorted(str(p) for p in (ROOT / "tests" / "node").glob("*.test.mjs"))
    assert files, "tests/node has no test file"
    done = subprocess.run([node, "--test", *files], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
