"""An agent scenario's lines besides its criteria (the engine's second kind of line, as code tests are):
`check: <name>` per check command, exit 0 passes; a check that exits 0 with one JSON object
`{"checks": [{"name": ..., "passed": ...}, ...]}` as its last line (skillgrade's grader shape) gives
one line per entry instead, `check: <name> › <entry>` (from a check that did not exit 0, each entry
fails); and `skill loaded` / `skill not loaded` for
expect.skillLoaded."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from skill_be.project.agent_models import AgentScenario

CHECK_PREFIX = "check: "
SKILL_LOADED, SKILL_NOT_LOADED = "skill loaded", "skill not loaded"
ENTRY_SEP = " › "
MESSAGE_LIMIT = 600


class CheckRow(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def exit(self) -> str: ...
    @property
    def output(self) -> str: ...


def json_entries(output: str) -> list[tuple[str, bool]] | None:
    """The entries of a last-line `{"checks": [...]}`, or None when the last line is not one."""
    lines = [line for line in output.strip().splitlines() if line.strip()]
    if not lines:
        return None
    try:
        doc = json.loads(lines[-1])
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("checks"), list):
        return None
    out = []
    for i, entry in enumerate(doc["checks"], 1):
        if isinstance(entry, dict):
            out.append((str(entry.get("name") or f"entry {i}"), entry.get("passed") is True))
    return out or None


def _message(row: CheckRow) -> str:
    if row.exit == "timeout":
        return "the check reached its time limit"
    tail = row.output.strip()[-MESSAGE_LIMIT:]
    what = "command not found" if row.exit == "127" else f"exit code {row.exit}"
    return f"{what}: {tail}" if tail else what


def check_lines(rows: Sequence[CheckRow]) -> list[tuple[str, bool, str | None]]:
    """(line name, passed, message) for each check, or for each entry of a JSON-lines check."""
    out: list[tuple[str, bool, str | None]] = []
    for row in rows:
        entries = json_entries(row.output)
        if entries is None:
            passed = row.exit == "0"
            out.append((CHECK_PREFIX + row.name, passed, None if passed else _message(row)))
            continue
        # The entries count only from a check that exited 0: otherwise the last line may be anything the
        # workspace held (`cat report.txt; grep -q PASS report.txt`), and every entry fails.
        failed = None if row.exit == "0" else _message(row)
        for name, passed in entries:
            out.append((CHECK_PREFIX + row.name + ENTRY_SEP + name, passed and failed is None, failed))
    return out


def expand_names(names: Sequence[str], seen: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """The scenario's line names once the outputs are in: a check that gave JSON entries in any output
    is replaced by those entries (in the order first seen)."""
    out: list[str] = []
    for name in names:
        entries: list[str] = []
        if name.startswith(CHECK_PREFIX):
            for names_of_output in seen:
                for n in names_of_output:
                    if n.startswith(name + ENTRY_SEP) and n not in entries:
                        entries.append(n)
        out.extend(entries or [name])
    return tuple(out)


def skill_lines(agent: AgentScenario) -> tuple[str, ...]:
    """The skill line expect.skillLoaded asks for, if any."""
    if agent.skill_loaded is None:
        return ()
    return (SKILL_LOADED if agent.skill_loaded else SKILL_NOT_LOADED,)


def line_names(agent: AgentScenario, code_tests: Sequence[str]) -> tuple[str, ...]:
    """The lines known before the run: code tests, one per check, the skill line."""
    return (*code_tests, *(CHECK_PREFIX + c.name for c in agent.checks), *skill_lines(agent))
