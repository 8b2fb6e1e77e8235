"""What several benchmarks share (not a benchmark itself: tests/unit/test_bench_scripts.py skips
files that start with "_"): the scripted-command config and the loader of the test servers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# A project whose model and grader are scripts in its folder, with the TypeScript check off.
COMMAND_CONFIG = """\
skills: ./skills
evals: ./evals
model:
  adapter: command
  id: model-a
  run: ./model.sh
grader:
  adapter: command
  id: grader-a
  run: ./grader.sh
checks:
  typecheck: false
"""


def load_support(name: str) -> Any:
    """A scripted server of tests/support (mock_model_server, agent_model_server) as a module."""
    sys.path.insert(0, str(ROOT / "tests" / "support"))  # agent_model_server imports mock_model_server
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "support" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
