"""How long an HTTP server asks a client to wait before trying again, for every HTTP client of
skill-be (the model adapters, the GitHub client). Below everything: it imports nothing of skill-be."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asks to wait: `retry-after-ms`, or `retry-after` in seconds or as an HTTP
    date; None when it names no wait (or one that cannot be read)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
