"""The manual's reference tables (README.md and docs/) name every command, option and config key the code has."""

from __future__ import annotations

import argparse
import re
import typing
from collections.abc import Iterator

import pytest
from pydantic import BaseModel
from tests.support.manual import ROOT, section

from skill_be.cli import COMMANDS
from skill_be.project.adapter_kinds import ADAPTERS
from skill_be.project.adapter_settings import EntryModel, settings_model
from skill_be.project.models import ConfigModel
from skill_be.project.rules import SANDBOXES


def rows(name: str) -> list[tuple[str, str]]:
    """Each table row of a section: its first cell and the whole row."""
    out = []
    for line in section(name).splitlines():
        if line.startswith("| `"):
            out.append((line.split(" | ", 1)[0], line))
    return out


def mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def options(command: str) -> list[str]:
    c = next(c for c in COMMANDS if c.name == command)
    p = argparse.ArgumentParser(add_help=False)
    c.add_options(p)
    found = [s for a in p._actions for s in a.option_strings]
    found += [str(choice) for a in p._actions if not a.option_strings and a.choices for choice in a.choices]
    return found


@pytest.mark.parametrize("command", [c.name for c in COMMANDS])
def test_the_commands_section_lists_the_command_and_each_of_its_options(command: str) -> None:
    own = [row for first, row in rows("commands") if first.startswith(f"| `{command}")]
    assert own, f"no row for {command}"
    assert any("](" in row for row in own), f"{command}: no pointer to the page that explains it"
    for option in options(command):
        assert any(mentions(row, option) for row in own), f"{command} {option}"
    listing = section("commands").split("```", 2)[1]
    assert re.search(rf"^  {command}\b", listing, re.MULTILINE), command


def _models(annotation: object) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for arg in typing.get_args(annotation):
        yield from _models(arg)


def config_keys(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    """Every key a user writes, nested ones as gate.rule; an adapter entry is one key (its settings are
    the adapter's, listed on the adapters page: test_the_adapters_table_lists_each_adapters_settings)."""
    for name, field in model.model_fields.items():
        key = prefix + (field.alias or name)
        strict = [
            m
            for m in _models(field.annotation)
            if m.model_config.get("extra") != "allow" and not issubclass(m, EntryModel)
        ]
        if strict:
            for m in strict:
                yield from config_keys(m, key + ".")
        else:
            yield key


@pytest.mark.parametrize("key", sorted(set(config_keys(ConfigModel))))
def test_the_config_table_lists_every_key(key: str) -> None:
    parent, _, leaf = key.rpartition(".")
    table = rows("config")
    assert any(f"`{key}`" in first for first, _ in table) or any(
        parent and first.startswith(f"| `{parent}") and f"`{leaf}`" in row for first, row in table
    ), key


def test_the_config_table_names_every_sandbox_and_gate_value() -> None:
    table = dict(rows("config"))
    (sandbox,) = [row for first, row in table.items() if first == "| `codeTests.sandbox`"]
    assert all(f"`{name}`" in sandbox for name in SANDBOXES)
    (rule,) = [row for first, row in table.items() if first == "| `gate.rule`"]
    assert "`strict`" in rule and "`evidence`" in rule
    (inconclusive,) = [row for first, row in table.items() if first == "| `gate.inconclusive`"]
    assert "`pass`" in inconclusive and "`block`" in inconclusive


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_the_adapters_table_lists_each_adapters_settings(adapter: str) -> None:
    text = (ROOT / "docs" / "reference" / "adapters.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith(f"| `{adapter}` |"))
    keys = [f.alias or name for name, f in settings_model(adapter).model_fields.items()]
    assert keys[:2] == ["adapter", "id"]
    for key in keys[2:]:
        assert f"`{key}`" in row.rsplit(" | ", 1)[1], f"{adapter}: {key}"
    if len(keys) == 2:
        assert row.rstrip(" |").endswith("none"), adapter  # the control: an adapter without settings says so
