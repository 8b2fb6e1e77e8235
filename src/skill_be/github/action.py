"""The action's entrypoint: run the skill-be command, then the outputs, the job summary, the
sticky comment and the check run. The exit code is always the command's (the gate's)."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from skill_be import __version__
from skill_be.adapters.credentials import Redactor
from skill_be.errors import UsageError, exit_code
from skill_be.github import fork, gather, handoff, runner_files
from skill_be.github.client import Client
from skill_be.github.inputs import (
    RUN_COMMANDS,
    Context,
    Inputs,
    config_arg,
    expand_globs,
    read_context,
    read_inputs,
)
from skill_be.github.publish import publish
from skill_be.proc import stream_lines
from skill_be.reports import strings
from skill_be.reports.pr_comment import GateView, SkillView, TokenSum, render
from skill_be.reports.quote import secret_forms

if TYPE_CHECKING:
    from skill_be.results.result_file import ResultEntry, ResultFile
    from skill_be.results.summary_models import CheckDocument, CheckSummary, SummaryModel

# Variables a child never needs: the action's inputs (the token among them) and the runner's own tokens.
_CHILD_DROP_PREFIXES = ("INPUT_", "ACTIONS_RUNTIME_", "ACTIONS_ID_TOKEN_")
_CHILD_DROP = ("GITHUB_TOKEN", "GH_TOKEN")
_LOG_LINES = 40


class Finished(NamedTuple):
    code: int
    stdout: list[str]
    stderr: list[str]


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if not k.startswith(_CHILD_DROP_PREFIXES) and k not in _CHILD_DROP}


def run_command(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], redact: Redactor, echo: bool = True
) -> Finished:
    """Run skill-be as a child (proc.stream_lines), its stdout and stderr passed through (redacted) and kept."""
    kept: dict[str, list[str]] = {"stdout": [], "stderr": []}
    lock = threading.Lock()

    def on_line(stream: str, line: str) -> None:
        clean = redact(line)
        with lock:
            kept[stream].append(clean)
        if echo:
            print(clean, file=sys.stdout if stream == "stdout" else sys.stderr, flush=True)

    code = stream_lines(argv, cwd, env, on_line)
    return Finished(code, kept["stdout"], kept["stderr"])


def key_names(config: Path) -> list[str]:
    """The variables the config's apiKeyEnv entries name (models, grader, triage model)."""
    try:
        from skill_be.project.config import load_config

        cfg: Any = load_config(config)
    except Exception:  # a broken config is the command's to report; here it only means no names
        return []
    entries = [*getattr(cfg, "models", ()), getattr(cfg, "grader", None), getattr(cfg, "triage_model", None)]
    names = {e.settings.get("apiKeyEnv") for e in entries if e is not None and hasattr(e, "settings")}
    return sorted(n for n in names if isinstance(n, str))


def _secrets_of_config(config: Path, env: Mapping[str, str]) -> list[str]:
    """Every apiKeyEnv value the config names, so no report or log line shows one."""
    return [env[n] for n in key_names(config) if env.get(n)]


def _result(done: Finished, blocked: bool) -> str:
    """pass, blocked, or error: exit code 1 counts as blocked only when what the command wrote says
    its gate or a check blocked (a crash also exits 1, and must not read as a gate that blocked)."""
    if done.code == 0:
        return "pass"
    return "blocked" if done.code == 1 and blocked else "error"


def _result_line(done: Finished) -> str:
    for line in reversed(done.stdout):
        if line.startswith(strings.RESULT_PREFIX):
            return line
    for line in done.stderr:
        if line.startswith("skill-be") or ": " in line:
            return line
    # An error without a place (merge's "shard 2/2 is missing; ..."): the command's last word.
    last = [line for line in done.stderr if line.strip()]
    return last[-1] if last else f"skill-be exited with code {done.code}"


def _project(config: Path) -> Any:
    try:
        from skill_be.project.loader import load_project

        return load_project(config, warn=lambda _line: None)
    except Exception:  # the command already said what is wrong with the project
        return None


def _verify_checks(project: Any) -> list[CheckSummary] | None:
    """verify prints its checks without places: run them again here for their problems' files and
    lines (cheap when they are off; the typecheck's cost again when on)."""
    try:
        from skill_be.checks import run_checks
        from skill_be.reports.summary import checks_summary

        return gather.check_summaries(checks_summary(run_checks(project, lambda _line: None)))
    except Exception:  # verify itself already reported what stops the checks
        return None


class Written(NamedTuple):
    """What the command left behind, read through skill-be's models: the run folder and its summary
    (run, regrade, merge), the checks, and whether any of it blocks."""

    run_dir: Path | None = None
    summary: SummaryModel | None = None
    checks: list[CheckSummary] | None = None
    result_file: ResultFile | None = None


