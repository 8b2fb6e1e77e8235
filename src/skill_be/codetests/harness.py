"""The Node side of code tests, shipped as package data, and the work folder it runs in.

A work folder holds `package.json` (ES modules), `node_modules/` with the test wrapper under both of
its names, `tests/` with the compiled test files and helpers of the skills that share one package
list, and `runs/`, where each answer gets a folder of its own. It sits inside the package list's
deps folder, so the answers and the tests import the installed packages from the folder above."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from skill_be.codetests.nodefiles import COMPILE, NODE_DIR, RUNNER, TESTING_DIR, CompileError
from skill_be.errors import ConfigError
from skill_be.paths import shown

__all__ = ["COMPILE", "NODE_DIR", "RUNNER", "TESTING_DIR", "compile_tree", "list_tests", "write_work_folder"]
WRAPPER_NAMES = ("skill-be", "@ngwes/skill-be")
TS_SUFFIXES = {".ts": ".js", ".mts": ".mjs"}
LIST_TIMEOUT_S = 60


def write_work_folder(work: Path) -> None:
    """The folder's skeleton: ES modules, the wrapper packages and an empty runs/."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "package.json").write_text('{"private": true, "type": "module"}\n', encoding="utf-8")
    for name in WRAPPER_NAMES:
        pkg = work / "node_modules" / name
        pkg.mkdir(parents=True, exist_ok=True)
        for f in ("testing.js", "testing.d.ts"):
            shutil.copyfile(TESTING_DIR / f, pkg / f)
        manifest = {
            "name": name,
            "private": True,
            "type": "module",
            "exports": {"./testing": {"types": "./testing.d.ts", "default": "./testing.js"}},
        }
        (pkg / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (work / "tests").mkdir(exist_ok=True)
    (work / "runs").mkdir(exist_ok=True)


def compiled_name(rel: Path) -> Path:
    """Where a source file of the tests folder lands: .ts becomes .js, so `./fakes.js` imports resolve."""
    if rel.name.endswith(".d.ts"):
        return rel
    new = TS_SUFFIXES.get(rel.suffix)
    return rel.with_suffix(new) if new else rel


class Transpiler(Protocol):
    """What compile_tree needs from the compiler."""

    async def transpile(self, file_name: str, source: str) -> str: ...


async def compile_tree(compiler: Transpiler, source: Path, dest: Path) -> None:
    """Every file under `source` into `dest`: TypeScript transpiled, the rest copied; a parse error stops."""
    if not source.is_dir():
        return
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        rel = path.relative_to(source)
        target = dest / compiled_name(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix in TS_SUFFIXES and not path.name.endswith(".d.ts"):
            try:
                code = await compiler.transpile(path.name, path.read_text(encoding="utf-8"))
            except CompileError as e:
                raise ConfigError(f"{shown(path)}: {e}; fix the syntax so the code tests can run") from None
            except (OSError, UnicodeDecodeError) as e:
                raise ConfigError(f"{shown(path)}: cannot read it ({e})") from None
            target.write_text(code, encoding="utf-8")
        else:
            shutil.copyfile(path, target)


async def list_tests(node: str, files: Iterable[Path], shown_as: Mapping[Path, Path]) -> dict[Path, tuple[str, ...]]:
    """Load each compiled test file once, in a Node process, to learn the names it registers.

    A file that throws when loaded, or registers no test, is a ConfigError naming the source file."""
    paths = list(files)
    if not paths:
        return {}
    proc = await asyncio.create_subprocess_exec(
        node,
        str(RUNNER),
        "list",
        *map(str, paths),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), LIST_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        first = shown(shown_as.get(paths[0], paths[0]))
        raise ConfigError(
            f"{first}: loading the test files to list their tests took more than {LIST_TIMEOUT_S} s; "
            "a test file must not run anything slow when it loads"
        ) from None
    lines = [ln for ln in out.decode("utf-8", "replace").splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        detail = " ".join(err.decode("utf-8", "replace").split())[-400:] or f"exit code {proc.returncode}"
        first = shown(shown_as.get(paths[0], paths[0]))
        raise ConfigError(f"{first}: the test files could not be loaded to list their tests ({detail})")
    listing = json.loads(lines[-1])
    names: dict[Path, tuple[str, ...]] = {}
    for path in paths:
        entry = listing.get(str(path), {"error": "was not loaded"})
        source = shown(shown_as.get(path, path))
        if "error" in entry:
            raise ConfigError(
                f"{source}: {entry['error']}; a test file must load without error and register its tests "
                "with test(name, fn) from skill-be/testing"
            )
        names[path] = tuple(str(n) for n in entry["names"])
    return names
