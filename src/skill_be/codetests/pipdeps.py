"""The pip section of a package list: installed with pip into `.skill-be/deps/<hash>/site-packages/`.

pip runs under skill-be's own Python (`python -m pip install --target`), so what it installs fits the
Python the process and bwrap sandboxes run the answers under (the same minor version, see
`codetests/python_env.py`). The project's `pip.conf`, when there is one beside skill-be.yaml, is the
install's configuration file (PIP_CONFIG_FILE): a private index or its credentials apply."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

from skill_be.codetests.installer import Installer
from skill_be.codetests.packages import PackageList
from skill_be.errors import ConfigError
from skill_be.paths import shown

PIP_CONF = "pip.conf"


def python_tag() -> str:
    """The Python the packages are installed for: a folder is reused for the same one only."""
    return f"cp{sys.version_info.major}{sys.version_info.minor}"


def key(entries: tuple[str, ...]) -> tuple[str, ...]:
    """What names the folder: the section, the Python and the entries (never the npm section's folder)."""
    return ("pip", python_tag(), *entries)


class PipInstaller(Installer):
    name = "pip"
    packages = "site-packages"
    settings = "pip's index and network settings (a pip.conf beside the config)"

    def marker(self, entries: tuple[str, ...]) -> str:
        return json.dumps(list(key(entries)))

    def prepare(self, plist: PackageList, config_root: Path, folder: Path) -> tuple[list[str], dict[str, str] | None]:
        if importlib.util.find_spec("pip") is None:
            raise ConfigError(
                f"{shown(plist.path)}: installing its Python test packages needs pip, and the Python skill-be runs "
                f"under ({sys.executable}) has none; install it with {sys.executable} -m ensurepip"
            )
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        conf = config_root / PIP_CONF
        if conf.is_file():  # a private index or its token applies to the install
            env["PIP_CONFIG_FILE"] = str(conf)
        argv = [sys.executable, "-m", "pip", "install", "--target", str(folder / self.packages)]
        argv += [
            "--no-input",
            "--disable-pip-version-check",
            "--no-warn-script-location",
            "--quiet",
            "--root-user-action=ignore",
            *plist.pip,
        ]
        return argv, env


PIP = PipInstaller()
