"""`skill-be init --draft`: the config's first model drafts an eval file from the skill's name and
description. The body of SKILL.md never reaches the prompt, so the drafted tasks and criteria
cannot carry the skill's own answers (the way skillcheck keeps its generator blind)."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from skill_be.project.config import Config
from skill_be.project.evals import valid_file_name
from skill_be.project.skills import SkillDoc

DRAFT_PROMPT = """You write evaluation scenarios for an Agent Skill. You see only its name and description, never its text, so that your tasks cannot contain its answers.

Skill name: {name}
Description: {description}

Write 3 tasks a user could give a model where this skill should make the answer better, each with 2 to 4 criteria that a grader can answer with YES or NO by reading the answer. Mark as critical the tasks the skill must never make worse. Then write 5 trigger queries: requests that should make an agent choose this skill.

Reply with one JSON object and nothing else, in this shape:
{{"scenarios": [{{"id": "a-kebab-case-id", "prompt": "the task", "critical": true, "criteria": ["..."]}}], "triggers": ["..."]}}"""


def draft_prompt(name: str, doc: SkillDoc) -> str:
    """The generator's prompt: the name and description, nothing of the body."""
    return DRAFT_PROMPT.format(name=doc.name or name, description=(doc.description or "").strip())


def read_draft(reply: str, name: str, model: str) -> dict[str, object]:
    """The eval file from the model's reply; ValueError naming what is wrong."""
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end < start:
        raise ValueError("the reply holds no JSON object")
    doc: Any = json.loads(reply[start : end + 1])
    scenarios = []
    for i, sc in enumerate(doc.get("scenarios") or []):
        sid, prompt, criteria = sc.get("id"), sc.get("prompt"), sc.get("criteria")
        if not (isinstance(sid, str) and valid_file_name(sid) and isinstance(prompt, str) and prompt.strip()):
            raise ValueError(f"scenario {i + 1} has no usable id and prompt")
        if not (isinstance(criteria, list) and criteria and all(isinstance(c, str) and c.strip() for c in criteria)):
            raise ValueError(f"scenario {sid} has no criteria")
        scenarios.append({"id": sid, "prompt": prompt, "critical": sc.get("critical") is True, "criteria": criteria})
    if not scenarios:
        raise ValueError("the reply has no scenarios")
    triggers = [t for t in doc.get("triggers") or [] if isinstance(t, str)]
    comment = (
        f"Drafted by skill-be init with {model} from the name and description of SKILL.md only (never its body). "
        "Review each scenario and criterion before you trust a verdict. Trigger queries, requests that should "
        "make an agent choose this skill: " + (" | ".join(triggers) or "none drafted")
    )
    return {"$comment": comment, "skill": name, "scenarios": scenarios}


def draft_eval(config: Config, name: str, doc: SkillDoc) -> tuple[dict[str, object] | None, str]:
    """The drafted eval file, or None and why not (the caller writes the template then)."""
    if not (doc.description or "").strip():
        return None, "SKILL.md has no description, and the draft sees only the description"
    try:
        reply = asyncio.run(_call(config, draft_prompt(name, doc)))
        return read_draft(reply, name, config.models[0].id), ""
    except (ValueError, TimeoutError) as e:
        return None, str(e) or type(e).__name__
    except Exception as e:  # a failed call is the draft's failure, reported in one line
        return None, f"{type(e).__name__}: {e}"


async def _call(config: Config, prompt: str) -> str:
    """One call of the config's first model, through the engine's one path to a model
    (`Engine.call`: the per-call timeout, the key redacted from a failure), its adapter closed after."""
    from skill_be.adapters.base import AdapterEnv
    from skill_be.adapters.credentials import Redactor
    from skill_be.adapters.registry import AdapterRegistry
    from skill_be.engine.calls import CallTag, Model
    from skill_be.engine.limiter import PriorityLimiter
    from skill_be.engine.runner import Engine
    from skill_be.wiring.assembly import close_adapters, engine_settings, preflight

    entry = config.models[0]
    redactor = Redactor()
    env = AdapterEnv(root=config.root, environ=dict(os.environ), redactor=redactor, label=entry.id)
    model = Model(entry.id, AdapterRegistry().create(entry, env))
    try:
        await preflight([entry], [model], env)
        engine = Engine([model], None, PriorityLimiter(1), engine_settings(config), redact=redactor)
        call = await engine.call(model, prompt, (0,), CallTag("draft"))
    finally:
        await close_adapters([model])
    if call.answer is None:
        raise ValueError(call.error or "the model gave no answer")
    return call.answer.text
