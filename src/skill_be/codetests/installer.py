"""How a package manager installs one section of a package list: npm here, pip in pipdeps.py.
deps.py drives either (the folder, the marker, the reuse, the messages)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from skill_be.codetests.packages import PackageList
from skill_be.errors import ConfigError
from skill_be.paths import shown


class Installer:
    """How one package manager installs a section: npm here, pip in pipdeps.py."""

    name = "npm"
    packages = "node_modules"  # the folder below the deps folder that holds what was installed
    settings = "npm's registry and network settings"

    def marker(self, entries: tuple[str, ...]) -> str:
        """What the marker holds: a folder is reused while it is the same."""
        return json.dumps(list(entries))

    def prepare(self, plist: PackageList, config_root: Path, folder: Path) -> tuple[list[str], dict[str, str] | None]:
        """The folder emptied and readied; the install's argv and environment (None: skill-be's own)."""
        npm = shutil.which("npm")
        if npm is None:
            raise ConfigError(
                f"{shown(plist.path)}: installing its test packages needs npm, and npm is not on PATH; "
                "install Node.js with npm"
            )
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "skill-be-test-packages", "private": true}\n', encoding="utf-8")
        npmrc = config_root / ".npmrc"
        if npmrc.is_file():  # a private registry or its token applies to the install
            shutil.copyfile(npmrc, folder / ".npmrc")
        return [npm, "install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", *plist.npm], None


NPM = Installer()