def _summary_of(run_dir: Path | None) -> SummaryModel | None:
    if run_dir is None:
        return None
    from skill_be.errors import ConfigError
    from skill_be.results.summary_file import read_summary

    try:
        return read_summary(run_dir / "summary.json")
    except ConfigError:
        return None


def _result_file(project: Any) -> ResultFile | None:
    from skill_be.errors import ConfigError
    from skill_be.results.result_file import read_result_file

    try:
        return read_result_file(project.config.result_file)
    except ConfigError:
        return None


def read_written(inputs: Inputs, project: Any, run_dir: Path | None, checks_doc: CheckDocument | None) -> Written:
    if inputs.command in RUN_COMMANDS:
        summary = _summary_of(run_dir)
        return Written(run_dir if summary else None, summary, summary.checks if summary else None)
    if inputs.command == "verify" and project is not None:
        return Written(checks=_verify_checks(project), result_file=_result_file(project))
    return Written(checks=list(checks_doc.checks) if checks_doc is not None else None)


def _blocked(written: Written, skills: Sequence[SkillView]) -> bool:
    """Whether the gate or a check blocked, by what the command wrote. A run's summary.json gets its
    `checks` only at the very end, so a run that stopped half way never reads as blocked."""
    checks_block = any(c.blocks for c in written.checks or ())
    if written.summary is not None:
        finished = written.summary.checks is not None
        return finished and (checks_block or any(not s.ready for s in written.summary.skills.values()))
    return checks_block or any(s.ready is not True or s.changed for s in skills)


def build_view(
    inputs: Inputs,
    ctx: Context,
    cwd: Path,
    config: Path,
    done: Finished,
    checks_doc: CheckDocument | None,
    run_dir: Path | None = None,
) -> tuple[GateView, Path | None]:
    """The gate's view of what the command did, and the run folder when `run`, `regrade` or `merge`
    wrote one (the new folder under the results folder, `new_run`)."""
    project = _project(config) if done.code in (0, 1) else None
    evals: dict[str, Path] = {s.name: s.eval_path for s in project.skills} if project else {}
    written = read_written(inputs, project, run_dir, checks_doc)
    skills: list[SkillView] = []
    models: tuple[str, ...] = ()
    reps: int | None = None
    tokens: dict[str, TokenSum] = {}
    if written.summary is not None:
        doc = written.summary
        skills = gather.skills_from_summary(doc, evals, ctx.workspace, cwd)
        models = tuple(str(m.get("label")) for m in doc.models or [])
        reps = doc.reps
        tokens = gather.tokens_of(doc)
    elif written.result_file is not None and project is not None:
        entries = written.result_file.skills
        changed = {s.name: _changed(project, s, entries) for s in project.skills}
        names = [s.name for s in project.skills]
        skills = gather.skills_from_result_file(written.result_file, names, changed, evals, ctx.workspace, cwd)
        models = tuple(dict.fromkeys(m for e in entries.values() for m in e["models"]))
    checks, problems = gather.checks_of(written.checks, cwd, ctx.workspace)
    comparison = _comparison(inputs, ctx, cwd, project, written)
    view = GateView(
        command=inputs.command,
        result=_result(done, _blocked(written, skills)),
        result_line=_result_line(done),
        skills=tuple(skills),
        checks=tuple(checks),
        problems=tuple(problems),
        models=models,
        reps=reps,
        tokens=tokens,
        run_url=ctx.run_url,
        working_directory=inputs.working_directory,
        config=config_arg(inputs.args),
        log=tuple((done.stdout + done.stderr)[-_LOG_LINES:])
        if done.code not in (0, 1) or inputs.command == "triage"
        else (),
        fail_on_not_ready=inputs.fail_on_not_ready,
        comparison=comparison,
    )
    if project is not None and inputs.command in ("verify", "run"):
        from skill_be.github.base import apply_rules

        view = apply_rules(view, project.config.gate)  # gate.previous, gate.minDelta
    return view, written.run_dir


def _comparison(inputs: Inputs, ctx: Context, cwd: Path, project: Any, written: Written) -> Any:
    """What the comment compares with: the run's previous arm when it had one (with the base's trigger
    rates and token use beside it), else the base branch's committed result file."""
    base = None
    if ctx.base is not None and project is not None and inputs.command in ("verify", "run"):
        from skill_be.github.base import compare_with_base

        base = compare_with_base(project, cwd, *ctx.base)
    if written.summary is None or inputs.command != "run":
        return base
    from skill_be.github.previous import previous_comparison, with_base_sides

    previous = previous_comparison({n: {"previous": s.previous} for n, s in written.summary.skills.items()})
    return base if previous is None else with_base_sides(previous, base)


