"""Which TypeScript the checks use: the project's 5/6, else skill-be's own, installed on first use."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from skill_be.checks import typescript as ts
from skill_be.errors import ConfigError


def _fake_ts(root: Path, version: str, *, api: bool = True) -> Path:
    module_dir = root / "node_modules" / "typescript"
    (module_dir / "lib").mkdir(parents=True)
    (module_dir / "package.json").write_text(json.dumps({"name": "typescript", "version": version}))
    if api:
        (module_dir / "lib" / "typescript.js").write_text("module.exports = {};\n")
    return module_dir


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "SKILL_BE_CACHE": str(cache)}


def test_project_typescript_6_is_used_from_a_parent_folder(tmp_path: Path) -> None:
    module_dir = _fake_ts(tmp_path, "6.0.2")
    sub = tmp_path / "packages" / "docs"
    sub.mkdir(parents=True)
    notes: list[str] = []
    found = ts.find_typescript(sub, notes.append, _env(tmp_path / "cache"))
    assert found.module_dir == module_dir
    assert found.version == "6.0.2"
    assert found.ours is False
    assert Path(found.node).name == "node"
    assert notes == []
    assert ts.has_project_typescript(sub) is True


def test_project_typescript_5_is_usable(tmp_path: Path) -> None:
    _fake_ts(tmp_path, "5.9.3")
    assert ts.has_project_typescript(tmp_path) is True


def test_no_project_typescript(tmp_path: Path) -> None:
    assert ts.has_project_typescript(tmp_path) is False


def test_project_typescript_7_is_not_usable_and_ours_is_used_with_a_note(tmp_path: Path) -> None:
    _fake_ts(tmp_path / "proj", "7.0.2", api=False)
    cache = tmp_path / "cache"
    # A completed install of ours, laid out as ensure_ours leaves it (no network needed).
    ours = _fake_ts(cache / f"typescript-{ts.PINNED_VERSION}", ts.PINNED_VERSION)
    (cache / f"typescript-{ts.PINNED_VERSION}" / ts.COMPLETE_MARKER).write_text("done")
    notes: list[str] = []
    found = ts.find_typescript(tmp_path / "proj", notes.append, _env(cache))
    assert found.ours is True
    assert found.module_dir == ours
    assert found.version == ts.PINNED_VERSION
    assert len(notes) == 1
    assert "note: the project's TypeScript is 7.0.2" in notes[0]
    assert "TypeScript 7 has no compiler API" in notes[0]
    assert ts.has_project_typescript(tmp_path / "proj") is False


def test_without_node_it_is_a_config_error_with_an_install_hint(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    with pytest.raises(ConfigError) as e:
        ts.find_typescript(tmp_path, lambda _: None, {"PATH": str(empty)})
    assert "Node.js 20 or newer" in str(e.value)
    assert "install Node.js" in str(e.value)


def test_an_old_node_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "node"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho v18.20.4\n")
    fake.chmod(0o755)
    with pytest.raises(ConfigError) as e:
        ts.find_node({"PATH": str(fake.parent)})
    assert "v18.20.4" in str(e.value)


def test_first_use_installs_ours_once_with_one_line_and_redoes_a_half_install(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    target = cache / f"typescript-{ts.PINNED_VERSION}"
    # A half install from an interrupted run: files but no completion marker.
    (target / "node_modules" / "typescript").mkdir(parents=True)
    lines: list[str] = []
    found = ts.find_typescript(tmp_path, lines.append, _env(cache))
    assert found.ours is True
    assert found.main.is_file()
    assert (target / ts.COMPLETE_MARKER).is_file()
    assert len(lines) == 1
    assert lines[0].startswith(f"skill-be: installing TypeScript {ts.PINNED_VERSION} for the checks")
    version = json.loads((found.module_dir / "package.json").read_text())["version"]
    assert version == ts.PINNED_VERSION
    again: list[str] = []
    assert ts.find_typescript(tmp_path, again.append, _env(cache)) == found
    assert again == []
    assert not [p for p in cache.iterdir() if "partial" in p.name]


def test_without_npm_ours_cannot_be_installed(tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "node").symlink_to(node)
    with pytest.raises(ConfigError) as e:
        ts.find_typescript(tmp_path, lambda _: None, {"PATH": str(bin_dir), "SKILL_BE_CACHE": str(tmp_path / "c")})
    assert "npm is not installed" in str(e.value)
