"""Forks get their comment: the artifact + `workflow_run` pattern of the reporting actions.

A fork's pull request runs with a read-only token. Its `pull_request` job runs skill-be as usual with
`artifact-dir` set: the action writes there the event file, the comment it would post and the check
run it would create. The workflow uploads that folder as an artifact. A second workflow, on
`workflow_run`, runs with a write token and never checks out or runs the fork's code: it downloads
the artifact and runs the action with `command: publish`, which only posts what the folder holds.

What the folder holds was written by a job the fork controls (a fork can change the workflow of its
own pull request), so `publish` reads it as untrusted: the check run goes on the commit the second
workflow names (`commit: ${{ github.event.workflow_run.head_sha }}`), which must be the saved pull
request's head, and every file is checked for shape and size before anything is posted.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from skill_be.adapters.credentials import Redactor
from skill_be.errors import UsageError
from skill_be.github import runner_files
from skill_be.github.client import Client, GitHubError
from skill_be.github.inputs import Context, Inputs, read_context
from skill_be.github.publish import check_run_payload, post_check_run, upsert_body, wants_new_comment
from skill_be.reports.check_run import OUTPUT_LIMIT
from skill_be.reports.pr_comment import COMMENT_LIMIT, MARKER_PREFIX, GateView, comment, marker

EVENT, COMMENT, CHECK = "event.json", "comment.md", "check-run.json"
_CONCLUSIONS = ("success", "failure", "neutral")
_LEVELS = ("notice", "warning", "failure")
_MAX_ANNOTATIONS = 1_000


def write_artifact(
    folder: Path,
    view: GateView,
    ctx: Context,
    env: Mapping[str, str],
    redact: Redactor,
    annotate: bool,
    warn: Callable[[str], None],
    mode: str = "always",
) -> None:
    """The first job's half: the event file, the comment and the check run, for `publish`."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        event = env.get("GITHUB_EVENT_PATH", "")
        if event and Path(event).is_file():
            shutil.copyfile(event, folder / EVENT)
        (folder / COMMENT).write_text(redact(comment(view)), encoding="utf-8")
        run = check_run_payload(view, redact, annotate)
        run["marker"] = marker(view.working_directory, view.config)
        run["comment"] = mode != "off" and wants_new_comment(view, mode)
        run["detailsUrl"] = view.run_url
        (folder / CHECK).write_text(json.dumps(run, ensure_ascii=False, indent=1), encoding="utf-8")
    except OSError as e:
        warn(f"skill-be: artifact-dir: could not write {folder}: {e}")


def _read(folder: Path) -> tuple[str, dict[str, Any]]:
    """The comment and the check run, checked; UsageError (exit 2) naming the file and what is wrong."""
    where = f'action input "artifact-dir": {folder}'
    try:
        body = (folder / COMMENT).read_text(encoding="utf-8")
        run = json.loads((folder / CHECK).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"{where}: {e}; download the artifact the pull_request job uploaded") from None
    if len(body) > COMMENT_LIMIT or not body.startswith(MARKER_PREFIX):
        raise UsageError(f"{where}: {COMMENT} is not a skill-be comment; upload the folder skill-be wrote")
    problem = _check_run_problem(run)
    if problem:
        raise UsageError(f"{where}: {CHECK}: {problem}; upload the folder skill-be wrote")
    return body, run


def _check_run_problem(run: Any) -> str:
    if not isinstance(run, dict):
        return "not an object"
    texts = {"name": 200, "title": 1_000, "summary": OUTPUT_LIMIT, "marker": 1_000, "detailsUrl": 2_000}
    for key, limit in texts.items():
        if not isinstance(run.get(key), str) or len(run[key]) > limit:
            return f'"{key}" is not a text of at most {limit} characters'
    if not run["name"].startswith("skill-be") or not run["marker"].startswith(MARKER_PREFIX):
        return "its name or marker is not skill-be's"
    if run.get("conclusion") not in _CONCLUSIONS or not isinstance(run.get("comment"), bool):
        return '"conclusion" or "comment" is not one skill-be writes'
    notes = run.get("annotations")
    if not isinstance(notes, list) or len(notes) > _MAX_ANNOTATIONS:
        return '"annotations" is not a list of at most 1000'
    for a in notes:
        ok = isinstance(a, dict) and set(a) <= {
            "path",
            "start_line",
            "end_line",
            "annotation_level",
            "title",
            "message",
        }
        ok = ok and isinstance(a.get("path"), str) and a.get("annotation_level") in _LEVELS
        ok = ok and all(isinstance(a.get(k), int) and a[k] > 0 for k in ("start_line", "end_line"))
        ok = ok and all(isinstance(a.get(k), str) and len(a[k]) <= 4_000 for k in ("title", "message"))
        if not ok:
            return "an annotation is not one skill-be writes"
    return ""


def publish_artifact(
    inputs: Inputs, env: Mapping[str, str], redact: Redactor, make_client: Callable[[Context], Client]
) -> int:
    """The `workflow_run` job's half: post the comment and create the check run the folder holds."""
    if not inputs.artifact_dir:
        raise UsageError('command "publish" needs the input "artifact-dir": the downloaded artifact\'s folder')
    folder = Path(inputs.artifact_dir)
    event = inputs.event_file or str(folder / EVENT)
    if not Path(event).is_file():
        raise UsageError(f'action input "artifact-dir": {folder} has no {EVENT}; upload the event file too')
    ctx = read_context({**env, "INPUT_EVENT-FILE": event}, Path.cwd())
    head = _head_sha(event)
    if not inputs.commit or ctx.pr_number is None or head != inputs.commit:
        raise UsageError(
            'action input "commit": must be the workflow run\'s head commit (${{ github.event.workflow_run.head_sha }}) '
            f"and the head of the pull request in {EVENT}; the saved event names {head or 'none'}"
        )
    body, run = _read(folder)
    ctx = ctx._replace(fork=False, sha=inputs.commit)  # this job's token can write; the commit is ours
    client = make_client(ctx)
    try:
        if inputs.comment and inputs.comment_mode != "off":
            create = run["comment"]  # the first job's comment-mode decided it
            print(f"skill-be: pull request comment {upsert_body(client, ctx, redact(body), run['marker'], create)}")
        if inputs.check_run:
            for k in ("title", "summary"):
                run[k] = redact(run[k])
            run["annotations"] = [
                {k: redact(v) if isinstance(v, str) else v for k, v in a.items()} for a in run["annotations"]
            ]
            post_check_run(client, ctx, run, run["detailsUrl"] if run["detailsUrl"].startswith("https://") else "")
            print(f"skill-be: check run {run['name']} created on {ctx.sha[:12]}")
    except GitHubError as e:
        runner_files.warning(redact(f"skill-be: GitHub API: publishing the artifact failed: {e}"))
    finally:
        client.close()
    return 0


def _head_sha(event_file: str) -> str:
    try:
        doc = json.loads(Path(event_file).read_text(encoding="utf-8"))
        sha = doc["pull_request"]["head"]["sha"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return sha if isinstance(sha, str) else ""
