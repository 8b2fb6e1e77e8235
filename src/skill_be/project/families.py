"""Which provider family a configured model belongs to, read from its adapter and id: a judge tends
to favour answers of its own family, so `run` warns when the judge and a model under test share one.
None where the entry does not say (a `command` script, an OpenAI-compatible server with a local id)."""

from __future__ import annotations

import re

from skill_be.project.config import AdapterEntry

# (the family, a pattern of the model id); the first match wins
_BY_ID = (
    ("Anthropic", r"claude|anthropic|opus|sonnet|haiku"),
    ("OpenAI", r"\bgpt|openai|\bo[1345](\b|-)|codex|chatgpt"),
    ("Google", r"gemini|gemma|google"),
    ("Meta", r"llama"),
    ("Mistral", r"mistral|mixtral|codestral|magistral"),
    ("Alibaba", r"qwen"),
    ("DeepSeek", r"deepseek"),
    ("xAI", r"grok|xai"),
)
# adapters that only speak to one family (an agent CLI's model ids, sonnet or claude-..., match by id)
_BY_ADAPTER = {"anthropic": "Anthropic", "gemini": "Google"}


def family(entry: AdapterEntry) -> str | None:
    for name, pattern in _BY_ID:
        if re.search(pattern, entry.id, re.IGNORECASE):
            return name
    return _BY_ADAPTER.get(entry.adapter)


def same_family(judges: tuple[AdapterEntry, ...], models: tuple[AdapterEntry, ...]) -> list[tuple[str, str, str]]:
    """(judge id, model id, family) for each judge and model under test of one family."""
    out = []
    for j in judges:
        fj = family(j)
        out += [(j.id, m.id, fj) for m in models if fj is not None and family(m) == fj]
    return out
