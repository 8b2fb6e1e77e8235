"""The sticky pull-request comment and the check run, through the client; failures become one warning."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from skill_be.adapters.credentials import Redactor
from skill_be.github.client import Client, GitHubError
from skill_be.github.inputs import Context, Inputs
from skill_be.reports import check_run, pr_changes
from skill_be.reports.pr_comment import GateView, comment, marker


def wants_new_comment(view: GateView, mode: str) -> bool:
    """Whether `comment-mode` asks for a comment on this result. `changes`: a verdict or a line
    moved beyond its noise against the base (everything counts without a base); `failures`: something
    blocks or the command failed. An existing comment is updated in every mode but `off`, so it never
    shows a stale result."""
    if mode == "always":
        return True
    if mode == "failures":
        return view.result != "pass"
    if mode == "changes":
        return pr_changes.moved(view.comparison, {s.name: s.ready for s in view.skills})
    return False


def upsert_comment(client: Client, ctx: Context, view: GateView, redact: Redactor, create: bool = True) -> str:
    """PATCH the comment whose body starts with this directory's and config's marker, else POST one
    (when `create`)."""
    return upsert_body(client, ctx, redact(comment(view)), marker(view.working_directory, view.config), create)


def upsert_body(client: Client, ctx: Context, body: str, head: str, create: bool = True) -> str:
    owner_repo = ctx.repository
    for c in client.pages(f"/repos/{owner_repo}/issues/{ctx.pr_number}/comments"):
        if isinstance(c, dict) and str(c.get("body", "")).startswith(head) and isinstance(c.get("id"), int):
            client.request("PATCH", f"/repos/{owner_repo}/issues/comments/{c['id']}", json={"body": body})
            return "updated"
    if not create:
        return "not posted (comment-mode: nothing to report)"
    client.request("POST", f"/repos/{owner_repo}/issues/{ctx.pr_number}/comments", json={"body": body})
    return "created"


def check_run_payload(view: GateView, redact: Redactor, annotate: bool) -> dict[str, Any]:
    """What the check run says: its name, conclusion, title, summary and annotations (redacted)."""
    return {
        "name": check_run.name(view.working_directory),
        "conclusion": check_run.conclusion(view),
        "title": redact(check_run.title(view)),
        "summary": redact(check_run.summary(view)),
        "annotations": _redacted(check_run.annotation_list(view), redact) if annotate else [],
    }


def create_check_run(client: Client, ctx: Context, view: GateView, redact: Redactor, annotate: bool) -> int:
    """One check run on the head commit, completed, with its annotations 50 a request."""
    return post_check_run(client, ctx, check_run_payload(view, redact, annotate), view.run_url)


def post_check_run(client: Client, ctx: Context, run: dict[str, Any], details_url: str = "") -> int:
    output: dict[str, Any] = {"title": run["title"], "summary": run["summary"]}
    batches = check_run.batches(list(run["annotations"]))
    first: dict[str, Any] = {**output, "annotations": batches[0]} if batches else output
    body: dict[str, Any] = {
        "name": run["name"],
        "head_sha": ctx.sha,
        "status": "completed",
        "conclusion": run["conclusion"],
        "completed_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "output": first,
    }
    if details_url:
        body["details_url"] = details_url
    created = client.request("POST", f"/repos/{ctx.repository}/check-runs", json=body)
    run_id = created.get("id") if isinstance(created, dict) else None
    if not isinstance(run_id, int):
        raise GitHubError("POST check-runs: the answer has no id")
    for batch in batches[1:]:
        client.request(
            "PATCH",
            f"/repos/{ctx.repository}/check-runs/{run_id}",
            json={"output": {**output, "annotations": batch}},
        )
    return run_id


def _redacted(batch: list[dict[str, Any]], redact: Redactor) -> list[dict[str, Any]]:
    return [{k: redact(v) if isinstance(v, str) else v for k, v in a.items()} for a in batch]


def publish(
    client_factory: Callable[[], Client],
    ctx: Context,
    inputs: Inputs,
    view: GateView,
    redact: Redactor,
    warn: Callable[[str], None],
    say: Callable[[str], None],
) -> None:
    """The comment, then the check run. A fork, a missing token or the first API failure ends it
    with exactly one warning; nothing here changes the exit code."""
    steps: list[tuple[str, Callable[[Client], None]]] = []
    if inputs.comment and inputs.comment_mode != "off" and ctx.pr_number is not None:
        create = wants_new_comment(view, inputs.comment_mode)

        def do_comment(c: Client) -> None:
            say(f"skill-be: pull request comment {upsert_comment(c, ctx, view, redact, create)}")

        steps.append(("the pull request comment", do_comment))
    if inputs.check_run and ctx.sha:

        def do_check(c: Client) -> None:
            create_check_run(c, ctx, view, redact, inputs.annotations)
            say(f"skill-be: check run {check_run.name(view.working_directory)} created on {ctx.sha[:12]}")

        steps.append(("the check run", do_check))
    if not steps:
        return
    names = " and ".join(w for w, _ in steps)
    if ctx.fork:
        warn(
            f"skill-be: this pull request comes from a fork, whose token cannot write: skipped {names}; "
            "the job summary and the outputs are written"
            + (
                "; artifact-dir holds them for a workflow_run job (docs/pr-comment.md)"
                if inputs.artifact_dir
                else "; set artifact-dir and post it from a workflow_run job (docs/pr-comment.md)"
            )
        )
        return
    if not inputs.token or not ctx.repository:
        what = "no github-token" if not inputs.token else "no GITHUB_REPOSITORY"
        warn(f"skill-be: {what}: skipped {names}; the job summary and the outputs are written")
        return
    client = client_factory()
    try:
        for i, (what, step) in enumerate(steps):
            try:
                step(client)
            except GitHubError as e:
                rest = [w for w, _ in steps[i + 1 :]]
                skipped = f"; skipped {' and '.join(rest)}" if rest else ""
                hint = " (a read-only token? the workflow needs permissions: pull-requests: write, checks: write)"
                hint = hint if e.status in (401, 403, 404) else ""
                warn(redact(f"skill-be: GitHub API: {what} failed: {e}{hint}{skipped}; the exit code is the gate's"))
                return
    finally:
        client.close()
