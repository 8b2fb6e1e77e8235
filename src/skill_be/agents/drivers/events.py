"""What the three drivers' parsers share: reading a JSON-lines event stream, bounding tool results, and
building a Transcript one event at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from skill_be.adapters.base import Usage
from skill_be.agents.drivers.base import AgentSetup, SkillToInstall, ToolCall, Transcript

# The PATH a launch gets unless the caller names another: skill-be's image keeps the CLIs in
# /opt/agent-clis/bin (the Dockerfile), and python3, git and rg in the system folders.
DEFAULT_PATH = "/opt/agent-clis/bin:/usr/local/bin:/usr/bin:/bin"
RESULT_LIMIT = 2000  # characters of a tool result kept in the transcript
CUT_NOTE = "\n[... {n} more characters cut by skill-be]"


def events(stdout: str) -> Iterator[dict[str, object]]:
    """Every JSON object on its own line; other lines (warnings, a half-written last line) are skipped."""
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            yield data


def bounded(text: str, limit: int = RESULT_LIMIT) -> str:
    """`text` cut to `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + CUT_NOTE.format(n=len(text) - limit)


def text_of(content: object) -> str:
    """The text of a message or tool-result content: a string, or a list of blocks with `text`."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(c.get("text")) if isinstance(c, dict) else text_of(c) for c in content)
    return ""


def as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def as_int(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def skill_file_read(path: object, skills: Sequence[SkillToInstall]) -> str | None:
    """The skill whose SKILL.md `path` is (a path ending in `<name>/SKILL.md` of an installed skill)."""
    if not isinstance(path, str) or not path:
        return None
    parts = PurePosixPath(path).parts
    if len(parts) < 2 or parts[-1] != "SKILL.md":
        return None
    return next((s.name for s in skills if s.name == parts[-2]), None)


@dataclass
class TranscriptBuilder:
    """Collects a run's events; `build()` gives the Transcript."""

    setup: AgentSetup
    turns: int = 0
    calls: list[ToolCall] = field(default_factory=list)
    by_id: dict[str, int] = field(default_factory=dict)  # tool call id -> index in calls
    texts: list[str] = field(default_factory=list)  # the text of the latest assistant message
    loaded: dict[str, int] = field(default_factory=dict)
    offered: list[str] | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    final: str | None = None
    error: str | None = None

    def call(self, call_id: str, name: str, arguments: Mapping[str, object]) -> None:
        self.by_id[call_id] = len(self.calls)
        self.calls.append(ToolCall(name=name, arguments=dict(arguments), turn=self.turns))

    def result(self, call_id: str, text: str, is_error: bool) -> None:
        i = self.by_id.get(call_id)
        if i is None:
            return
        old = self.calls[i]
        self.calls[i] = ToolCall(old.name, old.arguments, bounded(text), is_error, old.turn)

    def mark_loaded(self, name: str, turn: int) -> None:
        self.loaded.setdefault(name, turn)

    def add_usage(self, usage: Usage) -> None:
        self.usage += usage

    def fail(self, message: str) -> None:
        if self.error is None:
            self.error = message

    def build(self) -> Transcript:
        final = self.final if self.final is not None else "\n".join(t for t in self.texts if t.strip())
        return Transcript(
            final_message=final.strip(),
            turns=self.turns,
            tool_calls=tuple(self.calls),
            skills_offered=None if self.offered is None else tuple(self.offered),
            skills_loaded=dict(self.loaded),
            input_tokens=self.usage.input_tokens,
            output_tokens=self.usage.output_tokens,
            cost_usd=self.cost_usd,
            error=self.error,
            cache_write_tokens=self.usage.cache_write_tokens,
            cache_read_tokens=self.usage.cache_read_tokens,
        )


def skill_files(root: PurePosixPath, skills: Sequence[SkillToInstall]) -> dict[PurePosixPath, bytes]:
    """Each skill's files under `root/<name>/`; a path that would leave its folder is refused."""
    out: dict[PurePosixPath, bytes] = {}
    for skill in skills:
        base = root / skill.name
        if not skill.name or "/" in skill.name or skill.name in (".", ".."):
            raise ValueError(f'skill name "{skill.name}" cannot be a folder name')
        for rel, content in skill.files.items():
            p = PurePosixPath(rel)
            if p.is_absolute() or ".." in p.parts:
                raise ValueError(f'skill "{skill.name}": file path "{rel}" leaves the skill folder')
            out[base / p] = content
    return out


def chosen_tools(setup: AgentSetup, default: Sequence[str], always: str) -> list[str]:
    """The tools the scenario allows (`agent.tools`, else the driver's default), without `always` (the
    skill tool), which each driver adds where its CLI wants it."""
    chosen = list(setup.tools) if setup.tools is not None else list(default)
    return [t for t in chosen if t != always]
