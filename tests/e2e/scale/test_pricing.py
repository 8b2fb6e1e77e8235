"""Prices in skill-be.yaml: the dry run's estimate, and the cost per arm in the report after a run,
from the tokens an API reports (a local mock of the Anthropic API) or estimated from characters."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.e2e.run.helpers import project, run
from tests.e2e.scale.helpers import COUNTING_GRADER, COUNTING_MODEL, calls

SUPPORT = Path(__file__).parents[2] / "support" / "mock_model_server.py"
PRICES = {"m1": {"input": 3, "output": 15}, "judge": {"input": 1, "output": 5}}


@pytest.fixture
def mock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    spec = importlib.util.spec_from_file_location("mock_model_server_scale", SUPPORT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mock_model_server_scale", module)
    spec.loader.exec_module(module)
    server = module.MockServer(str(tmp_path_factory.mktemp("mock")), netns=False)
    yield server
    server.stop()


def test_the_report_prices_each_arm_from_the_tokens_the_api_reports(tmp_path: Path, mock: Any) -> None:
    mock.script(default={"kind": "text", "text": "Say hello", "input_tokens": 1000, "output_tokens": 100})
    model = {"adapter": "anthropic", "id": "m1", "baseUrl": mock.base_url, "apiKeyEnv": "SCALE_TEST_KEY"}
    skills = {"money": [{"id": "hi", "prompt": "Greet.", "criteria": ["Says hello"]}]}
    root = project(tmp_path, skills=skills, config={"model": model, "pricing": PRICES})
    r = run(root, "run", env={"SCALE_TEST_KEY": "dummy-key"})
    assert r.code == 0, r.stderr
    assert len(mock.model_calls()) == 4
    # 2 reps per arm, 1000 in and 100 out each: 2000 * $3/M + 200 * $15/M = $0.0090 per arm
    assert "Tokens of the generations: baseline 2,000 in, 200 out; with skill 2,000 in, 200 out" in r.stdout
    assert (
        "Cost (pricing in skill-be.yaml): baseline $0.0090, with skill $0.0090 (+$0.0000 for the skill text).\n"
        in r.stdout
    )
    money = r.summary()["skills"]["money"]
    assert money["tokens"] == {
        "baseline": {"input": 2000, "output": 200},
        "withSkill": {"input": 2000, "output": 200},
        "estimated": False,
    }
    assert money["cost"] == {"baseline": 0.009, "withSkill": 0.009, "skillText": 0.0}


def test_prices_with_estimated_tokens_show_what_the_skill_text_costs_and_the_dry_run_prices_the_plan(
    tmp_path: Path,
) -> None:
    root = project(
        tmp_path,
        model=COUNTING_MODEL,
        grader=COUNTING_GRADER,
        config={"pricing": PRICES, "cache": True},
        skill_text="# Money\n\n" + "Use `allocate` to split amounts without losing cents.\n" * 40,
    )
    dry = run(root, "run", "--dry-run")
    assert dry.code == 0, dry.stderr
    m = re.search(r"Estimated cost of the calls to make: \$([0-9.]+) \(m1 \$([0-9.]+), judge \$([0-9.]+)\)", dry.stdout)
    assert m, dry.stdout
    assert float(m.group(1)) == pytest.approx(float(m.group(2)) + float(m.group(3)), abs=1e-4)
    assert calls(root) == {}
    r = run(root, "run")
    assert r.code == 0, r.stderr
    money = r.summary()["skills"]["money"]
    assert money["tokens"]["estimated"] is True
    cost = money["cost"]
    assert cost["skillText"] == pytest.approx(cost["withSkill"] - cost["baseline"]) and cost["skillText"] > 0
    line = next(x for x in r.stdout.splitlines() if x.startswith("Cost (pricing in skill-be.yaml)"))
    assert "for the skill text). Tokens estimated from characters where the adapter reports none." in line
    # the config's cache: true is on: the rerun costs nothing more and the dry run says so
    again = run(root, "run", "--dry-run")
    assert (
        "the cache holds 8, 0 to make" in again.stdout
        and "Estimated cost of the calls to make: $0.0000" in again.stdout
    )


def test_a_model_without_a_price_and_a_broken_pricing_section(tmp_path: Path) -> None:
    root = project(tmp_path, config={"pricing": {"m1": {"input": 3, "output": 15}}})
    dry = run(root, "run", "--dry-run")
    assert dry.code == 0 and "Estimated cost: no price in pricing for judge; add it to price the plan" in dry.stdout
    bad = project(tmp_path / "bad", config={"pricing": {"m1": {"input": "three", "output": 15}}})
    r = run(bad, "run")
    assert r.code == 2 and "pricing.m1.input: must be a number of US dollars" in r.stderr
    assert not (bad / ".skill-be" / "results").exists()
