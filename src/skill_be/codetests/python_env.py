"""The Python side of a code-test session, from skill-be: the interpreter the answers and the runner
run under, the harness folder a sandbox is given, and the listing of each test file's tests.

The harness folder holds `boot.py` (the one entry point: `boot.py run|host|list ...`), `skbpy/` (the
modules of codetests/python/) and `site/`, pytest and what it needs, copied from skill-be's own
environment and compiled there (unchecked-hash .pyc, so a copy with other timestamps keeps them).
The runner puts `site/` on its path; the answer's process does not. Both run with `-I -S -B`: no
site-packages, no user site, no environment variables of Python's, no .pyc written."""

from __future__ import annotations

import asyncio
import compileall
import importlib.metadata as metadata
import json
import os
import py_compile
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from skill_be.errors import ConfigError
from skill_be.paths import shown

PACKAGE = Path(__file__).parent / "python"
FLAGS = ("-I", "-S", "-B")
BOOT = '''"""skill-be's Python harness: `boot.py run|host|list ...` (see skbpy/runner.py and skbpy/host.py)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
role = sys.argv[1] if len(sys.argv) > 1 else ""
sys.path[:0] = [here] if role == "host" else [here, os.path.join(here, "site")]
if role == "host":
    from skbpy import host

    sys.path.remove(here)  # the answer's code imports what the package list gives it, not skill-be's modules
    host.main(sys.argv[2:])
else:
    from skbpy import runner

    runner.main(sys.argv[1:])
'''
LIST_TIMEOUT_S = 120
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


def _open_to_others(path: Path) -> bool:
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents] if p.exists())


def find_python(as_root: bool) -> str:
    """The interpreter of skill-be's own Python version that the answers run under: skill-be's own
    (its real file, not a virtual environment's link), or, as root, one every user can run.

    ConfigError when there is none."""
    own = Path(os.path.realpath(sys.executable))
    if not as_root or _open_to_others(own):
        return str(own)
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for folder in ("/usr/local/bin", "/usr/bin", *os.environ.get("PATH", "").split(os.pathsep)):
        candidate = Path(folder) / name
        if candidate.is_file() and _open_to_others(Path(os.path.realpath(candidate))):
            return os.path.realpath(candidate)
    raise ConfigError(
        f"codeTests: {own} cannot be run by another user, and the sandboxes run the answers' Python code as a "
        f"user of their own when skill-be runs as root; install {name} where every user can run it (such as "
        "/usr/bin), or run skill-be as another user"
    )


def _distributions(names: Iterable[str]) -> list[metadata.Distribution]:
    """`names` and everything they need (markers evaluated for this Python)."""
    from packaging.requirements import Requirement

    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        dist = metadata.distribution(name)
        seen[key] = dist
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return list(seen.values())


def _copy_distribution(dist: metadata.Distribution, site: Path) -> None:
    for f in dist.files or []:
        if "__pycache__" in f.parts or f.suffix == ".pyc" or ".." in f.parts or f.parts[:1] == ("bin",):
            continue
        source = Path(str(dist.locate_file(f)))
        if source.is_file():
            target = site / f
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def build_harness(dest: Path | None = None) -> Path:
    """The harness folder (a new one under the temp folder unless `dest`), open to every user to read."""
    root = Path(tempfile.mkdtemp(prefix="skill-be-python-")) if dest is None else dest
    try:
        package = root / "skbpy"
        package.mkdir(parents=True)
        for source in sorted(PACKAGE.glob("*.py")):
            shutil.copyfile(source, package / source.name)
        (root / "boot.py").write_text(BOOT, encoding="utf-8")
        (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        try:
            dists = _distributions(["pytest"])
        except metadata.PackageNotFoundError as e:
            raise ConfigError(f"codeTests: the Python code tests need pytest in skill-be's environment ({e})") from None
        for dist in dists:
            _copy_distribution(dist, root / "site")
        compileall.compile_dir(
            str(root), quiet=2, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, workers=1
        )
        for folder, _, files in os.walk(root):
            os.chmod(folder, 0o755)
            for f in files:
                os.chmod(os.path.join(folder, f), 0o644)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return root


def boot_argv(python: str, harness: str, role: str, *options: str) -> list[str]:
    return [python, *FLAGS, f"{harness}/boot.py", role, *options]


async def list_tests(
    python: str, harness: Path, packages: Path | None, files: Iterable[Path], shown_as: Mapping[Path, Path]
) -> dict[Path, tuple[str, ...]]:
    """Collect each test file once (pytest, a placeholder `answer`) to learn the tests it has; the
    files of each skill folder in one pytest run, so that two skills' `test_x.py` never meet.

    A file that raises when collected, or collects no test, is a ConfigError naming it."""
    by_folder: dict[Path, list[Path]] = {}
    for f in files:
        by_folder.setdefault(f.parent, []).append(f)
    results = await asyncio.gather(
        *(_list_folder(python, harness, packages, fs, shown_as) for fs in by_folder.values())
    )
    names: dict[Path, tuple[str, ...]] = {}
    for r in results:
        names.update(r)
    return names


async def _list_folder(
    python: str, harness: Path, packages: Path | None, paths: list[Path], shown_as: Mapping[Path, Path]
) -> dict[Path, tuple[str, ...]]:
    options = ["--packages", str(packages)] if packages is not None else []
    argv = boot_argv(python, str(harness), "list", *options, *map(str, paths))
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(harness), "TMPDIR": tempfile.gettempdir()}
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(paths[0].parent),
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    first = shown(shown_as.get(paths[0], paths[0]))
    try:
        out, err = await asyncio.wait_for(proc.communicate(), LIST_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise ConfigError(
            f"{first}: collecting the test files to list their tests took more than {LIST_TIMEOUT_S} s; "
            "a test file must not run anything slow when it is imported"
        ) from None
    lines = [ln for ln in out.decode("utf-8", "replace").splitlines() if ln.startswith('{"')]
    if proc.returncode != 0 or not lines:
        detail = " ".join(err.decode("utf-8", "replace").split())[-400:] or f"exit code {proc.returncode}"
        raise ConfigError(f"{first}: the test files could not be collected to list their tests ({detail})")
    listing = json.loads(lines[-1])
    names: dict[Path, tuple[str, ...]] = {}
    for path in paths:
        entry = listing.get(str(path), {"error": "was not collected"})
        source = shown(shown_as.get(path, path))
        if "error" in entry:
            raise ConfigError(
                f"{source}: {entry['error']}; a test file must import without error and define its tests as "
                "test_ functions (pytest's way)"
            )
        names[path] = tuple(str(n) for n in entry["names"])
    return names


def write_work_folder(folder: Path, tests: Path, skills: Iterable[str]) -> None:
    """A Python work folder: `tests/` (the skills' test folders and `_shared`, as they are) and `runs/`.
    skill-be's alone, whatever the project's folders let other users read (as root, the sandboxes' runners
    and answers run as other users)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    for name in ("_shared", *skills):
        source = tests / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
            shutil.copytree(source, folder / "tests" / name, ignore=ignore, dirs_exist_ok=True)
    (folder / "tests").mkdir(exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
