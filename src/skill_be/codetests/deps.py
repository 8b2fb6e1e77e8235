"""Installing a package list into `.skill-be/deps/<hash>/`, once per distinct list and language, and
removing it after: the npm section with npm (for TypeScript tests), the pip section with pip (for
Python tests, `codetests/pipdeps.py`)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from skill_be.codetests.installer import NPM, Installer
from skill_be.codetests.packages import PackageList
from skill_be.codetests.pipdeps import PIP, key
from skill_be.errors import ConfigError
from skill_be.paths import shown

MARKER = ".skill-be-complete"  # written last: a folder without it is a half install, redone from scratch


@dataclass(frozen=True)
class Deps:
    folder: Path  # .skill-be/deps/<hash>/
    packages: Path | None  # its node_modules (npm) or site-packages (pip), when the list has packages


def deps_root(config_root: Path) -> Path:
    return config_root / ".skill-be" / "deps"


def folder_name(entries: tuple[str, ...]) -> str:
    return hashlib.sha256(json.dumps(list(entries)).encode("utf-8")).hexdigest()[:16]


def folder_of(plist: PackageList | None, config_root: Path, language: str = "typescript") -> Path:
    """The folder a list's section for `language` installs into (the npm one's name is the Node tool's)."""
    if language == "python":
        return deps_root(config_root) / folder_name(key(plist.pip if plist is not None else ()))
    return deps_root(config_root) / folder_name(plist.npm if plist is not None else ())


async def install(
    plist: PackageList | None, config_root: Path, warn: Callable[[str], None], language: str = "typescript"
) -> Deps:
    """The list's folder, installed or reused. A list with no package, or none, installs (and prints) nothing."""
    entries = plist.entries(language) if plist is not None else ()
    folder = folder_of(plist, config_root, language)
    if plist is None or not entries:
        folder.mkdir(parents=True, exist_ok=True)
        return Deps(folder=folder, packages=None)
    installer: Installer = PIP if language == "python" else NPM
    marker = folder / MARKER
    wanted = installer.marker(entries)
    packages = folder / installer.packages
    if marker.is_file() and marker.read_text(encoding="utf-8") == wanted and packages.is_dir():
        warn(f"reused the test packages of {shown(plist.path)} in {shown(folder)}")
        return Deps(folder=folder, packages=packages)
    argv, env = installer.prepare(plist, config_root, folder)
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=folder,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        text = (err or out).decode("utf-8", "replace")
        detail = " ".join(text.split())[-400:] or "no message"
        raise ConfigError(
            f"{shown(plist.path)}: {installer.name} install of its test packages failed in {shown(folder)} "
            f"(exit code {proc.returncode}: {detail}); fix the entries, or {installer.settings}"
        )
    marker.write_text(wanted, encoding="utf-8")
    warn(f"installed the test packages of {shown(plist.path)} in {shown(folder)}")
    return Deps(folder=folder, packages=packages)


def remove_folder(folder: Path, warn: Callable[[str], None]) -> None:
    """Delete a folder; a failure is a warning, never a change of the exit code."""
    if not folder.exists():
        return
    failures: list[str] = []

    def note(_func: object, path: str, exc_info: tuple[type[BaseException], BaseException, object]) -> None:
        if not failures:
            exc = exc_info[1]
            failures.append(getattr(exc, "strerror", None) or str(exc))

    shutil.rmtree(folder, onerror=note)
    if failures or folder.exists():
        warn(f"warning: could not remove {shown(folder)} ({failures[0] if failures else 'it is still there'})")
