"""`commands/` holds commands only: each of its modules is one command of `cli.py`'s table, or that
command's own part (`<command>_<part>.py`, as `init_draft.py` is `init --draft`). What several
commands share lives in `wiring/`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from skill_be.cli import COMMANDS

COMMANDS_DIR = Path(__file__).resolve().parents[2] / "src" / "skill_be" / "commands"


def strays(modules: Iterable[str], commands: Iterable[str]) -> list[str]:
    names = set(commands)
    return sorted(m for m in modules if m != "__init__" and m not in names and m.split("_")[0] not in names)


def test_every_module_of_commands_is_a_command_or_its_part() -> None:
    table = {c.module.rsplit(".", 1)[-1] for c in COMMANDS}
    assert all(c.module.startswith("skill_be.commands.") for c in COMMANDS)
    assert strays((p.stem for p in COMMANDS_DIR.glob("*.py")), table) == []


def test_the_rule_sees_shared_wiring_among_the_commands() -> None:
    assert strays(["run", "init", "init_draft", "assembly", "__init__"], ["run", "init"]) == ["assembly"]
