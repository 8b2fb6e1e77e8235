"""What one agent run leaves: the record kept per rep (transcript, bounded; the workspace diff; the
files it changed, for the checks and code tests; each redacted), the summary in summary.json, and the text the
judge grades (final message, tool calls, diff; each bounded, what was cut said)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from typing import Any

from skill_be.agents.boxes import AgentRun
from skill_be.agents.drivers.base import Transcript
from skill_be.agents.workspace import Files, cut, diff

ARG_LIMIT = 2000  # characters of one tool call's arguments kept
RESULT_LIMIT = 2000  # of its result
CHANGED_LIMIT = 8 << 20  # bytes of changed files kept (beyond: the checks see what fit, and it is said)
JUDGE_MESSAGE, JUDGE_CALLS, JUDGE_DIFF = 8000, 8000, 20000


def transcript_json(t: Transcript, redact: Callable[[str], str]) -> dict[str, Any]:
    calls = []
    for c in t.tool_calls:
        args = json.dumps(c.arguments, ensure_ascii=False, default=str)
        calls.append(
            {
                "name": c.name,
                "arguments": redact(cut(args, ARG_LIMIT, "arguments")),
                "result": None if c.result is None else redact(cut(c.result, RESULT_LIMIT, "result")),
                "isError": c.is_error,
                "turn": c.turn,
            }
        )
    return {
        "finalMessage": redact(t.final_message),
        "turns": t.turns,
        "toolCalls": calls,
        "skillsOffered": list(t.skills_offered) if t.skills_offered is not None else None,
        "skillsLoaded": dict(t.skills_loaded),
        "inputTokens": t.input_tokens,
        "outputTokens": t.output_tokens,
        "cacheWriteTokens": t.cache_write_tokens,
        "cacheReadTokens": t.cache_read_tokens,
        "costUsd": t.cost_usd,
        "error": t.error,
    }


def redact_bytes(data: bytes, redact: Callable[[str], str]) -> bytes:
    """A file's content with every secret redacted, its other bytes as they were."""
    text = data.decode("utf-8", errors="surrogateescape")
    done = redact(text)
    return data if done == text else done.encode("utf-8", errors="surrogateescape")


def record_of(
    run: AgentRun, t: Transcript, before: Files, seconds: float, redact: Callable[[str], str]
) -> dict[str, Any]:
    start = {**before, **run.installed}
    after = run.workspace or {}
    changed: dict[str, str] = {}
    total = 0
    notes = []
    for path in sorted(after):
        if start.get(path) != after[path] and not path.startswith(".git/"):
            total += len(after[path])
            if total > CHANGED_LIMIT:
                notes.append(f"changed files over {CHANGED_LIMIT >> 20} MB were not kept")
                break
            changed[path] = base64.b64encode(redact_bytes(after[path], redact)).decode()
    deleted = sorted(p for p in before if p not in after and not p.startswith(".git/")) if run.workspace else []
    return {
        "transcript": transcript_json(t, redact),
        "diff": redact(diff(start, after)) if run.workspace is not None else "",
        "changed": changed,
        "deleted": deleted,
        "exit": run.exit,
        "stderr": redact(run.stderr[-2000:]),
        "seconds": round(seconds, 3),
        "error": run.error,
        "notes": notes,
    }


def summary_of(record: Mapping[str, Any], skill: str) -> dict[str, Any]:
    """The agent's numbers for summary.json and the reports."""
    t = record.get("transcript") or {}
    loaded = t.get("skillsLoaded") or {}
    return {
        "loaded": skill in loaded,
        "loadedTurn": loaded.get(skill),
        "turns": t.get("turns", 0),
        "toolCalls": len(t.get("toolCalls") or ()),
        "inputTokens": t.get("inputTokens"),
        "outputTokens": t.get("outputTokens"),
        "costUsd": t.get("costUsd"),
        "seconds": record.get("seconds"),
        "exit": record.get("exit"),
        "skillsOffered": t.get("skillsOffered"),
    }


def composite(record: Mapping[str, Any]) -> str:
    """What the judge reads: the final message, the tool calls and the workspace diff, each bounded."""
    t = record.get("transcript") or {}
    calls = [
        f"{i}. {c['name']} {c['arguments']}" + (" -> error" if c.get("isError") else "")
        for i, c in enumerate(t.get("toolCalls") or (), 1)
    ]
    return (
        "Final message:\n"
        + cut(t.get("finalMessage") or "(none)", JUDGE_MESSAGE, "final message")
        + f"\n\nTool calls ({len(calls)}):\n"
        + cut("\n".join(calls) or "(none)", JUDGE_CALLS, "tool calls")
        + "\n\nWorkspace diff:\n"
        + cut(record.get("diff") or "(no changes)", JUDGE_DIFF, "diff")
        + "\n"
    )


def after_files(before: Files, record: Mapping[str, Any]) -> Files:
    """The finished workspace: the start files with the record's changes applied."""
    after = dict(before)
    for path, b64 in (record.get("changed") or {}).items():
        after[path] = base64.b64decode(b64)
    for path in record.get("deleted") or ():
        after.pop(path, None)
    return after
