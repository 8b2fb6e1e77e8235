"""The Node side of code tests, shipped as package data: where its files are, and the one error
that both the compiler and the work-folder code raise, so that neither needs to import the other."""

from __future__ import annotations

from pathlib import Path

NODE_DIR = Path(__file__).parent / "node"
RUNNER = NODE_DIR / "runner.mjs"  # keeps the tests and their verdicts
LAUNCH = NODE_DIR / "launch.mjs"  # starts the runner (under the permission model) and the answer's process
COMPILE = NODE_DIR / "compile.mjs"  # the TypeScript transpiler process
TESTING_DIR = NODE_DIR / "testing"  # the wrapper a test file imports as skill-be/testing


class CompileError(Exception):
    """The source does not parse; the message names the line and column."""
