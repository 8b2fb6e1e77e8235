"""Prompt caching without a server: where the engine says the repeating parts end, how the
`anthropic` adapter cuts and marks the message there (never changing its text), the models' minimum,
the `promptCaching` switch, `openai`'s key and cached tokens, the prices, and the response cache
keeping the cached counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_be.adapters.anthropic_api import AnthropicAdapter, content
from skill_be.adapters.base import AdapterEnv, Answer, CallContext, Usage
from skill_be.adapters.openai_api import OpenAIAdapter, usage_of
from skill_be.engine.pricing import Tokens
from skill_be.engine.prompts import WITH_SKILL, grader_prompt, grader_stable, model_prompt, model_stable
from skill_be.errors import ConfigError
from skill_be.project.attachments import Attachment
from skill_be.project.config import DEFAULT_WITH_SKILL_TEMPLATE, AdapterEntry, Price
from skill_be.project.evals import Scenario
from skill_be.project.where import Where
from skill_be.results.response_cache import ResponseCache

LONG = "Use `allocate` to split an amount into parts without losing a cent.\n" * 90  # about 1,500 tokens
MARK = {"type": "ephemeral"}


def scenario(prompt: str = "Split a bill.") -> Scenario:
    return Scenario(id="s", prompt=prompt, critical=False, criteria=("Uses allocate",), output=None)


def entry(adapter: str, model: str, **settings: object) -> AdapterEntry:
    where = Where("skill-be.yaml", "model")
    return AdapterEntry(adapter, model, {"adapter": adapter, "id": model, **settings}, where)


def anthropic(model: str = "claude-sonnet-4-5", **settings: object) -> AnthropicAdapter:
    return AnthropicAdapter(entry("anthropic", model, **settings), AdapterEnv(Path("."), {}))


def ctx(*stable: int) -> CallContext:
    return CallContext(30, Path("."), stable=stable)


def joined(blocks: object) -> str:
    assert isinstance(blocks, list)
    return "".join(str(b["text"]) for b in blocks if b["type"] == "text")


def test_the_with_skill_prefix_ends_where_the_task_begins() -> None:
    prompt = model_prompt(scenario(), WITH_SKILL, LONG, DEFAULT_WITH_SKILL_TEMPLATE)
    (cut,) = model_stable(WITH_SKILL, LONG, DEFAULT_WITH_SKILL_TEMPLATE)
    assert prompt[:cut].endswith("--- END LIBRARY DOCS ---\n\nTask: ") and prompt[cut:] == "Split a bill."
    assert model_stable("baseline", LONG, DEFAULT_WITH_SKILL_TEMPLATE) == ()
    # a {{task}} written inside the skill text is the skill's, and the task goes in the template's place
    odd = "See {{task}} below.\n" + LONG
    (cut,) = model_stable(WITH_SKILL, odd, DEFAULT_WITH_SKILL_TEMPLATE)
    assert model_prompt(scenario(), WITH_SKILL, odd, DEFAULT_WITH_SKILL_TEMPLATE)[cut:] == "Split a bill."
    # a template with the task first: only the words before it are stable
    first = "Task: {{task}}\n\n{{skill}}"
    assert model_stable(WITH_SKILL, LONG, first) == (len("Task: "),)


def test_the_grader_prefixes_are_the_rules_then_the_criteria() -> None:
    rules = "Judge strictly.\n" * 10
    prompt = grader_prompt(rules, ["Uses allocate", "Rounds"], "the answer", "an example")
    a, b = grader_stable(rules, ["Uses allocate", "Rounds"], "an example")
    assert prompt[:a] == rules.strip() + "\n\n" and prompt[a:b].startswith("Criteria:\n1. Uses allocate")
    assert prompt[b:].startswith("<answer>\nthe answer\n</answer>")


def test_the_message_is_cut_and_marked_at_each_long_enough_prefix_and_its_text_is_the_prompt() -> None:
    rules = "Rule: judge each criterion on its own.\n" * 120  # about 1,200 tokens
    prompt = grader_prompt(rules, ["Uses allocate"], "the answer")
    stable = grader_stable(rules, ["Uses allocate"])
    a = anthropic()
    marks = a.breakpoints(prompt, ctx(*stable))
    assert marks == stable
    blocks = content(prompt, (), marks)
    assert joined(blocks) == prompt  # byte for byte
    assert isinstance(blocks, list) and [b.get("cache_control") for b in blocks] == [MARK, MARK, None]
    # short of the minimum (here the rules alone fit, nothing shorter is marked)
    assert a.breakpoints(prompt, ctx(100, *stable)) == stable
    assert a.breakpoints("short prompt", ctx(5)) == ()


def test_a_haiku_model_needs_2048_tokens_before_a_marker() -> None:
    prompt = model_prompt(scenario(), WITH_SKILL, LONG, DEFAULT_WITH_SKILL_TEMPLATE)
    stable = model_stable(WITH_SKILL, LONG, DEFAULT_WITH_SKILL_TEMPLATE)
    assert 1024 <= (stable[0] + 3) // 4 < 2048
    assert anthropic("claude-sonnet-4-5").breakpoints(prompt, ctx(*stable)) == stable
    assert anthropic("claude-haiku-4-5").breakpoints(prompt, ctx(*stable)) == ()  # control: too short for Haiku
    longer = LONG * 2
    p2 = model_prompt(scenario(), WITH_SKILL, longer, DEFAULT_WITH_SKILL_TEMPLATE)
    s2 = model_stable(WITH_SKILL, longer, DEFAULT_WITH_SKILL_TEMPLATE)
    assert anthropic("claude-haiku-4-5").breakpoints(p2, ctx(*s2)) == s2


def test_off_the_message_is_the_prompt_as_a_string_and_the_entry_says_so() -> None:
    prompt = model_prompt(scenario(), WITH_SKILL, LONG, DEFAULT_WITH_SKILL_TEMPLATE)
    stable = model_stable(WITH_SKILL, LONG, DEFAULT_WITH_SKILL_TEMPLATE)
    off = anthropic(promptCaching=False)
    assert off.breakpoints(prompt, ctx(*stable)) == () and content(prompt, (), ()) == prompt
    assert off.describe()["promptCaching"] is False and "promptCaching" not in anthropic().describe()
    with pytest.raises(ConfigError, match=r"model.promptCaching: must be true or false, not"):
        anthropic(promptCaching="no")


def test_attachments_come_first_and_the_text_blocks_still_join_to_the_prompt() -> None:
    image = Attachment("a.png", "image/png", b"\x89PNG")
    prompt = "x" * 5000 + "the task"
    blocks = content(prompt, (image,), (5000,))
    assert isinstance(blocks, list) and blocks[0]["type"] == "image"
    assert joined(blocks) == prompt and blocks[1]["cache_control"] == MARK and "cache_control" not in blocks[2]
    assert content(prompt, (image,), ())[1:] == [{"type": "text", "text": prompt}]  # as before caching


def test_anthropic_usage_sums_the_three_counts_and_keeps_the_cache_apart() -> None:
    data = {"input_tokens": 20, "cache_creation_input_tokens": 1500, "cache_read_input_tokens": 0, "output_tokens": 9}
    assert anthropic()._usage({"usage": data}) == Usage(1520, 9, 1500, 0)


def test_openai_sends_a_cache_key_to_openai_by_default_and_elsewhere_only_when_asked() -> None:
    env = AdapterEnv(Path("."), {})
    assert OpenAIAdapter(entry("openai", "gpt-4.1"), env).prompt_caching is True  # api.openai.com
    local = entry("openai", "m", baseUrl="http://127.0.0.1:9/v1")
    assert OpenAIAdapter(local, env).prompt_caching is False
    assert OpenAIAdapter(local._replace(settings={**local.settings, "promptCaching": True}), env).prompt_caching
    usage = usage_of({"usage": {"prompt_tokens": 2000, "completion_tokens": 5,
                                "prompt_tokens_details": {"cached_tokens": 1792}}})  # fmt: skip
    assert usage == Usage(2000, 5, 0, 1792)
    assert usage_of({"usage": {"prompt_tokens": 3, "completion_tokens": 5}}) == Usage(3, 5)


def test_the_cache_prices_default_to_the_input_price() -> None:
    assert Price(3, 15).dollars(1000, 100, 600, 300) == pytest.approx((1000 * 3 + 100 * 15) / 1e6)
    priced = Price(3, 15, 3.75, 0.3)
    assert priced.dollars(1000, 100, 600, 300) == pytest.approx((100 * 3 + 600 * 3.75 + 300 * 0.3 + 1500) / 1e6)
    t = Tokens()
    t.add(1000, 100, 600, 300)
    assert t.cost(priced) == priced.dollars(1000, 100, 600, 300)


def test_the_response_cache_keeps_the_cached_counts_and_reads_old_entries(tmp_path: Path) -> None:
    key1, key2 = "a" * 64, "b" * 64
    cache = ResponseCache(tmp_path, lambda line: None)
    cache.put(key1, Answer("a", Usage(1520, 9, 1500, 0)))
    cache.put(key2, Answer("b", Usage(12, 34)))
    assert cache.get(key1, "s") == Answer("a", Usage(1520, 9, 1500, 0))
    assert cache.get(key2, "s") == Answer("b", Usage(12, 34))
    # an entry without cached counts is written as before them, so older entries read the same
    assert '"usage": {"input": 12, "output": 34}' in cache.path(key2).read_text()
    assert '"usage": {"input": 1520, "output": 9, "cacheWrite": 1500}' in cache.path(key1).read_text()


def test_promptcaching_is_a_key_of_anthropic_and_openai_only() -> None:
    from skill_be.adapters.gemini_api import GeminiAdapter

    env = AdapterEnv(Path("."), {})
    with pytest.raises(ConfigError, match=r"promptCaching"):
        GeminiAdapter(entry("gemini", "gemini-2.5-flash", promptCaching=False), env)
    assert GeminiAdapter(entry("gemini", "gemini-2.5-flash"), env).prompt_caching is False  # control
