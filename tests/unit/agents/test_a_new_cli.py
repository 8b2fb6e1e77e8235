"""A new agent CLI is one driver module, one line in agents/drivers `DRIVERS` and its adapter (one line in
project/adapter_kinds.py `ADAPTERS`, which adapters/registry.py `BUILTINS` is built from): with those planted, every part that acts on agent CLIs takes it (the
preflight, agent mode's drivers per box, the trigger choosers), and no module of skill-be keeps a
second list of the agent CLIs' names."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skill_be.adapters.registry import BUILTINS
from skill_be.agents import drivers
from skill_be.agents.boxes.process import ProcessBox
from skill_be.errors import ConfigError

SRC = Path(__file__).resolve().parents[3] / "src" / "skill_be"
DRIVER = """
from skill_be.agents.drivers.base import Launch, Transcript

class NewDriver:
    name = "newcli"
    providers = ("openai",)
    trigger_tools = ("look",)

    def __init__(self, bin="newcli", path=""):
        self.bin, self.path = bin, path

    def prepare(self, setup, workspace, home):
        return Launch([self.bin], {"PATH": self.path}, {}, workspace)

    def parse(self, stdout, setup):
        return Transcript(stdout, 1)

def create(**options):
    return NewDriver(**options)
"""


class Entry:
    adapter, id, settings = "newcli-cli", "new-model", {"provider": "openai"}


class NewAdapter:
    """What the new CLI's adapter gives its driver: its entry, base URL, key and executable."""

    entry, base_url = Entry(), "http://127.0.0.1:9/v1"

    def key(self) -> str:
        return "sk-new"

    def executable(self) -> str:
        return "/opt/newcli/bin/newcli"


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "newcli_driver.py").write_text(DRIVER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(drivers.DRIVERS, "newcli-cli", "newcli_driver")  # type: ignore[index]
    monkeypatch.setitem(BUILTINS, "newcli-cli", "newcli_adapter")  # type: ignore[index]
    yield
    sys.modules.pop("newcli_driver", None)


def test_every_part_takes_a_cli_planted_in_the_table(planted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from skill_be.agents.preflight import check_agent_models
    from skill_be.agents.triggers import agent_choosers
    from skill_be.wiring import agent_parts

    skill: Any = type("S", (), {})()
    scenario = type("Sc", (), {"agent": object(), "id": "a"})()
    skill.evals = type("E", (), {"scenarios": [scenario], "at": lambda self, *_: "evals/a.json"})()
    check_agent_models([skill], [("m", "newcli-cli", "model")])  # accepted as an agent
    with pytest.raises(ConfigError, match="newcli-cli"):  # the control: another adapter is refused, by the table
        check_agent_models([skill], [("m", "command", "model")])
    made = agent_parts._drivers(type("M", (), {"adapter": NewAdapter()})(), {"process": ProcessBox()})
    assert made["process"].name == "newcli" and made["process"].bin == "/opt/newcli/bin/newcli"  # type: ignore[attr-defined]
    ep = drivers.endpoint(NewAdapter())
    assert (ep.model, ep.provider, ep.base_url, ep.api_key) == (
        "new-model",
        "openai",
        "http://127.0.0.1:9/v1",
        "sk-new",
    )
    choosers = agent_choosers([("m", NewAdapter())], 3, {}, ProcessBox())
    assert list(choosers) == ["m"] and choosers["m"].tools == ("look",)  # type: ignore[attr-defined]


# Where a string may name an agent CLI's adapter: its adapter, the drivers' table.
# adapters/, the drivers' table, and the one table of the adapters (their modules and settings models)
NAMES_MAY_BE_IN = ("adapters/", "agents/drivers/__init__.py", "project/adapter_kinds.py")


def names_of_agent_clis(path: Path) -> list[str]:
    """String literals (not docstrings) that are exactly an agent CLI's adapter name: a list of them
    kept outside the table."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body and isinstance(n.body[0], ast.Expr)
    }  # fmt: skip
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in drivers.DRIVERS and id(node) not in docs
    ]


def test_no_second_list_of_the_agent_clis() -> None:
    found = {
        str(p.relative_to(SRC)): names
        for p in sorted(SRC.rglob("*.py"))
        if not str(p.relative_to(SRC)).startswith(NAMES_MAY_BE_IN) and (names := names_of_agent_clis(p))
    }
    assert found == {}, "name agent CLIs through agents/drivers DRIVERS"


def test_the_second_list_rule_sees_one(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text('"""claude-cli in prose is fine."""\nCLIS = ("claude-cli", "pi-cli")\n')
    assert names_of_agent_clis(tmp_path / "m.py") == ["claude-cli", "pi-cli"]
    (tmp_path / "m.py").write_text('"""The control: claude-cli in a docstring."""\nx = "claude"\n')
    assert names_of_agent_clis(tmp_path / "m.py") == []
