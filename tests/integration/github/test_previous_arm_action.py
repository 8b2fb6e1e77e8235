"""The action's `run` on a pull request adds the previous arm at the merge base (issue 19, item 1):
the comment leads with the change against the previous version, and `previous-arm: false` turns it
off. A real git repository and the scripted model of tests/e2e/run/test_previous_arm.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.e2e.run.helpers import write
from tests.e2e.run.test_previous_arm import REPS, calls, repository
from tests.integration.github.conftest import pull_request_event, run_action, runner_env
from tests.support.fake_github import FakeGitHub

PR = pull_request_event()["number"]


def event_on(base: str) -> dict[str, object]:
    event = pull_request_event()
    event["pull_request"]["base"]["sha"] = base  # type: ignore[index]
    return event


@pytest.mark.parametrize("previous_arm", ["true", "false"])
def test_run_on_a_pull_request_compares_with_the_previous_version(
    tmp_path: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str], previous_arm: str
) -> None:
    ws = tmp_path / "workspace"
    base = repository(ws)
    plan = {"NEW": ["allocate rounding"], "OLD": ["allocate", "no", "no", "no"], "STABLE": ["allocate"]}
    write(ws / "plan.json", json.dumps({**plan, "FRESH": ["allocate"]}))
    env = runner_env(
        ws,
        fake,
        event_on(base),
        command="run",
        working_directory=".",
        args="--config skill-be.yaml",
        **{"previous-arm": previous_arm},
    )
    ran = run_action(env, capsys)
    assert ran.code == 0, ran.out + ran.err
    [comment] = fake.comments_on(PR)
    body = str(comment["body"])
    if previous_arm == "true":
        assert calls(ws, "OLD") == REPS  # money's comparable scenario, at the merge base
        assert "- **money** ✅ READY · vs previous version: +75pp (" in body
        assert f"Against previous version at {base[:7]}" in body
        assert "| ▲ | split *(critical)* | Uses allocate | m1 | 25% (1/4) | 100% (4/4) | +75pp (" in body
    else:  # the control: no previous arm, no call with the old text, the comment compares with no version
        assert calls(ws, "OLD") == 0
        assert "previous version" not in body
