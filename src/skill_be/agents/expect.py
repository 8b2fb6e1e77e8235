"""The lines of what an agent did, over its transcript: `expect.tools` (`called`, `notCalled`,
`order`) over the tool calls in the shared vocabulary (drivers/base.py `shared_tool`: shell, read,
write, edit, skill, mcp:<server>/<tool>, or the CLI's own name), and `expect.skillsLoaded` /
`expect.skillsNotLoaded` over the skills it loaded (a neighbour that steals the trigger fails its
`skill not loaded:` line). The names are known before the run; each line passes or fails with a
message saying what the agent did instead."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skill_be.agents.drivers.base import DEFAULT_TOOL_NAMES
from skill_be.project.agent_world import World

CALLED, NOT_CALLED, ORDER = "tool called: ", "tool not called: ", "tools in order: "
LOADED, NOT_LOADED = "skill loaded: ", "skill not loaded: "
SEEN_LIMIT = 20  # calls named in a failing line's message


def expect_line_names(world: World) -> tuple[str, ...]:
    """The lines the scenario's expect.tools and skill lists ask for, in the order written."""
    t = world.tools
    out: list[str] = []
    if t is not None:
        out += [CALLED + n for n in t.called]
        out += [NOT_CALLED + n for n in t.not_called]
        if t.order:
            out.append(ORDER + " → ".join(t.order))
    out += [LOADED + n for n in world.skills_loaded]
    out += [NOT_LOADED + n for n in world.skills_not_loaded]
    return tuple(out)


def _seen(calls: Sequence[str]) -> str:
    shown = ", ".join(calls[:SEEN_LIMIT]) + (f", ... ({len(calls)} in all)" if len(calls) > SEEN_LIMIT else "")
    return f"calls: {shown}" if calls else "no tool was called"


def in_order(calls: Sequence[str], wanted: Sequence[str]) -> int:
    """How many of `wanted` were found in that order in `calls` (others may come between)."""
    found = 0
    for name in calls:
        if found < len(wanted) and name == wanted[found]:
            found += 1
    return found


def expect_lines(world: World, calls: Sequence[str], loaded: Mapping[str, int]) -> list[tuple[str, bool, str | None]]:
    """(line name, passed, message) for each line of `expect_line_names`: `calls` are the tool calls'
    shared names in the order made, `loaded` the skills loaded with the turn of the first load."""
    out: list[tuple[str, bool, str | None]] = []
    t = world.tools
    if t is not None:
        for n in t.called:
            out.append((CALLED + n, n in calls, None if n in calls else f"never called; {_seen(calls)}"))
        for n in t.not_called:
            count = calls.count(n)
            out.append((NOT_CALLED + n, count == 0, f"called {count} time(s)" if count else None))
        if t.order:
            found = in_order(calls, t.order)
            ok = found == len(t.order)
            why = (
                None
                if ok
                else f"no {t.order[found]} after {' → '.join(t.order[:found]) or 'the start'}; {_seen(calls)}"
            )
            out.append((ORDER + " → ".join(t.order), ok, why))
    names = ", ".join(loaded) or "none"
    for n in world.skills_loaded:
        out.append((LOADED + n, n in loaded, None if n in loaded else f"not loaded (loaded: {names})"))
    for n in world.skills_not_loaded:
        out.append((NOT_LOADED + n, n not in loaded, f"loaded on turn {loaded[n]}" if n in loaded else None))
    return out


def shared_calls(record: Mapping[str, object]) -> list[str]:
    """The tool calls of a run's record, by their shared names (`tool`; a record made before the shared
    names were kept: the default vocabulary over the CLI's own names)."""
    transcript = record.get("transcript")
    calls = transcript.get("toolCalls") if isinstance(transcript, Mapping) else None
    out = []
    for c in calls if isinstance(calls, list) else ():
        if isinstance(c, Mapping):
            name = str(c.get("name"))
            out.append(str(c.get("tool") or DEFAULT_TOOL_NAMES.get(name, name)))
    return out
