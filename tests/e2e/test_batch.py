"""Batch mode as a user runs it: `skill-be run --batch` against a scripted server with both providers'
batch APIs (tests/support/batch_server.py). The same summary.json as the run without batch mode;
an item that fails once is retried in the next batch, one that fails twice is an error; the batch
price in the cost line, summary.json and --dry-run; killed after submission and resumed, no item
submitted twice; the adapters without a batch API and the wrong --resume refused with exit 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.e2e.run.helpers import Result, project, run
from tests.support.batch_server import BatchServer

from skill_be.reports.strings import BATCH_DRY_RUN

KEY = {"BATCH_E2E_KEY": "sk-batch-e2e-1234"}
SCENARIOS = [{"id": f"s{i}", "prompt": f"Split bill number {i}.", "criteria": ["Uses allocate"]} for i in range(1, 4)]
REPS = 2
CALLS = len(SCENARIOS) * REPS * 2 * 2  # generations of both arms, and one grading each
PRICE = {"input": 3, "output": 15}
TIMES = ("startedAt", "seconds")
LONG_SKILL = "# Money\n\n" + "Use `allocate` to split an amount into parts without losing a cent.\n" * 90
CALLED = """
import sys
p = sys.stdin.read()
open("called.txt", "a").write("call\\n")
print("SKILLED allocate" if "LIBRARY DOCS" in p else "plain answer")
"""


@pytest.fixture
def server() -> Iterator[BatchServer]:
    s = BatchServer()
    yield s
    s.stop()


def entry(wire: str, server: BatchServer) -> dict[str, Any]:
    if wire == "anthropic":
        return {
            "adapter": "anthropic",
            "id": "claude-sonnet-4-5",
            "baseUrl": server.base_url,
            "apiKeyEnv": "BATCH_E2E_KEY",
        }
    return {"adapter": "openai", "id": "gpt-5", "baseUrl": server.base_url + "/v1", "apiKeyEnv": "BATCH_E2E_KEY",
            "promptCaching": True}  # fmt: skip


def make(root: Path, wire: str, server: BatchServer, skill_text: str | None = None, **config: Any) -> Path:
    model = entry(wire, server)
    doc = {"model": model, "grader": model, "reps": REPS, "batchPollSeconds": 0.05,
           "pricing": {model["id"]: PRICE}, **config}  # fmt: skip
    text = {"skill_text": skill_text} if skill_text else {}
    return project(root, skills={"money": SCENARIOS}, config=doc, **text)


def without_times(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: without_times(v) for k, v in doc.items() if k not in TIMES}
    if isinstance(doc, list):
        return [without_times(v) for v in doc]
    return doc


def runs(root: Path) -> set[Path]:
    folder = root / ".skill-be" / "results"
    return set(folder.iterdir()) if folder.exists() else set()


def summary_of(r: Result) -> Any:
    doc = without_times(r.summary())
    doc.pop("config", None)  # the project's own path: each run has its folder
    return doc


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_batch_run_writes_the_same_summary_as_the_run_without_batch(
    tmp_path: Path, server: BatchServer, wire: str
) -> None:
    plain = run(make(tmp_path / "plain", wire, server, LONG_SKILL), "run", env=KEY)
    assert plain.code == 0, plain.stdout + plain.stderr
    assert len(server.one_by_one) == CALLS and not server.batches
    one_by_one = list(server.one_by_one)
    batched = run(make(tmp_path / "batch", wire, server, LONG_SKILL), "run", "--batch", env=KEY)
    assert batched.code == 0, batched.stdout + batched.stderr
    assert len(server.one_by_one) == CALLS  # nothing more was sent alone
    # one batch of every generation, then one of every grading; each item once, none alone
    assert len(server.batches) == 2
    sizes = [len(b["items"]) for b in server.batches.values()]
    assert sizes == [CALLS // 2, CALLS // 2] and set(server.submitted.values()) == {1}
    # each batched body is one the adapter sent alone, byte for byte as JSON
    key = lambda b: json.dumps(b, sort_keys=True)  # noqa: E731
    in_batches = [body for b in server.batches.values() for _, body in b["items"]]
    assert sorted(map(key, in_batches)) == sorted(map(key, one_by_one))
    # prompt caching's marks travel in the batch too: the skill's text marked, the cache key sent
    mark = '"cache_control": {"type": "ephemeral"}' if wire == "anthropic" else '"prompt_cache_key": '
    assert sum(mark in json.dumps(b) for b in in_batches) >= len(SCENARIOS) * REPS
    # the same summary.json but for the price: batch mode halves the cost
    a, b = summary_of(plain), summary_of(batched)
    cost_a, cost_b = a["skills"]["money"].pop("cost"), b["skills"]["money"].pop("cost")
    assert a == b
    assert cost_b["withSkill"] == pytest.approx(cost_a["withSkill"] / 2)
    assert cost_b["baseline"] == pytest.approx(cost_a["baseline"] / 2)
    assert "[batch] " in batched.stderr and "12 submitted, 12 done, 0 failed, ended" in batched.stderr
    assert KEY["BATCH_E2E_KEY"] not in batched.stdout + batched.stderr + json.dumps(batched.summary())


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_failed_and_an_expired_item_go_again_once_then_count_as_errors(
    tmp_path: Path, server: BatchServer, wire: str
) -> None:
    plain = run(make(tmp_path / "plain", wire, server), "run", env=KEY)
    assert plain.code == 0, plain.stderr
    # once: each goes again in the next batch and the run is the same as without batch mode
    server.fail, server.times = {"bill number 1": "errored", "bill number 2": "expired"}, 1
    once = run(make(tmp_path / "once", wire, server), "run", "--batch", env=KEY)
    assert once.code == 0, once.stdout + once.stderr
    again = {cid: n for cid, n in server.submitted.items() if cid.endswith("-2")}
    assert len(again) == 2 and set(again.values()) == {1}  # each once more, under its attempt's id
    assert not [c for c in server.submitted if c.endswith("-3")]
    a, b = summary_of(plain), summary_of(once)
    a["skills"]["money"].pop("cost"), b["skills"]["money"].pop("cost")
    assert a == b
    # twice (the control): the retried items fail again and their outputs are errors
    server.failed.clear()
    server.targets.clear()
    server.times = 2
    twice = run(make(tmp_path / "twice", wire, server), "run", "--batch", env=KEY)
    outputs = [o for sc in twice.summary()["skills"]["money"]["scenarios"] for m in sc["models"].values()
               for o in m["outputs"]]  # fmt: skip
    errors = [o["error"] for o in outputs if o.get("error")]
    assert len(errors) == 2, errors
    assert any("scripted failure (in 2 batches)" in e or "errored" in e or "HTTP 500" in e for e in errors), errors
    assert any("expired" in e for e in errors), errors
    assert summary_of(twice) != summary_of(once)


def test_most_of_a_run_failing_in_its_batches_is_error_not_not_ready(tmp_path: Path, server: BatchServer) -> None:
    server.fail, server.times, server.every = {"Split bill": "expired"}, 2, True  # every generation, twice
    r = run(make(tmp_path, "anthropic", server), "run", "--batch", env=KEY)
    assert r.code == 3, r.stdout + r.stderr
    assert "  money: ERROR" in r.stdout and "  money: NOT READY" not in r.stdout
    # control: failing once is retried and measured
    server.failed.clear()
    server.times = 1
    ok = run(make(tmp_path / "ok", "anthropic", server), "run", "--batch", env=KEY)
    assert ok.code == 0 and "  money: READY" in ok.stdout, ok.stderr


def test_the_dry_run_prices_the_batch(tmp_path: Path, server: BatchServer) -> None:
    root = make(tmp_path, "anthropic", server)
    full = run(root, "run", "--dry-run", env=KEY)
    half = run(root, "run", "--dry-run", "--batch", env=KEY)
    assert full.code == half.code == 0, full.stderr + half.stderr

    def cost(r: Result) -> float:
        return float(next(x for x in r.stdout.splitlines() if x.startswith("Estimated cost")).split("$")[1].split()[0])

    assert cost(half) == pytest.approx(cost(full) / 2, rel=0.01)
    assert BATCH_DRY_RUN in half.stdout.splitlines() and BATCH_DRY_RUN not in full.stdout
    # control: batchDiscount 0 gives the full price
    zero = make(tmp_path / "zero", "anthropic", server, pricing={"claude-sonnet-4-5": {**PRICE, "batchDiscount": 0}})
    assert cost(run(zero, "run", "--dry-run", "--batch", env=KEY)) == pytest.approx(cost(full))
    assert not server.batches and not server.one_by_one


def journal_batches(folder: Path) -> list[dict[str, Any]]:
    try:
        return list(json.loads((folder / "batches.json").read_text())["batches"])
    except (OSError, ValueError, KeyError):
        return []


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_killed_after_submission_and_resumed_no_item_is_submitted_twice(
    tmp_path: Path, server: BatchServer, wire: str
) -> None:
    plain = run(make(tmp_path / "plain", wire, server), "run", env=KEY)
    root = make(tmp_path / "batch", wire, server)
    server.hold.set()  # no batch ends until the run is killed
    env = {**os.environ, "NO_COLOR": "1", **KEY}
    env.pop("CI", None)
    child = subprocess.Popen([sys.executable, "-m", "skill_be", "run", "--batch"], cwd=root, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 60
    folder = None
    while time.monotonic() < deadline and folder is None:
        folder = next((f for f in runs(root) if journal_batches(f)), None)
        time.sleep(0.05)
    assert folder is not None, "no batch was journaled"
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 143, out + err
    assert len(server.batches) == 1 and sum(server.submitted.values()) == CALLS // 2
    assert (folder / "batches.json").is_file()
    server.hold.clear()
    resumed = run(root, "run", "--resume", str(folder), env=KEY)
    assert resumed.code == 0, resumed.stdout + resumed.stderr
    assert "(fetched from an earlier run)" in resumed.stderr
    assert set(server.submitted.values()) == {1} and sum(server.submitted.values()) == CALLS
    assert len(server.batches) == 2  # the generations' batch fetched, the gradings' submitted
    assert (folder / "summary.json").is_file() and runs(root) == {folder}
    a, b = summary_of(plain), summary_of(resumed)
    a["skills"]["money"].pop("cost"), b["skills"]["money"].pop("cost")
    assert a == b
    # control: a fresh batch run of the same project pays for every item again
    again = run(root, "run", "--batch", env=KEY)
    assert again.code == 0 and max(server.submitted.values()) == 2


@pytest.mark.parametrize("adapter", ["command", "gemini"])
def test_an_adapter_without_a_batch_api_refuses_batch_before_any_call(tmp_path: Path, adapter: str) -> None:
    model = (
        {"adapter": "command", "id": "m1", "run": f"{sys.executable} model.py"}
        if adapter == "command"
        else {
            "adapter": "gemini",
            "id": "gemini-2.5-pro",
            "apiKeyEnv": "BATCH_E2E_KEY",
            "baseUrl": "http://127.0.0.1:9",
        }
    )
    root = project(
        tmp_path,
        skills={"money": SCENARIOS},
        config={"model": model, **({"grader": model} if adapter == "gemini" else {})},
        model=CALLED,
    )
    before = runs(root)
    r = run(root, "run", "--batch", env=KEY)
    assert r.code == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"model {model['id']} (adapter {adapter}) has no provider batch API" in lines[0], lines
    assert runs(root) == before and not (root / "called.txt").exists()
    cfg = root / "skill-be.yaml"
    cfg.write_text(cfg.read_text() + "batch: true\n")
    assert run(root, "run", env=KEY).code == 2  # the config key is refused the same way
    if adapter == "command":  # control: without batch mode the same project runs
        cfg.write_text(cfg.read_text().replace("batch: true\n", ""))
        assert run(root, "run", env=KEY).code == 0
        assert (root / "called.txt").exists()


def test_resume_refuses_a_shard_and_a_folder_without_a_journal(tmp_path: Path, server: BatchServer) -> None:
    root = make(tmp_path, "anthropic", server)
    plain = run(root, "run", env=KEY)
    assert plain.code == 0, plain.stderr
    folder = plain.run_dir()
    for args, words in (
        (["--resume", str(folder)], "has no batches.json"),
        (["--resume", str(tmp_path / "nowhere")], "no such run folder"),
        (["--resume", str(folder), "--shard", "1/2"], "a sharded run cannot be resumed"),
    ):
        r = run(root, "run", *args, env=KEY)
        lines = r.stderr.strip().splitlines()
        assert r.code == 2 and len(lines) == 1 and words in lines[0], (args, r.stderr)
    # control: a folder with a journal is taken (an empty one: every call is batched afresh)
    (folder / "batches.json").write_text(json.dumps({"version": 1, "config": str(root / "skill-be.yaml")}))
    assert run(root, "run", "--resume", str(folder), env=KEY).code == 0
    assert server.batches


def test_a_call_the_response_cache_holds_never_enters_a_batch(tmp_path: Path, server: BatchServer) -> None:
    root = make(tmp_path, "openai", server)
    first = run(root, "run", "--batch", "--cache", env=KEY)
    assert first.code == 0, first.stderr
    assert len(server.batches) == 2 and sum(server.submitted.values()) == CALLS
    a = summary_of(first)["skills"]["money"]  # read now: a Result reads the latest run folder
    again = run(root, "run", "--batch", "--cache", env=KEY)
    assert again.code == 0, again.stderr
    assert len(server.batches) == 2 and "[batch]" not in again.stderr  # every answer from the cache
    b = summary_of(again)["skills"]["money"]
    assert b.pop("calls") == {"made": 0, "cached": CALLS} and a.pop("calls") == {"made": CALLS, "cached": 0}
    assert a == b
    # control: without the cache the same run is batched again
    assert run(root, "run", "--batch", "--no-cache", env=KEY).code == 0
    assert len(server.batches) == 4