def _changed(project: Any, skill: Any, entries: Mapping[str, ResultEntry]) -> bool:
    """Whether the skill changed since its result file entry. a version-1 entry (the
    Node tool's, skill-be 0.1's) compares the version-1 way."""
    entry = entries.get(skill.name)
    if entry is None:
        return True
    fp = entry["fingerprint"]
    v2 = isinstance(fp, str) and fp.startswith("v2:")
    return bool(fp != (project.fingerprint(skill) if v2 else project.legacy_fingerprint(skill)))


def outputs(view: GateView, report: Path, workspace: Path, run_dir: Path | None) -> dict[str, str]:
    not_ready = [s.name for s in view.skills if s.ready is not True or s.changed]
    if view.command in (*RUN_COMMANDS, "verify"):
        ready = view.result != "error" and bool(view.skills) and not not_ready
    else:
        ready = view.result == "pass"
    summary = run_dir / "summary.json" if run_dir else None

    def rel(p: Path) -> str:
        rel = os.path.relpath(p, workspace)
        return Path(rel).as_posix() if not rel.startswith("..") else p.as_posix()

    return {
        "result": view.result,
        "ready": "true" if ready else "false",
        "skills-not-ready": " ".join(not_ready),
        "report": rel(report),
        "summary-json": rel(summary) if summary and summary.exists() else "",
    }


def main(
    env: Mapping[str, str] | None = None, client_factory: Callable[[Context, str, Redactor], Client] | None = None
) -> int:
    """The action's exit code: the command's (0 pass, 1 blocked, 2 config error), except that a
    blocked gate exits 0 with fail-on-not-ready false."""
    env = dict(os.environ if env is None else env)
    try:
        inputs = read_inputs(env)
    except UsageError as e:
        print(f"skill-be: {e}", file=sys.stderr)
        return exit_code(e)
    if (full_image := handoff.wanted(inputs.command, env)) is not None:  # the verify image: no agent CLIs
        return _hand_off(full_image, inputs, env)
    warn = runner_files.warning
    redactor = Redactor(secret_forms(inputs.token))  # and as the reports quote it (reports/quote.py)
    ctx = read_context(env, Path.cwd())
    if inputs.command == "publish":  # the fork pattern's second job: post what the first one left
        try:
            return fork.publish_artifact(
                inputs, env, redactor, lambda c: _client(c, inputs, redactor, env, client_factory)
            )
        except UsageError as e:
            print(f"skill-be: {e}", file=sys.stderr)
            return exit_code(e)
    cwd = (ctx.workspace / inputs.working_directory).resolve()
    if not cwd.is_dir() or not cwd.is_relative_to(ctx.workspace.resolve()):
        wrong = UsageError(
            f'action input "working-directory": {inputs.working_directory} is not a folder in the '
            'repository; fix the "with:" of the step'
        )
        print(f"skill-be: {wrong}", file=sys.stderr)
        return exit_code(wrong)
    _warn_of_version(inputs, warn)
    config = cwd / config_arg(inputs.args)
    for secret in _secrets_of_config(config, env):
        for form in secret_forms(secret):
            redactor.add(form)
    results = _results_folder(config) if inputs.command in RUN_COMMANDS else None
    before = run_folders(results)
    if inputs.command == "run":  # the previous arm at the merge base (github/previous.py)
        from skill_be.github.previous import against_args

        configured = _project(config)
        named = configured is not None and bool(configured.config.against)
        inputs = inputs._replace(args=(*inputs.args, *against_args(inputs, ctx, cwd, named, warn)))
    done, checks_doc = run_skill_be(inputs, cwd, child_env(env), redactor)
    view, run_dir = build_view(inputs, ctx, cwd, config, done, checks_doc, new_run(results, before))
    report = write_report(view, cwd, run_dir, redactor, env)
    runner_files.write_outputs(outputs(view, report, ctx.workspace, run_dir), env)
    code = 1 if view.result == "blocked" and done.code == 0 else done.code  # gate.previous, gate.minDelta
    if view.result == "blocked" and not inputs.fail_on_not_ready:
        code = 0
    make_client = lambda: _client(ctx, inputs, redactor, env, client_factory)  # noqa: E731
    publish(make_client, ctx, inputs, view, redactor, warn, lambda line: print(line, flush=True))
    if inputs.artifact_dir:
        folder = ctx.workspace / inputs.artifact_dir
        fork.write_artifact(folder, view, ctx, env, redactor, inputs.annotations, warn, inputs.comment_mode)
    return code


