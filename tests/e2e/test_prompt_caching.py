"""Prompt caching, as a user runs it: `skill-be run` of 1 skill x 5 scenarios x 5 reps against a
scripted server that accounts for caching as the providers document it (tests/support/caching_server.py).
The with-skill arm's skill text is sent marked and written once, then read; the cost line prices the
cached tokens as computed here by hand; with caching off (the control) no marker is sent and every call
pays the full input price; the prompt text of every call is the same either way. The OpenAI side:
`prompt_cache_key` per (skill, arm, role), `cached_tokens` read into the usage and the cost."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.e2e.run.helpers import Result, project, run
from tests.support.caching_server import OUTPUT_TOKENS, CachingServer, text_of, tokens

KEY = {"CACHING_E2E_KEY": "sk-caching-e2e-1234"}
SKILL_TEXT = "# Money\n\n" + "Use `allocate` to split an amount into parts without losing a cent.\n" * 90
SCENARIOS = [{"id": f"s{i}", "prompt": f"Split bill number {i} three ways.", "criteria": ["Uses allocate"]} for i in range(1, 6)]  # fmt: skip
REPS = 5
SONNET = {"input": 3, "output": 15, "cacheWrite": 3.75, "cacheRead": 0.3}
HEAD = "You have access to the following library. Use its APIs when writing the code.\n\n--- LIBRARY DOCS ---\n"


@pytest.fixture(scope="module")
def server() -> Iterator[CachingServer]:
    s = CachingServer()
    yield s
    s.stop()


def anthropic_run(root: Path, server: CachingServer, **extra: object) -> tuple[Result, list[dict[str, Any]]]:
    server.reset()
    model = {"adapter": "anthropic", "id": "claude-sonnet-4-5", "baseUrl": server.base_url,
             "apiKeyEnv": "CACHING_E2E_KEY", **extra}  # fmt: skip
    config = {"model": model, "reps": REPS, "pricing": {"claude-sonnet-4-5": SONNET}}
    r = run(project(root, skills={"money": SCENARIOS}, config=config, skill_text=SKILL_TEXT), "run", env=KEY)
    assert r.code == 0, r.stdout + r.stderr
    return r, server.calls()


def with_skill(call: dict[str, Any]) -> bool:
    return "--- LIBRARY DOCS ---" in text_of(call["body"])


def money(amount: float) -> str:
    return f"${amount:,.4f}" if amount < 1 else f"${amount:,.2f}"


def test_the_skill_text_is_written_once_and_read_after_and_the_cost_line_prices_it(
    tmp_path: Path, server: CachingServer
) -> None:
    r, calls = anthropic_run(tmp_path, server)
    skilled = [c for c in calls if with_skill(c)]
    plain = [c for c in calls if not with_skill(c)]
    assert len(skilled) == len(plain) == len(SCENARIOS) * REPS
    # The with-skill prompt: a marked block up to the task, then the task; the baseline: the task alone.
    doc = (tmp_path / "skills" / "money" / "SKILL.md").read_text()
    prefix = f"{HEAD}{doc}\n--- END LIBRARY DOCS ---\n\nTask: "
    for c in skilled:
        first, rest = c["body"]["messages"][0]["content"]
        assert first == {"type": "text", "text": prefix, "cache_control": {"type": "ephemeral"}}
        assert rest["type"] == "text" and "cache_control" not in rest and rest["text"].startswith("Split bill number")
    assert all(isinstance(c["body"]["messages"][0]["content"], str) for c in plain)
    # One write, the rest reads, for the one (skill, model); the baseline never touches the cache.
    t_prefix = tokens(prefix)
    assert t_prefix >= 1024
    writes = [c["usage"]["cache_creation_input_tokens"] for c in skilled]
    reads = [c["usage"]["cache_read_input_tokens"] for c in skilled]
    assert Counter(writes) == {t_prefix: 1, 0: REPS * len(SCENARIOS) - 1}
    assert Counter(reads) == {0: 1, t_prefix: REPS * len(SCENARIOS) - 1}
    assert all(c["usage"]["cache_creation_input_tokens"] == c["usage"]["cache_read_input_tokens"] == 0 for c in plain)
    # The cost, by hand: each call's full token count from its prompt, the prefix priced apart.
    full = sum(tokens(text_of(c["body"])) for c in skilled)
    n = len(skilled)
    by_hand = ((full - n * t_prefix) * 3 + t_prefix * 3.75 + (n - 1) * t_prefix * 0.3 + n * OUTPUT_TOKENS * 15) / 1e6
    base = sum(tokens(text_of(c["body"])) * 3 + OUTPUT_TOKENS * 15 for c in plain) / 1e6
    cost = r.summary()["skills"]["money"]["cost"]
    assert cost["withSkill"] == pytest.approx(by_hand, abs=1e-6) and cost["baseline"] == pytest.approx(base, abs=1e-6)
    line = next(x for x in r.stdout.splitlines() if x.startswith("Cost (pricing in skill-be.yaml): baseline $"))
    assert f", with skill {money(by_hand)} (+" in line
    tokens_doc = r.summary()["skills"]["money"]["tokens"]
    assert tokens_doc["withSkill"] == {
        "input": full,
        "output": n * OUTPUT_TOKENS,
        "cacheWrite": t_prefix,
        "cacheRead": (n - 1) * t_prefix,
    }
    assert tokens_doc["baseline"] == {"input": sum(tokens(text_of(c["body"])) for c in plain), "output": n * 10}
    assert f"({(n - 1) * t_prefix:,} read from the prompt cache, {t_prefix:,} written to it)" in r.stdout
    report = (r.run_dir() / "money.md").read_text()
    assert "Of the input, from the prompt cache (mean): with skill" in report
    outputs = r.summary()["skills"]["money"]["scenarios"][0]["models"]["claude-sonnet-4-5"]["outputs"]
    assert any(o["usage"].get("cacheRead") == t_prefix for o in outputs if o["arm"] == "with-skill")
    from skill_be.project import fastcheck

    assert fastcheck.conforms("summary", r.summary())
    assert KEY["CACHING_E2E_KEY"] not in r.stdout + r.stderr
    # regrade keeps each stored answer's cached counts: the same tokens and cost, no model called again
    before = len(server.calls())
    again = run(tmp_path, "regrade", env=KEY)
    assert again.code == 0, again.stdout + again.stderr
    assert len(server.calls()) == before
    assert again.summary()["skills"]["money"]["tokens"] == tokens_doc
    assert again.summary()["skills"]["money"]["cost"] == cost


def test_control_with_caching_off_no_marker_full_price_and_the_same_prompt_text(
    tmp_path: Path, server: CachingServer
) -> None:
    on, on_calls = anthropic_run(tmp_path / "on", server)
    off, off_calls = anthropic_run(tmp_path / "off", server, promptCaching=False)
    assert all(isinstance(c["body"]["messages"][0]["content"], str) for c in off_calls)  # no block, no marker
    assert all(
        c["usage"]["cache_creation_input_tokens"] == c["usage"]["cache_read_input_tokens"] == 0 for c in off_calls
    )
    # The prompt text of every call is the same with caching on as with it off.
    assert sorted(text_of(c["body"]) for c in on_calls) == sorted(
        c["body"]["messages"][0]["content"] for c in off_calls
    )
    full = sum(tokens(c["body"]["messages"][0]["content"]) for c in off_calls if with_skill(c))
    n = len(SCENARIOS) * REPS
    cost_off = off.summary()["skills"]["money"]["cost"]
    assert cost_off["withSkill"] == pytest.approx((full * 3 + n * OUTPUT_TOKENS * 15) / 1e6, abs=1e-6)
    assert cost_off["withSkill"] > on.summary()["skills"]["money"]["cost"]["withSkill"]
    # Nothing cached: the lines are as they were before prompt caching, and summary.json has no cache keys.
    assert "prompt cache" not in off.stdout and "prompt cache" not in (off.run_dir() / "money.md").read_text()
    assert set(off.summary()["skills"]["money"]["tokens"]["withSkill"]) == {"input", "output"}
    assert [o["answer"] for o in _outputs(on)] == [o["answer"] for o in _outputs(off)]  # the same answers
    assert off.summary()["models"][0]["promptCaching"] is False and "promptCaching" not in on.summary()["models"][0]


def _outputs(r: Result) -> list[dict[str, Any]]:
    out = []
    for sc in r.summary()["skills"]["money"]["scenarios"]:
        for o in sc["models"]["claude-sonnet-4-5"]["outputs"]:
            file = o["file"]
            out.append(
                {"key": (sc["id"], o["rep"], o["arm"]), "answer": (r.run_dir() / file).read_text() if file else None}
            )
    return sorted(out, key=lambda x: x["key"])


def test_openai_a_cache_key_per_skill_arm_and_role_and_the_cached_tokens_priced(
    tmp_path: Path, server: CachingServer
) -> None:
    server.reset()
    common = {
        "adapter": "openai",
        "baseUrl": server.base_url + "/v1",
        "apiKeyEnv": "CACHING_E2E_KEY",
        "promptCaching": True,
    }  # fmt: skip  (a local server: the key is sent only when asked)
    config = {
        "model": {**common, "id": "gpt-4.1-mini"},
        "grader": {**common, "id": "gpt-4.1"},
        "reps": REPS,
        "pricing": {
            "gpt-4.1-mini": {"input": 0.4, "output": 1.6, "cacheRead": 0.1},
            "gpt-4.1": {"input": 2, "output": 8},
        },
    }
    r = run(project(tmp_path, skills={"money": SCENARIOS}, config=config, skill_text=SKILL_TEXT), "run", env=KEY)
    assert r.code == 0, r.stdout + r.stderr
    calls = server.calls()
    n = len(SCENARIOS) * REPS
    # One key per (skill, arm, role): stable across every call of it, different from the others. A
    # generation's arm shows in its prompt; a grading's (the graded answer's arm) only in its key.
    gen_keys = Counter(
        ("--- LIBRARY DOCS ---" in text_of_openai(c), c["body"]["prompt_cache_key"])
        for c in calls
        if c["body"]["model"] == "gpt-4.1-mini"
    )
    assert sorted(gen_keys.values()) == [n, n] and {arm for arm, _ in gen_keys} == {True, False}
    grade_keys = Counter(c["body"]["prompt_cache_key"] for c in calls if c["body"]["model"] == "gpt-4.1")
    assert sorted(grade_keys.values()) == [n, n]
    assert len({k for _, k in gen_keys} | set(grade_keys)) == 4
    gens = [c for c in calls if c["body"]["model"] == "gpt-4.1-mini"]
    cached = [c["usage"]["prompt_tokens_details"]["cached_tokens"] for c in gens]
    assert sum(1 for x in cached if x) >= len(SCENARIOS) * REPS - 1  # the skill prompts after the first
    skilled = [c for c in gens if "--- LIBRARY DOCS ---" in text_of_openai(c)]
    s_in = sum(c["usage"]["prompt_tokens"] for c in skilled)
    s_cached = sum(c["usage"]["prompt_tokens_details"]["cached_tokens"] for c in skilled)
    doc = r.summary()["skills"]["money"]
    assert doc["tokens"]["withSkill"] == {"input": s_in, "output": len(skilled) * 10, "cacheRead": s_cached}
    by_hand = ((s_in - s_cached) * 0.4 + s_cached * 0.1 + len(skilled) * OUTPUT_TOKENS * 1.6) / 1e6
    assert doc["cost"]["withSkill"] == pytest.approx(by_hand, abs=1e-6)
    assert f"with skill {money(by_hand)} " in r.stdout


def text_of_openai(call: dict[str, Any]) -> str:
    content = call["body"]["messages"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def test_the_grader_rules_and_each_scenarios_criteria_are_marked_and_read_back(
    tmp_path: Path, server: CachingServer
) -> None:
    server.reset()
    rules = (
        "You are a strict evaluator.\n\nRules:\n" + "- Judge each criterion on its own, from the answer alone.\n" * 90
    )
    judge = {
        "adapter": "anthropic",
        "id": "claude-opus-4-5",
        "baseUrl": server.base_url,
        "apiKeyEnv": "CACHING_E2E_KEY",
    }
    config = {"grader": judge, "graderPrompt": rules, "reps": 2}  # the model under test: the command model
    scenarios = [{**SCENARIOS[0], "criteria": ["Uses allocate"]}, {**SCENARIOS[1], "criteria": ["Calls allocate"]}]
    r = run(project(tmp_path, skills={"money": scenarios}, config=config), "run", env=KEY)
    assert r.code in (0, 1), r.stdout + r.stderr
    gradings = server.calls()
    assert len(gradings) == 2 * 2 * 2  # 2 scenarios x 2 reps x 2 arms, one grading each
    head = rules.strip() + "\n\n"
    for c in gradings:
        first, second, rest = c["body"]["messages"][0]["content"]
        assert first == {"type": "text", "text": head, "cache_control": {"type": "ephemeral"}}
        assert second["cache_control"] == {"type": "ephemeral"} and second["text"].startswith("Criteria:\n1. ")
        assert "cache_control" not in rest and rest["text"].startswith("<answer>\n")
    # The first grading writes the rules and its criteria; the other scenario's first reads the rules
    # and writes its criteria; every other grading reads its whole prefix.
    t_rules = tokens(head)
    t_full = {c: tokens(head + f"Criteria:\n1. {c}\n\n") for c in ("Uses allocate", "Calls allocate")}
    got = sorted((c["usage"]["cache_creation_input_tokens"], c["usage"]["cache_read_input_tokens"]) for c in gradings)
    firsts = sorted([(t_full["Uses allocate"], 0), (t_full["Calls allocate"] - t_rules, t_rules)])
    others = [(0, t) for t in t_full.values() for _ in range(3)]
    assert sorted(got) == sorted([*others, *firsts]) or sorted(got) == sorted(
        [*others, (t_full["Calls allocate"], 0), (t_full["Uses allocate"] - t_rules, t_rules)]
    )


def test_the_dry_run_estimates_one_write_and_the_rest_reads_per_skill_and_model(tmp_path: Path) -> None:
    def dry(root: Path, **extra: object) -> str:
        model = {
            "adapter": "anthropic",
            "id": "claude-sonnet-4-5",
            "baseUrl": "http://127.0.0.1:9",
            "apiKeyEnv": "CACHING_E2E_KEY",
            **extra,
        }  # fmt: skip  (nothing is called)
        config = {
            "model": model,
            "reps": REPS,
            "pricing": {"claude-sonnet-4-5": SONNET, "judge": {"input": 0, "output": 0}},
        }
        r = run(
            project(root, skills={"money": SCENARIOS}, config=config, skill_text=SKILL_TEXT),
            "run",
            "--dry-run",
            env=KEY,
        )
        assert r.code == 0, r.stdout + r.stderr
        return r.stdout

    on, off = dry(tmp_path / "on"), dry(tmp_path / "off", promptCaching=False)
    doc = (tmp_path / "on" / "skills" / "money" / "SKILL.md").read_text()
    t_prefix = tokens(f"{HEAD}{doc}\n--- END LIBRARY DOCS ---\n\nTask: ")
    n = len(SCENARIOS) * REPS
    assert f"({(n - 1) * t_prefix:,} read from the prompt cache, {t_prefix:,} written to it)" in on
    assert "The prompt cache: a stable prefix" in on
    assert "prompt cache" not in off  # the control: the dry run's lines as before prompt caching
    cost = {
        k: float(x.split("Estimated cost of the calls to make: $")[1].split()[0]) for k, x in (("on", on), ("off", off))
    }
    # by hand: the skill prefix of n calls at input price without caching; with it, one write and n - 1 reads
    saved = (n * t_prefix * 3 - (t_prefix * 3.75 + (n - 1) * t_prefix * 0.3)) / 1e6
    assert cost["off"] - cost["on"] == pytest.approx(saved, abs=2e-4)
