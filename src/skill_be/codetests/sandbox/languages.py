"""What a sandbox starts, by the language of its tests: the runner's argv and the answer's process's.

TypeScript: `node launch.mjs run <options>` (codetests/runner_flags.py) and `node host.mjs`. Python:
`python -I -S -B boot.py run <options>` and `... boot.py host --memory-mb N` (codetests/python/);
its runner is its own launcher, so the options name the work folders and their packages instead of
Node's permission flags. `harness` is the harness folder and `python`/`node` the interpreter as the
machine that runs them sees them (Docker: `/work/h` and `python3`)."""

from __future__ import annotations

from collections.abc import Sequence

from skill_be.codetests import runner_flags
from skill_be.codetests.python_env import boot_argv
from skill_be.codetests.runner_flags import RunnerPaths

RUNNER_FILE = {"typescript": "runner.mjs", "python": "boot.py"}  # in the harness folder
# The runner's own protections a test's control may switch off, Python's (runner.py reads them).
PYTHON_WEAKENINGS = ("guard",)


def host_memory_mb(memory_mb: int) -> int:
    """The answer's own process's data limit (Python): under the sandbox's, so that a memory bomb is a
    MemoryError in the answer's code before the sandbox's limit kills anything."""
    return max(64, memory_mb * 3 // 4)


def runner_options(language: str, paths: Sequence[RunnerPaths], weaken: frozenset[str], memory_mb: int) -> list[str]:
    """The runner's options before the answer's own (--host, --wrap)."""
    if language != "python":
        return runner_flags.launch_options(paths, weaken)
    options: list[str] = []
    for p in paths:
        options += ["--work", p.base, p.packages or ""]
    options += ["--memory-mb", str(host_memory_mb(memory_mb))]
    off = [w for w in PYTHON_WEAKENINGS if w in weaken]
    if off:
        options += ["--weaken", ",".join(off)]
    return options


def runner_argv(language: str, interpreter: str, harness: str, options: Sequence[str]) -> list[str]:
    if language == "python":
        return boot_argv(interpreter, harness, "run", *options)
    return runner_flags.launch_argv(interpreter, harness, options)


def host_argv(language: str, interpreter: str, harness: str, memory_mb: int) -> list[str]:
    """The answer's own process, as a sandbox starts it on a pair folder."""
    if language == "python":
        return boot_argv(interpreter, harness, "host", "--memory-mb", str(host_memory_mb(memory_mb)))
    return [interpreter, f"{harness}/host.mjs"]
