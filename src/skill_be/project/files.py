"""Reading the user's files: one clear line for a missing file, a folder or bytes that are not UTF-8."""

from __future__ import annotations

from pathlib import Path

from skill_be.errors import ConfigError
from skill_be.paths import shown


def read_text(path: Path, *, what: str = "file") -> str:
    """The file's text, UTF-8 (a BOM is dropped), or a ConfigError naming the file and the fix."""
    name = shown(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{name}: {what} not found; check the path") from None
    except IsADirectoryError:
        raise ConfigError(f"{name}: is a folder, not a {what}; give the path of the file") from None
    except PermissionError:
        raise ConfigError(f"{name}: cannot be read (permission denied); fix its permissions") from None
    except OSError as e:
        raise ConfigError(f"{name}: cannot be read ({e.strerror or e})") from None
    return decode(data, name)


def decode(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ConfigError(
            f"{name}:{line}: not valid UTF-8 (byte 0x{data[e.start]:02x}); save the file as UTF-8"
        ) from None
    return text.removeprefix("\ufeff")
