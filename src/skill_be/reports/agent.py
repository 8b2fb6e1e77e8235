"""The agent scenarios' part of the reports: per arm, the loaded rate, turns, tool calls, tokens and
time (Markdown), and for the HTML page each rep's numbers with links to its transcript and diff."""

from __future__ import annotations

import json
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


RESULT_SHOWN = 600  # characters of a tool result shown before its "show all"
ARGUMENTS_SHOWN = 2000  # of a tool call's input (the record keeps 2000: agents/record.py)
DIFF_LINES = 400  # lines of a diff shown on the page; the file beside it has them all
DIFF_CHARS = 40_000  # and at most these characters of them


def agent_view(
    o: OutputSummary, skill: str, scenario: str, model: str, files: Mapping[str, AgentFiles] | None = None
) -> dict[str, Any] | None:
    """For results.html: a rep's agent numbers, the links to its transcript and diff (the files sit
    beside the page in the run folder), and, where `files` has them (by the rep's stem), the
    transcript's turns and the diff's lines to show folded."""
    data = o.adapter.agent if o.adapter is not None else None
    if data is None:
        return None
    stem = f"{skill}/{scenario}/{safe_name(model)}/rep-{o.rep}-{o.arm}"
    got = (files or {}).get(stem)
    return {
        "loaded": data.loaded,
        "loadedTurn": data.loaded_turn,
        "turns": data.turns,
        "toolCalls": data.tool_calls,
        "inputTokens": data.input_tokens,
        "outputTokens": data.output_tokens,
        "transcript": f"{stem}.transcript.json",
        "diff": f"{stem}.diff",
        "run": transcript_view(got.transcript) if got is not None and got.transcript is not None else None,
        "changes": diff_view(got.diff) if got is not None and got.diff is not None else None,
    }


def _shown(text: str, limit: int) -> dict[str, Any]:
    """A text with its first `limit` characters apart: `more` is how many follow (0: it is all shown)."""
    return {"head": text[:limit], "all": text, "more": max(0, len(text) - limit)}


def _arguments(raw: object) -> str:
    """A tool call's input as the record keeps it (JSON text), indented when it parses."""
    text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str)
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    return json.dumps(parsed, indent=2, ensure_ascii=False) if isinstance(parsed, dict | list) else text


def transcript_view(t: Mapping[str, Any]) -> dict[str, Any]:
    """The transcript's document (rep-*.transcript.json) as the page shows it: each tool call with its
    turn, its input and its result (shortened, the rest behind "show all"), the skills offered and
    loaded, the final answer and the CLI's error. Every text stays text: the template escapes it."""
    calls = []
    for c in t.get("toolCalls") or ():
        if not isinstance(c, Mapping):
            continue
        result = c.get("result")
        calls.append(
            {
                "turn": c.get("turn"),
                "name": str(c.get("name") or "?"),
                "arguments": _shown(_arguments(c.get("arguments", "")), ARGUMENTS_SHOWN),
                "result": None if result is None else _shown(str(result), RESULT_SHOWN),
                "error": bool(c.get("isError")),
            }
        )
    loaded = t.get("skillsLoaded")
    offered = t.get("skillsOffered")
    return {
        "calls": calls,
        "final": str(t.get("finalMessage") or ""),
        "offered": [str(x) for x in offered] if isinstance(offered, list) else None,
        "loaded": {str(k): v for k, v in loaded.items()} if isinstance(loaded, Mapping) else {},
        "error": t.get("error"),
    }


def diff_view(diff: str) -> dict[str, Any]:
    """A workspace diff as styled lines (file, hunk, added, removed, context), at most DIFF_LINES lines
    and DIFF_CHARS characters of them; `cut` says how many lines were left out."""
    lines = diff.splitlines()
    shown: list[dict[str, str]] = []
    size = 0
    for line in lines[:DIFF_LINES]:
        size += len(line) + 1
        if size > DIFF_CHARS:
            break
        shown.append({"kind": _kind(line), "text": line})
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    return {"lines": shown, "cut": len(lines) - len(shown), "total": len(lines), "added": added, "removed": removed}


def _kind(line: str) -> str:
    if line.startswith(("+++", "---", "diff ", "index ")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    return {"+": "add", "-": "del"}.get(line[:1], "ctx")
