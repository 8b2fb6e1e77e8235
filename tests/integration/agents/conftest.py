"""Fixtures for the agent-driver tests; the helpers live in agent_harness.py."""

from __future__ import annotations

import sys
from pathlib import Path

# --import-mode=importlib puts no test folder on sys.path; the tests import agent_harness by name.
sys.path.insert(0, str(Path(__file__).parent))

from agent_harness import agent_server

__all__ = ["agent_server"]
