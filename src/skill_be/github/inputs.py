"""The action's inputs (`INPUT_*`, names keep their dashes) and the workflow run's context (`GITHUB_*`)."""

from __future__ import annotations

import glob
import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.errors import UsageError

# `publish` is the action's own: post what another job left in `artifact-dir` (the fork pattern).
COMMANDS = ("verify", "run", "check", "triage", "regrade", "merge", "publish")
# The commands that write a run folder: the action reads its summary.json and reports as after `run`.
RUN_COMMANDS = ("run", "regrade", "merge")
# comment-mode: always post; only when a verdict or a line moved beyond its noise against the base;
# only when something blocks or fails; never.
COMMENT_MODES = ("always", "changes", "failures", "off")


class Inputs(NamedTuple):
    command: str
    args: tuple[str, ...]
    working_directory: str
    version: str
    token: str
    comment: bool
    check_run: bool
    annotations: bool
    fail_on_not_ready: bool
    comment_mode: str = "always"
    base_ref: str = ""  # the commit or ref to compare with; "" takes the pull request's base
    event_file: str = ""  # a pull_request event saved by another workflow (the fork pattern)
    commit: str = ""  # the commit the check run goes on, when the event file is not this run's
    artifact_dir: str = ""  # the fork pattern's folder: written after a command, read by `publish`
    previous_arm: bool = True  # run on a pull request: --against the merge base (github/previous.py)


class Context(NamedTuple):
    workspace: Path
    repository: str  # owner/name
    event_name: str
    sha: str  # the commit the check run goes on
    pr_number: int | None
    fork: bool  # a pull request from another repository: its token cannot write
    api_url: str
    run_url: str
    base: tuple[str, str] | None = None  # (commit or ref, branch name) to compare with; None: no base


def _input(env: Mapping[str, str], name: str, default: str = "") -> str:
    # The runner upper-cases the name and keeps its dashes: INPUT_WORKING-DIRECTORY.
    return env.get(f"INPUT_{name.upper()}", default).strip()


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = _input(env, name)
    if not value:
        return default
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise UsageError(f'action input "{name}": must be true or false, not "{value}"; fix the "with:" of the step')


def read_inputs(env: Mapping[str, str]) -> Inputs:
    """The inputs, or UsageError naming the input and the fix (exit 2)."""
    command = _input(env, "command") or "verify"
    if command not in COMMANDS:
        raise UsageError(
            f'action input "command": "{command}" is not a skill-be command (one of {", ".join(COMMANDS)}); '
            'fix the "with:" of the step'
        )
    event_file = _input(env, "event-file")
    if event_file and not Path(event_file).is_file():
        raise UsageError(
            f'action input "event-file": {event_file} is not a file; download the artifact that holds it first'
        )
    raw_args = _input(env, "args")
    try:
        args = tuple(shlex.split(raw_args))  # like a shell splits words, without a shell
    except ValueError as e:
        raise UsageError(f'action input "args": {e} in "{raw_args}"; close the quote') from None
    return Inputs(
        command=command,
        args=args,
        working_directory=_input(env, "working-directory") or ".",
        version=_input(env, "version"),
        token=_input(env, "github-token"),
        comment=_flag(env, "comment", True),
        check_run=_flag(env, "check-run", True),
        annotations=_flag(env, "annotations", True),
        fail_on_not_ready=_flag(env, "fail-on-not-ready", True),
        comment_mode=_choice(env, "comment-mode", COMMENT_MODES, "always"),
        previous_arm=_flag(env, "previous-arm", True),
        base_ref=_input(env, "base-ref"),
        event_file=event_file,
        commit=_input(env, "commit"),
        artifact_dir=_input(env, "artifact-dir"),
    )


def _choice(env: Mapping[str, str], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = _input(env, name) or default
    if value not in allowed:
        raise UsageError(
            f'action input "{name}": "{value}" is not one of {", ".join(allowed)}; fix the "with:" of the step'
        )
    return value


def expand_globs(args: tuple[str, ...], cwd: Path) -> tuple[str, ...]:
    """`merge`'s folders: an argument with *, ? or [ is expanded in `cwd` as a shell would (sorted,
    hidden names left out), since no shell reads `args`; a pattern that matches nothing stays as
    written, for the command to name."""
    out: list[str] = []
    for a in args:
        magic = not a.startswith("-") and any(c in a for c in "*?[")
        found = sorted(glob.glob(a, root_dir=cwd)) if magic else []
        out += found or [a]
    return tuple(out)


def config_arg(args: tuple[str, ...]) -> str:
    """The config the command reads: `--config X` or `--config=X` in args, else skill-be.yaml."""
    for i, a in enumerate(args):
        if a == "--config" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--config="):
            return a.removeprefix("--config=")
    return "skill-be.yaml"


def _event(env: Mapping[str, str]) -> dict[str, Any]:
    # The fork pattern: a workflow_run job reports on the pull_request event the first job saved.
    path = _input(env, "event-file") or env.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_context(env: Mapping[str, str], cwd: Path) -> Context:
    event = _event(env)
    repository = env.get("GITHUB_REPOSITORY", "")
    pr = event.get("pull_request")
    pr = pr if isinstance(pr, dict) else None
    sha = env.get("GITHUB_SHA", "")
    number: int | None = None
    fork = False
    if pr is not None:
        head: dict[str, Any] = pr["head"] if isinstance(pr.get("head"), dict) else {}
        # On pull_request the workflow runs on a merge commit: the check belongs on the head commit.
        sha = str(head.get("sha") or sha)
        n = pr.get("number", event.get("number"))
        number = n if isinstance(n, int) else None
        head_repo: dict[str, Any] = head["repo"] if isinstance(head.get("repo"), dict) else {}
        full_name = head_repo.get("full_name")
        # pull_request_target runs with the base repository's token: no fork limit there.
        fork = (
            env.get("GITHUB_EVENT_NAME") != "pull_request_target"
            and isinstance(full_name, str)
            and full_name.lower() != repository.lower()
        )
    sha = _input(env, "commit") or sha
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    run_id = env.get("GITHUB_RUN_ID", "")
    return Context(
        workspace=Path(env.get("GITHUB_WORKSPACE") or cwd),
        repository=repository,
        event_name=env.get("GITHUB_EVENT_NAME", ""),
        sha=sha,
        pr_number=number,
        fork=fork,
        api_url=env.get("GITHUB_API_URL", "https://api.github.com"),
        run_url=f"{server}/{repository}/actions/runs/{run_id}" if repository and run_id else "",
        base=_base(event, env),
    )


def _base(event: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str, str] | None:
    """What the free comparison reads: the `base-ref` input, else the pull request's base commit,
    else the base branch the runner names (GITHUB_BASE_REF)."""
    override = _input(env, "base-ref")
    if override:
        return override, override
    pr = event.get("pull_request")
    base = pr.get("base") if isinstance(pr, dict) else None
    if isinstance(base, dict) and isinstance(base.get("sha"), str):
        return base["sha"], str(base.get("ref") or base["sha"][:7])
    ref = env.get("GITHUB_BASE_REF", "")
    return (f"origin/{ref}", ref) if ref else None
