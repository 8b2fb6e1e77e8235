"""A share (gate.maxErrorShare, pricing's batchDiscount) is a number from 0 to 1: another is one line at
its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_be.errors import ConfigError
from skill_be.project.config import load_config

BASE = "skills: ./s\nevals: ./e\nmodel: {adapter: fake, id: m}\ngrader: {adapter: fake, id: g}\n"


@pytest.mark.parametrize(
    ("tail", "where"),
    [
        ("gate:\n  maxErrorShare: 1.5\n", "skill-be.yaml:6:18: gate.maxErrorShare"),
        ("pricing:\n  m: {input: 1, output: 2, batchDiscount: -0.1}\n", "skill-be.yaml:6:"),
    ],
)
def test_a_share_outside_0_to_1_is_one_line(tmp_path: Path, tail: str, where: str) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "e").mkdir()
    path = tmp_path / "skill-be.yaml"
    path.write_text(BASE + tail, encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert where in str(e.value) and "must be a share from 0 to 1, not" in str(e.value)
    path.write_text(BASE + tail.replace("1.5", "0.5").replace("-0.1", "0.1"), encoding="utf-8")
    load_config(path)  # control: a share inside 0 to 1 is taken
