"""How every sandbox starts a runner: `node launch.mjs run <options>`, the options built here alone.

launch.mjs (in the harness folder), started by the sandbox under the runner's own uid, starts the
runner under Node's permission model and the answer's side (the relay to the answer's process the
sandbox started, see sandbox/pair.py, or that process itself as the user's own). The runner may
read its harness and the paths given here (the work folder's compiled tests, its wrapper packages
and package.json, the installed packages), and nothing else; it may start no process or worker and
write no file. The spelling of Node's flag (`--permission` or
`--experimental-permission`) depends on the Node that runs it, so launch.mjs's permissionFlags()
picks it. Names in `weaken` that switch a runner protection off (only tests pass them, through
Settings.weaken) travel as `--weaken`; nothing a user or an answer writes reaches this argv."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from skill_be.codetests.nodefiles import LAUNCH

# The runner's own protections a test's control may switch off (launch.mjs and runner.mjs read them):
# Node's permission model, code from strings (launch.mjs adds --disallow-code-generation-from-strings),
# the frozen realm, the guarded membrane, the codec's built-ins (every name, or `intrinsic=<name>`:
# one, a planted hole), the frozen registry, the null-prototype outcomes, a `fatal` as the answer's.
RUNNER_WEAKENINGS = ("permission", "codegen", "freeze", "receiver", "intrinsics", "registry", "records", "fatal")
ONE_INTRINSIC = "intrinsic="  # a prefix: the name of one built-in the runner takes as its own


@dataclass(frozen=True)
class RunnerPaths:
    """One work folder as the runner sees it: the folder, and the installed packages' folder if any."""

    base: str
    packages: str | None = None
    tests: str = "tests"  # the folder below `base` with the test files and helpers the runner reads


def read_paths(works: Iterable[RunnerPaths]) -> list[str]:
    """What the runner may read besides its harness: per work folder, its tests, wrappers and manifest."""
    out: list[str] = []
    for w in works:
        out += [f"{w.base}/{w.tests}/", f"{w.base}/node_modules/", f"{w.base}/package.json"]
        if w.packages:
            out.append(f"{w.packages}/")
    return out


def launch_options(works: Iterable[RunnerPaths], weaken: frozenset[str]) -> list[str]:
    """The options launch.mjs takes for the runner (the answer's own, --host and --wrap, come after)."""
    options: list[str] = []
    for path in read_paths(works):
        options += ["--read", path]
    off = [w for w in RUNNER_WEAKENINGS if w in weaken]
    off += sorted(w for w in weaken if w.startswith(ONE_INTRINSIC))
    if "realm" in weaken:
        # The old way, for the controls only: the answer in the runner's own realm, which must write
        # the answer's file and which the controls show to be open to tampering (its registry live,
        # its strings compiled, as they were then).
        off += [w for w in ("permission", "freeze", "registry", "codegen") if w not in off]
    if off:
        options += ["--weaken", ",".join(off)]
    return options


def launch_argv(node: str, harness: str, options: Sequence[str]) -> list[str]:
    """The whole command: `harness` is the folder that holds launch.mjs as the runner's machine sees it."""
    return [node, f"{harness}/{LAUNCH.name}", "run", *options]
