"""Fixtures for the adapter integration tests; the helpers live in adapter_harness.py."""

from __future__ import annotations

import sys
from pathlib import Path

# --import-mode=importlib puts no test folder on sys.path; the tests import adapter_harness by name.
sys.path.insert(0, str(Path(__file__).parent))

from adapter_harness import gemini_mock, netns_mock, plain_mock, user

__all__ = ["gemini_mock", "netns_mock", "plain_mock", "user"]
