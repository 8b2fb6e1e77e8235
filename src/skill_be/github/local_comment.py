"""`skill-be verify|run ... --comment FILE`: the pull request comment the action would post for this
command, written to a file before you push. The command runs here as usual (its output captured as it
passes through); the comment is then built by the action's own steps (github/action.py `build_view`,
reports/pr_comment.py `comment`), with the action's inputs and context read from what the command
line says: `--base REF` is the action's `base-ref` input (the free comparison), `--config` stays in
its args. The GitHub variables of a CI job (GITHUB_REPOSITORY, GITHUB_RUN_ID, the event file) are
read as the action reads them, so in CI the bytes are the action's; on a laptop there is no run link.

`run` on a pull request in the action also adds the previous arm (`--against` the merge base) unless
`previous-arm: false`; `run --against REF --comment FILE` writes that comment."""

from __future__ import annotations

import io
import os
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

DISPLAY_ONLY = ("--comment", "--color")  # options of the command line that the action never passes


class _Tee(io.TextIOBase):
    """Writes through to `stream` and keeps a copy."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.kept = io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def lines(self) -> list[str]:
        return self.kept.getvalue().splitlines()


@contextmanager
def captured() -> Iterator[tuple[_Tee, _Tee]]:
    """stdout and stderr passed through and kept, for the comment's result line and log."""
    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    sys.stdout, sys.stderr = out, err
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = out.stream, err.stream


def action_args(argv: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """The args the action would pass its command (without the display options and `--base`), and
    the `--base` ref ("" when none), from the command's own arguments (after the command name)."""
    args: list[str] = []
    base = ""
    skip = False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        name = a.split("=", 1)[0]
        if name in (*DISPLAY_ONLY, "--base"):
            value = a.split("=", 1)[1] if "=" in a else (argv[i + 1] if i + 1 < len(argv) else "")
            skip = "=" not in a
            base = value if name == "--base" else base
            continue
        args.append(a)
    return tuple(args), base


def workspace_of(cwd: Path) -> Path:
    """The repository's top folder (GITHUB_WORKSPACE in the action), else this folder."""
    from skill_be.results.git_files import GitError, toplevel

    try:
        top = toplevel(cwd)
    except GitError:
        return cwd
    return cwd if top == Path() else top


def comment_text(
    command: str, argv: Sequence[str], code: int, out: Sequence[str], err: Sequence[str], run_dir: Path | None,
    environ: Mapping[str, str],
) -> str:  # fmt: skip
    """The comment's bytes, as github/action.py builds and redacts them."""
    from skill_be.adapters.credentials import Redactor
    from skill_be.github.action import Finished, _secrets_of_config, build_view
    from skill_be.github.inputs import config_arg, read_context, read_inputs
    from skill_be.reports.pr_comment import comment
    from skill_be.reports.quote import secret_forms

    cwd = Path.cwd()
    args, base = action_args(argv)
    workspace = Path(environ.get("GITHUB_WORKSPACE") or workspace_of(cwd))
    rel = Path(os.path.relpath(cwd, workspace)).as_posix()
    env = {**environ, "INPUT_COMMAND": command, "INPUT_ARGS": shlex.join(args), "INPUT_WORKING-DIRECTORY": rel}
    env["GITHUB_WORKSPACE"] = str(workspace)
    if base:
        env["INPUT_BASE-REF"] = base
    inputs = read_inputs(env)
    ctx = read_context(env, cwd)
    config = cwd / config_arg(inputs.args)
    redactor = Redactor(secret_forms(inputs.token))
    for secret in _secrets_of_config(config, env):
        for form in secret_forms(secret):
            redactor.add(form)
    done = Finished(code, [redactor(line) for line in out], [redactor(line) for line in err])
    view, _ = build_view(inputs, ctx, cwd, config, done, None, run_dir)
    return redactor(comment(view))


def run_folders(config: Path) -> set[Path]:
    from skill_be.github.action import _results_folder, run_folders

    return run_folders(_results_folder(config))


def new_run(config: Path, before: set[Path]) -> Path | None:
    from skill_be.github.action import _results_folder, new_run

    return new_run(_results_folder(config), before)
