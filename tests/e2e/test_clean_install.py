"""From a plain `pip install` (issue 20): the built wheel in a clean virtual environment, with skill-be's
runtime dependencies and nothing else (no mypy, no ruff), runs every bundled demo and `skill-be init`,
offline. The wheel is built with --no-build-isolation from this environment's setuptools; the clean
environment sees only the runtime dependencies, through a .pth file listing a folder of links to them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMOS = sorted(p.parent.name for p in (REPO / "examples").glob("*/skill-be.demo.yaml"))


def runtime_closure(name: str, seen: dict[str, metadata.Distribution]) -> None:
    key = name.lower().replace("_", "-")
    if key in seen:
        return
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return
    seen[key] = dist
    for req in dist.requires or []:
        if "extra ==" not in req:
            runtime_closure(re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0], seen)


def link_runtime_deps(folder: Path) -> None:
    """Links to the top-level files and folders of skill-be's runtime dependencies, and their metadata."""
    seen: dict[str, metadata.Distribution] = {}
    runtime_closure("skill-be", seen)
    seen.pop("skill-be")
    folder.mkdir()
    for dist in seen.values():
        for f in dist.files or []:
            top = f.parts[0]
            src = Path(str(dist.locate_file(top)))
            if top.endswith(".pth") or top == ".." or not src.exists() or (folder / top).exists():
                continue
            (folder / top).symlink_to(src)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("clean")
    source = root / "source"
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    wheels = root / "wheels"
    pip = [sys.executable, "-m", "pip"]
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(wheels), str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True, symlinks=True).create(env_dir)
    python = env_dir / "bin" / "python"
    (wheel,) = wheels.glob("skill_be-*.whl")
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    link_runtime_deps(root / "deps")
    site = next((env_dir / "lib").glob("python3*/site-packages"))
    (site / "skill-be-runtime-deps.pth").write_text(str(root / "deps") + "\n")
    return env_dir


def skill_be(env_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}:{env.get('PATH', '')}"
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [str(env_dir / "bin" / "skill-be"), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600
    )


def test_the_clean_environment_has_skill_be_and_nothing_of_the_dev_tools(clean: Path, tmp_path: Path) -> None:
    python = str(clean / "bin" / "python")
    where = subprocess.run([python, "-c", "import skill_be; print(skill_be.__file__)"], capture_output=True, text=True)
    assert str(clean) in where.stdout, where.stdout + where.stderr  # the wheel's copy, not the checkout
    for tool in ("mypy", "ruff"):  # pytest is a runtime dependency: Python code tests run under it
        missing = subprocess.run([python, "-c", f"import {tool}"], capture_output=True, text=True)
        assert missing.returncode != 0, tool
    assert skill_be(clean, tmp_path, "--version").returncode == 0


@pytest.mark.parametrize("name", DEMOS)
def test_every_demo_runs_from_the_wheel(clean: Path, tmp_path: Path, name: str) -> None:
    root = tmp_path / name
    shutil.copytree(REPO / "examples" / name, root, ignore=shutil.ignore_patterns(".skill-be", "node_modules"))
    done = skill_be(clean, root, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("Result: pass")
    result = json.loads((root / ".skill-be" / "demo.result.json").read_text())
    assert all(entry["ready"] for entry in result["skills"].values())


def test_init_on_a_bundled_skill_from_the_wheel(clean: Path, tmp_path: Path) -> None:
    shutil.copytree(REPO / "examples" / "py-money" / "skills", tmp_path / "skills")
    done = skill_be(clean, tmp_path, "init", "skills/money")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "skill-be.yaml").is_file() and (tmp_path / "evals" / "money.json").is_file()
    refused = skill_be(clean, tmp_path, "check")
    assert refused.returncode == 2 and "still the placeholder of skill-be init" in refused.stderr
    assert skill_be(clean, tmp_path, "sandbox", "--help").returncode == 0


def copy_source(root: Path, readme: bool = True) -> Path:
    source = root / "source"
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    shutil.copy(REPO / "pyproject.toml", source / "pyproject.toml")
    if readme:
        shutil.copy(REPO / "README.md", source / "README.md")
    else:  # the control: a package whose description is empty, which PyPI shows as nothing
        (source / "README.md").write_text("", encoding="utf-8")
    return source


def build_and_check(root: Path, readme: bool = True) -> subprocess.CompletedProcess[str]:
    """What the release workflow does before PyPI: sdist and wheel with `python -m build`, then
    `twine check --strict` on both."""
    source, dist = copy_source(root, readme), root / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "-o", str(dist),
                            str(source)], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    assert sorted(p.suffix for p in dist.iterdir()) == [".gz", ".whl"]
    return subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_the_sdist_and_wheel_pass_twine_check_as_the_release_builds_them(tmp_path: Path) -> None:
    checked = build_and_check(tmp_path / "release")
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr
    # The control: an empty long description is what --strict refuses.
    empty = build_and_check(tmp_path / "empty", readme=False)
    assert empty.returncode != 0 and "long_description" in empty.stdout + empty.stderr, empty.stdout + empty.stderr
