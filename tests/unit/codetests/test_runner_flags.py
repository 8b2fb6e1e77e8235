"""The options every sandbox starts launch.mjs with: what the runner may read, and the tests' controls."""

from __future__ import annotations

from skill_be.codetests import nodefiles, runner_flags
from skill_be.codetests.runner_flags import RunnerPaths, launch_argv, launch_options


def test_the_runner_reads_its_work_folders_tests_wrappers_manifest_and_packages_only() -> None:
    options = launch_options([RunnerPaths("/w/a", "/w/node_modules"), RunnerPaths("/w/b")], frozenset())
    reads = [options[i + 1] for i, o in enumerate(options) if o == "--read"]
    assert reads == [
        "/w/a/tests/",
        "/w/a/node_modules/",
        "/w/a/package.json",
        "/w/node_modules/",
        "/w/b/tests/",
        "/w/b/node_modules/",
        "/w/b/package.json",
    ]
    assert "--weaken" not in options and "--runner-uid" not in options


def test_only_the_runner_weakenings_travel_and_the_in_realm_control_needs_writes() -> None:
    options = launch_options([], frozenset({"freeze", "uid", "bwrap", "receiver"}))
    assert options == ["--weaken", "freeze,receiver"]
    assert launch_options([], frozenset({"realm"})) == ["--weaken", "permission,freeze,registry,codegen"]
    assert set(runner_flags.RUNNER_WEAKENINGS) == {
        "permission",
        "codegen",
        "freeze",
        "receiver",
        "intrinsics",
        "registry",
        "records",
        "fatal",
    }
    # A planted hole (the fuzzer's control): one built-in name the runner takes as its own.
    planted = launch_options([], frozenset({"intrinsic=Reflect.apply", "one-result", "freeze"}))
    assert planted == ["--weaken", "freeze,intrinsic=Reflect.apply"]


def test_the_command_is_node_on_the_launcher_in_the_harness_folder() -> None:
    assert launch_argv("node", "/work/h", ["--host", "-", "0"]) == [
        "node",
        "/work/h/launch.mjs",
        "run",
        "--host",
        "-",
        "0",
    ]
    assert nodefiles.LAUNCH.name == "launch.mjs" and nodefiles.LAUNCH.exists()
