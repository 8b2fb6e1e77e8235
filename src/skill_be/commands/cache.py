"""`skill-be cache prune --older-than 30d` and `skill-be cache clear`: the response cache's upkeep."""

from __future__ import annotations

import re
from pathlib import Path

from skill_be.errors import ConfigError, UsageError
from skill_be.paths import shown
from skill_be.results.response_cache import cache_folder, clear, prune

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_AGE = re.compile(r"^(\d+)([smhdw])$")


def parse_age(text: str) -> float:
    """`30d`, `12h`, `90m`, `2w`, `45s` in seconds."""
    m = _AGE.match(text.strip())
    if m is None:
        raise UsageError(
            f'--older-than: "{text}" is not an age; write a whole number and a unit, such as 30d, 12h or 90m', "cache"
        )
    return int(m.group(1)) * UNITS[m.group(2)]


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB"


def _root(config_path: Path) -> Path:
    # Only the config's folder matters here: a config with mistakes can still have its cache cleared.
    if not config_path.is_file():
        raise ConfigError(
            f"{shown(config_path)}: config file not found; the cache lives beside it, so pass --config <path>"
        )
    return config_path.absolute().parent


def main(config_path: Path, action: str, older_than: str | None = None) -> int:
    folder = cache_folder(_root(config_path))
    if action == "prune":
        if older_than is None:
            raise UsageError("prune needs --older-than <age>, such as --older-than 30d", "cache")
        removed, freed = prune(folder, parse_age(older_than))
        print(f"Removed {removed} cache entries unused for {older_than} from {shown(folder)} ({_size(freed)}).")
        return 0
    if older_than is not None:
        raise UsageError("--older-than goes with prune; clear removes every entry", "cache")
    removed, freed = clear(folder)
    print(f"Removed {removed} cache entries from {shown(folder)} ({_size(freed)}).")
    return 0
