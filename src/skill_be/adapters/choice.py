"""Trigger evals, the adapters' side: which of the offered skills would the model load for a query?

An adapter that can offer skills the way agents do implements `Chooser.choose` (the `anthropic` and
`openai` adapters: one tool per skill, name and description; the first reply's tool call is the
choice, never its text). Every other adapter is asked through `complete` with the documented
block below, and answers with the name of the skill it would load, or `none`, on its first line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from skill_be.adapters.base import Adapter, CallContext, CallError, Usage

NONE_WORD = "none"
# Tool names both APIs accept; a skill name outside it is offered under a cleaned name.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

CHOICE_PROMPT = """skill-be trigger eval. An agent has the skills below. Each is offered by its name and its
description, as an agent presents them. Read the user's request and decide which one skill, if
any, you would load before answering it.

<available_skills>
{skills}
</available_skills>

<user_request>
{query}
</user_request>

Reply with the name of the one skill you would load, exactly as written in <name>, or the word
none when no skill fits. Put it alone on the first line."""

SKILL_ENTRY = "<skill>\n<name>{name}</name>\n<description>{description}</description>\n</skill>"


@dataclass(frozen=True)
class Offered:
    """A skill offered in a trigger call: its name (front matter `name`, else its folder) and description."""

    name: str
    description: str


@dataclass(frozen=True)
class Choice:
    """What the model chose: an offered skill's name, or None for no skill."""

    name: str | None
    usage: Usage | None = None
    reply: str = ""  # the reply's text, or the tool call, as received (for the record)


@runtime_checkable
class Chooser(Protocol):
    """An adapter that offers skills natively (as tools) in a trigger call."""

    async def choose(self, query: str, offered: Sequence[Offered], ctx: CallContext) -> Choice:
        """One request: the query as the user's message, the skills offered; the first reply's choice.
        Raise CallError for a failed call."""
        ...


def choice_prompt(query: str, offered: Sequence[Offered]) -> str:
    """The documented block every adapter without `choose` receives (and the cache key's text)."""
    skills = "\n".join(SKILL_ENTRY.format(name=o.name, description=o.description) for o in offered)
    return CHOICE_PROMPT.format(skills=skills, query=query)


def read_choice(text: str, offered: Sequence[Offered]) -> str | None:
    """The skill an adapter's reply names on its first non-empty line (None for `none`); a reply that
    names neither is a CallError: an unreadable reply is not evidence that no skill was chosen."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    word = first.strip().strip("`'\"*.").strip()
    if word.lower() == NONE_WORD:
        return None
    for o in offered:
        if word == o.name or word.lower() == o.name.lower():
            return o.name
    names = ", ".join(o.name for o in offered)
    raise CallError(
        f'the reply\'s first line "{first.strip()[:80]}" names no offered skill ({names}) and is not "none"'
    )


async def choose_by_prompt(adapter: Adapter, query: str, offered: Sequence[Offered], ctx: CallContext) -> Choice:
    answer = await adapter.complete(choice_prompt(query, offered), ctx)
    return Choice(read_choice(answer.text, offered), answer.usage, answer.text)


def tool_names(offered: Sequence[Offered]) -> dict[str, str]:
    """Tool name -> skill name; a name the APIs would refuse is cleaned, and kept apart from the others."""
    out: dict[str, str] = {}
    for o in offered:
        name = o.name if _TOOL_NAME.match(o.name) else (re.sub(r"[^A-Za-z0-9_-]", "_", o.name)[:60] or "skill")
        base, n = name, 2
        while name in out:
            name = f"{base[:60]}_{n}"
            n += 1
        out[name] = o.name
    return out


def descriptions(offered: Sequence[Offered]) -> Mapping[str, str]:
    return {o.name: o.description for o in offered}
