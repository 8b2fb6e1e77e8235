"""A hint that names a command keeps the --config the user passed (paths.command_line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_be.paths import command_line


def test_the_default_config_needs_no_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert command_line("run", tmp_path / "skill-be.yaml") == "skill-be run"
    assert command_line("run") == "skill-be run"


def test_another_config_is_named_as_the_user_can_paste_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert command_line("run", tmp_path / "skill-be.demo.yaml") == "skill-be run --config skill-be.demo.yaml"
    assert command_line("run", tmp_path / "sub" / "skill-be.yaml") == "skill-be run --config sub/skill-be.yaml"
