"""The agent scenarios' part of the reports: per arm, the loaded rate, turns, tool calls, tokens and
time (Markdown), and for the HTML page each rep's numbers with links to its transcript and diff."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skill_be.engine.observations import Output
from skill_be.engine.prompts import ARMS
from skill_be.results.run_dir import safe_name

if TYPE_CHECKING:
    from skill_be.results.run_pages import AgentFiles
    from skill_be.results.summary_models import OutputSummary

AGENT_NOTE = (
    "Agent scenarios: the model acts through its CLI in a workspace; with skill installs the whole skill "
    "folder where the CLI discovers skills (the baseline has none), and the judge reads the final message, "
    "the tool calls and the workspace diff."
)
AGENT_HEAD = "| Agent | Skill loaded | Turns | Tool calls | Tokens in / out | Time |"
ARM_NAMES = {"baseline": "baseline", "with-skill": "with skill"}


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _num(x: float | None, unit: str = "") -> str:
    if x is None:
        return "–"
    return f"{x:.1f}{unit}" if unit == " s" else f"{round(x):,}{unit}"


def agent_row(outputs: Sequence[Output], arm: str) -> str | None:
    runs = [o for o in outputs if o.arm == arm and isinstance(o.meta.get("agent"), Mapping)]
    if not runs:
        return None
    data: list[Mapping[str, Any]] = [o.meta["agent"] for o in runs]  # type: ignore[misc]
    loaded = sum(1 for d in data if d.get("loaded"))
    tin = [float(d["inputTokens"]) for d in data if d.get("inputTokens") is not None]
    tout = [float(d["outputTokens"]) for d in data if d.get("outputTokens") is not None]
    return (
        f"| {ARM_NAMES.get(arm, arm)} | {loaded}/{len(data)} ({round(100 * loaded / len(data))}%) "
        f"| {_num(_mean([float(d.get('turns') or 0) for d in data]))} "
        f"| {_num(_mean([float(d.get('toolCalls') or 0) for d in data]))} "
        f"| {_num(_mean(tin))} / {_num(_mean(tout))} "
        f"| {_num(_mean([o.seconds for o in runs]), ' s')} |"
    )


def agent_lines(outputs: Sequence[Output]) -> list[str]:
    """After a scenario's table: the agent's numbers per arm (means per rep); nothing for one-shot."""
    rows = [r for r in (agent_row(outputs, arm) for arm in ARMS) if r is not None]
    if not rows:
        return []
    return ["", AGENT_HEAD, "|---|---|---|---|---|---|", *rows]


def has_agent(outputs: Sequence[Output]) -> bool:
    return any("agent" in o.meta for o in outputs)


def agent_view(
    o: OutputSummary, skill: str, scenario: str, model: str, files: Mapping[str, AgentFiles] | None = None
) -> dict[str, Any] | None:
    """For results.html: a rep's agent numbers and the links to its transcript and diff (the files
    sit beside the page in the run folder)."""
    data = o.adapter.agent if o.adapter is not None else None
    if data is None:
        return None
    stem = f"{skill}/{scenario}/{safe_name(model)}/rep-{o.rep}-{o.arm}"
    return {
        "loaded": data.loaded,
        "turns": data.turns,
        "toolCalls": data.tool_calls,
        "inputTokens": data.input_tokens,
        "outputTokens": data.output_tokens,
        "transcript": f"{stem}.transcript.json",
        "diff": f"{stem}.diff",
    }