def _warn_of_version(inputs: Inputs, warn: Callable[[str], None]) -> None:
    if inputs.version and inputs.version.lstrip("v") not in (__version__, __version__.split(".")[0], "latest"):
        warn(
            f'skill-be: the input "version: {inputs.version}" is ignored: this action runs skill-be {__version__}, '
            f"the version of its image; pin the action's tag instead (ngwes/skill-be@v{__version__})"
        )


def _hand_off(image: str, inputs: Inputs, env: Mapping[str, str]) -> int:
    """run, triage and regrade in a sibling container of the full image (github/handoff.py)."""
    config = Path.cwd() / inputs.working_directory / config_arg(inputs.args)
    return handoff.run(image, env, key_names(config), lambda line: print(line, file=sys.stderr))


def _client(
    ctx: Context,
    inputs: Inputs,
    redactor: Redactor,
    env: Mapping[str, str],
    client_factory: Callable[[Context, str, Redactor], Client] | None,
) -> Client:
    if client_factory is not None:
        return client_factory(ctx, inputs.token, redactor)
    return Client(
        ctx.api_url,
        inputs.token,
        redactor,
        timeout=_float(env, "SKILL_BE_GITHUB_TIMEOUT", 10.0),
        max_wait=_float(env, "SKILL_BE_GITHUB_MAX_WAIT", 60.0),
        attempts=int(_float(env, "SKILL_BE_GITHUB_ATTEMPTS", 3)),
    )


def run_skill_be(
    inputs: Inputs, cwd: Path, env: Mapping[str, str], redactor: Redactor
) -> tuple[Finished, CheckDocument | None]:
    """The command, its output passed through; with `check`, its `--json` document too."""
    base = [sys.executable, "-m", "skill_be"]
    if inputs.command != "check":
        args = expand_globs(inputs.args, cwd) if inputs.command == "merge" else inputs.args
        return run_command([*base, inputs.command, *args], cwd, env, redactor), None
    done = run_command([*base, "check", "--json", *inputs.args], cwd, env, redactor, echo=False)
    checks_doc = _check_document(done.stdout)
    if checks_doc is None:
        for line in [*done.stdout, *done.stderr]:
            print(line, file=sys.stderr)
        return done, None
    for line in checks_doc.warnings:
        print(line, file=sys.stderr)
    lines = list(checks_doc.lines)
    print("\n".join(lines), flush=True)
    return Finished(done.code, lines, done.stderr), checks_doc


def write_report(view: GateView, cwd: Path, run_dir: Path | None, redactor: Redactor, env: Mapping[str, str]) -> Path:
    """The gate's report (and each skill's) to a file and the job summary; the file's path."""
    full = redactor(render(view) + _skill_reports(view, run_dir))
    report = _report_path(view, cwd, run_dir)
    try:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(full, encoding="utf-8")
    except OSError as e:
        runner_files.warning(f"skill-be: could not write {report}: {e}")
    runner_files.append_summary(full, env)
    return report


def _results_folder(config: Path) -> Path | None:
    """The config's results folder, where run, regrade and merge write their run folder."""
    try:
        from skill_be.project.config import load_config

        return Path(load_config(config).results)
    except Exception:  # a broken config is the command's to report; then no run folder is looked for
        return None


def run_folders(results: Path | None) -> set[Path]:
    from skill_be.results.run_dir import run_folders as folders

    return set(folders(results)) if results is not None else set()


def new_run(results: Path | None, before: set[Path]) -> Path | None:
    """The run folder the command wrote: the newest one with a summary.json that was not there before."""
    fresh = sorted(run_folders(results) - before)
    return fresh[-1] if fresh else None


def _skill_reports(view: GateView, run_dir: Path | None) -> str:
    """After `run`, `regrade` or `merge`, each skill's own Markdown report follows the gate's, in the
    job summary and file."""
    if run_dir is None:
        return ""
    texts = []
    for s in view.skills:
        try:
            texts.append((run_dir / f"{s.name}.md").read_text(encoding="utf-8"))
        except OSError:
            continue
    return "".join(f"\n---\n\n{text.rstrip()}\n" for text in texts)


def _report_path(view: GateView, cwd: Path, run_dir: Path | None) -> Path:
    if run_dir is None:
        return cwd / ".skill-be" / f"action-{view.command}-report.md"
    names = {f"{s.name}.md" for s in view.skills}
    name = next(n for n in ("action-report.md", "action-report-2.md", "action-report-3.md") if n not in names)
    return run_dir / name


def _check_document(lines: Sequence[str]) -> CheckDocument | None:
    """`check --json`'s document through its model; None when the command printed something else."""
    from pydantic import ValidationError

    from skill_be.results.summary_models import CheckDocument

    try:
        return CheckDocument.model_validate(json.loads("\n".join(lines)))
    except (ValueError, ValidationError):
        return None


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        return float(env.get(name, default))
    except ValueError:
        return default
