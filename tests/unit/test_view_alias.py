"""`skill-be view` is another name for `skill-be open`: the same module, the same options, its own help."""

from __future__ import annotations

import argparse

import pytest

from skill_be import cli


def test_view_runs_the_open_command_with_the_same_options() -> None:
    by_name = {c.name: c for c in cli.COMMANDS}
    assert by_name["view"].module == by_name["open"].module == "skill_be.commands.open"
    parsed = []
    for name in ("open", "view"):
        p = argparse.ArgumentParser(add_help=False)
        by_name[name].add_options(p)
        parsed.append(vars(p.parse_args(["some/folder", "--port", "8123", "--no-browser"])))
    assert parsed[0] == parsed[1]


def test_view_has_help_and_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["view", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: skill-be view [folder] [options]") and "--no-browser" in out
    assert cli.main([]) == 0
    listing = capsys.readouterr().out
    assert "  view [folder]      Another name for open." in listing


def test_an_unknown_command_lists_view(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["vew"]) == 2
    assert "open, view," in capsys.readouterr().err
