"""The one check of a user-input error: a ConfigError of one line, returned for the test to match."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from skill_be.errors import ConfigError


def error_of(action: Callable[[], object]) -> str:
    """The message of the ConfigError `action` raises; it must be one line (never a dump)."""
    with pytest.raises(ConfigError) as e:
        action()
    message = str(e.value)
    assert "\n" not in message, message
    return message
