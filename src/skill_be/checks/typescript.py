"""Which TypeScript and which Node the checks and code tests use.

The project's own `node_modules/typescript` wins when it is version 5 or 6. Otherwise skill-be uses
its own pinned TypeScript, installed with npm into a cache folder on first use: TypeScript 7 is the
native compiler and has no `lib/typescript.js`, the classic compiler API every helper here needs.
The cache root is `$SKILL_BE_CACHE`, else `$XDG_CACHE_HOME/skill-be`, else `~/.cache/skill-be`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.proc import StartFailed, resolve_executable, run_sync, tail

PINNED_VERSION = "6.0.3"
MIN_NODE_MAJOR = 20
USABLE_MAJORS = (5, 6)
COMPLETE_MARKER = ".skill-be-complete"
NODE_HINT = "install Node.js 20 or newer (https://nodejs.org, or your package manager) and make sure `node` is on PATH"


@dataclass(frozen=True)
class TypeScript:
    """A TypeScript with the classic compiler API, and the Node that runs it."""

    module_dir: Path  # the `typescript` package folder; `lib/typescript.js` is in it
    version: str
    node: str  # the node executable
    ours: bool  # True when it is skill-be's pinned copy, not the project's

    @property
    def main(self) -> Path:
        return self.module_dir / "lib" / "typescript.js"


def find_node(environ: Mapping[str, str] | None = None) -> str:
    """The `node` executable, version 20 or newer, or a ConfigError with an install hint."""
    env = os.environ if environ is None else environ
    node = resolve_executable("node", Path.cwd(), env.get("PATH"))
    if node is None:
        raise ConfigError(f"the checks need Node.js 20 or newer, and no `node` was found; {NODE_HINT}")
    try:
        done = run_sync([node, "--version"], timeout=30)
    except StartFailed as e:
        raise ConfigError(f"the checks need Node.js 20 or newer, and {node} does not run ({e}); {NODE_HINT}") from None
    if done.timed_out:
        raise ConfigError(f"the checks need Node.js 20 or newer, and {node} --version did not answer; {NODE_HINT}")
    out = done.stdout.decode("utf-8", errors="replace")
    m = re.match(r"v?(\d+)\.", out.strip())
    if m is None or int(m.group(1)) < MIN_NODE_MAJOR:
        found = out.strip() or "an unknown version"
        raise ConfigError(f"the checks need Node.js 20 or newer, and {node} is {found}; {NODE_HINT}")
    return node


def _version(module_dir: Path) -> str | None:
    try:
        data = json.loads((module_dir / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def _major(version: str) -> int | None:
    m = re.match(r"(\d+)\.", version)
    return int(m.group(1)) if m else None


def project_typescript(root: Path) -> tuple[Path, str] | None:
    """The nearest `node_modules/typescript` at or above `root`, with its version."""
    for folder in (root.absolute(), *root.absolute().parents):
        module_dir = folder / "node_modules" / "typescript"
        version = _version(module_dir)
        if version is not None:
            return module_dir, version
    return None


def _usable(module_dir: Path, version: str) -> bool:
    return _major(version) in USABLE_MAJORS and (module_dir / "lib" / "typescript.js").is_file()


def has_project_typescript(root: Path) -> bool:
    """Whether the project has a TypeScript the checks can use (5 or 6): the typecheck's default."""
    found = project_typescript(root)
    return found is not None and _usable(*found)


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if env.get("SKILL_BE_CACHE"):
        return Path(env["SKILL_BE_CACHE"]).expanduser()
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "skill-be"
    return Path.home() / ".cache" / "skill-be"


def our_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The folder skill-be's own TypeScript lives in (its `node_modules/typescript` is inside)."""
    return cache_root(environ) / f"typescript-{PINNED_VERSION}"


def ensure_ours(node: str, warn: Callable[[str], None], environ: Mapping[str, str] | None = None) -> TypeScript:
    """skill-be's pinned TypeScript, installed with npm on first use.

    The install goes to a temporary folder that is renamed into place once it is complete, so an
    interrupted install is never taken for a good one (and an older half install without the
    marker is redone)."""
    env = os.environ if environ is None else environ
    target = our_dir(env)
    module_dir = target / "node_modules" / "typescript"
    if (target / COMPLETE_MARKER).is_file() and (module_dir / "lib" / "typescript.js").is_file():
        return TypeScript(module_dir=module_dir, version=PINNED_VERSION, node=node, ours=True)
    npm = resolve_executable("npm", Path.cwd(), env.get("PATH"))
    if npm is None:
        raise ConfigError(
            f"the checks need TypeScript {PINNED_VERSION}, and npm is not installed to fetch it; install npm "
            "(it comes with Node.js), or add typescript@6 to the project (npm install --save-dev typescript@6)"
        )
    warn(f"skill-be: installing TypeScript {PINNED_VERSION} for the checks into {shown(target)} (first use only)")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.parent / f".{target.name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    (partial / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    argv = [
        npm, "install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error",
        "--prefix", str(partial), f"typescript@{PINNED_VERSION}",
    ]  # fmt: skip
    try:
        done = run_sync(argv, timeout=600, env=env)
    except StartFailed as e:
        shutil.rmtree(partial, ignore_errors=True)
        raise ConfigError(
            f"cannot install TypeScript {PINNED_VERSION} with npm ({e}); check npm and the network"
        ) from None
    if done.timed_out:
        shutil.rmtree(partial, ignore_errors=True)
        raise ConfigError(
            f"cannot install TypeScript {PINNED_VERSION} with npm (no answer within 600 s); check npm and the network"
        )
    if done.returncode != 0 or not (partial / "node_modules" / "typescript" / "lib" / "typescript.js").is_file():
        shutil.rmtree(partial, ignore_errors=True)
        detail = tail(done.stderr or done.stdout, 300)
        raise ConfigError(
            f"cannot install TypeScript {PINNED_VERSION} with npm (exit code {done.returncode}: {detail}); "
            "check the network and npm's registry setting, or add typescript@6 to the project"
        )
    (partial / COMPLETE_MARKER).write_text(PINNED_VERSION + "\n", encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    try:
        partial.rename(target)
    except OSError:
        # Another process finished the same install first; theirs is as good as ours.
        shutil.rmtree(partial, ignore_errors=True)
        if not (target / COMPLETE_MARKER).is_file():
            raise ConfigError(
                f"cannot move the TypeScript install into {shown(target)}; check its permissions"
            ) from None
    return TypeScript(module_dir=module_dir, version=PINNED_VERSION, node=node, ours=True)


def find_typescript(root: Path, warn: Callable[[str], None], environ: Mapping[str, str] | None = None) -> TypeScript:
    """The TypeScript to use for a project at `root`: its own 5 or 6, else skill-be's pinned one.

    Raises ConfigError when Node.js 20+ is missing, or when ours is needed and cannot be installed."""
    node = find_node(environ)
    found = project_typescript(root)
    if found is not None:
        module_dir, version = found
        if _usable(module_dir, version):
            return TypeScript(module_dir=module_dir, version=version, node=node, ours=False)
        why = "TypeScript 7 has no compiler API" if _major(version) == 7 else "the checks need TypeScript 5 or 6"
        warn(
            f"note: the project's TypeScript is {version} ({shown(module_dir)}); {why}, "
            f"so skill-be uses its own TypeScript {PINNED_VERSION}"
        )
    return ensure_ours(node, warn, environ)
