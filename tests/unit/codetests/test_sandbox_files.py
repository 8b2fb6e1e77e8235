"""What the sandboxes are given: the payload without npm's own files, the seccomp profile's
refusals, and bwrap's view of the machine."""

from __future__ import annotations

import io
import itertools
import json
import tarfile
from pathlib import Path

from skill_be.codetests.harness import write_work_folder
from skill_be.codetests.sandbox import Work
from skill_be.codetests.sandbox.bwrap import wrap_argv
from skill_be.codetests.sandbox.docker import ANSWER_UID, RUNNER_UID, SECCOMP, owners
from skill_be.codetests.sandbox.payload import RUNS_MODE, TESTS_MODE, Owners, build_payload


def work_with_packages(tmp_path: Path) -> Work:
    work = tmp_path / "deps" / "run-x"
    write_work_folder(work)
    (work / "tests" / "s").mkdir(parents=True)
    (work / "tests" / "s" / "a.test.js").write_text("export {};\n")
    pkgs = tmp_path / "deps" / "node_modules"
    (pkgs / "lib").mkdir(parents=True)
    (pkgs / "lib" / "index.js").write_text("export const x = 1;\n")
    (pkgs / "lib" / ".env").write_text("TOKEN=secret\n")  # a dotfile inside a package
    (pkgs / "lib" / ".github").mkdir()
    (pkgs / "lib" / ".github" / "workflow.yml").write_text("on: push\n")
    (pkgs / ".package-lock.json").write_text("{}\n")
    (pkgs / ".bin").mkdir()
    (pkgs / ".bin" / "tool").write_text("#!/bin/sh\n")
    (tmp_path / "deps" / ".npmrc").write_text("//registry/:_authToken=secret\n")
    return Work(key="p0", folder=work, packages=pkgs)


def test_the_payload_leaves_out_npm_s_own_files_and_closes_the_tests(tmp_path: Path) -> None:
    data, _ = build_payload((work_with_packages(tmp_path),), Owners(tests=(0, 0, 0o700), runs=(0, 0, RUNS_MODE)))
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        members = {m.name: m for m in tf.getmembers()}
    assert "b/p0/node_modules/lib/index.js" in members
    assert not [n for n in members if "/." in n or n.endswith(".npmrc")]
    assert members["b/p0/w/tests"].mode == 0o700 and members["b/p0/w/tests"].uid == 0
    assert members["b/p0/w/runs"].mode == 0o1733
    assert "b/p0/w/tests/s/a.test.js" in members


def test_control_with_dotfiles_kept_the_package_s_dotfiles_are_in_the_payload(tmp_path: Path) -> None:
    data, _ = build_payload((work_with_packages(tmp_path),), Owners(dotfiles=True))
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        names = set(tf.getnames())
    assert {"b/p0/node_modules/lib/.env", "b/p0/node_modules/lib/.github/workflow.yml"} <= names
    assert "b/p0/node_modules/.package-lock.json" not in names  # npm's own files: never


def test_docker_s_payload_gives_the_runner_the_tests_helpers_only_and_the_answer_its_folders(tmp_path: Path) -> None:
    data, _ = build_payload((work_with_packages(tmp_path),), owners(frozenset()))
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        members = {m.name: m for m in tf.getmembers()}
    tests = members["b/p0/w/tests"]
    assert (tests.uid, tests.gid, tests.mode) == (0, RUNNER_UID, TESTS_MODE) and TESTS_MODE & 0o007 == 0
    assert "b/p0/w/tests/s/a.test.js" not in members  # each answer gets its own, and only it
    runs, pairs, home = members["b/p0/w/runs"], members["p"], members["r"]
    assert (runs.uid, runs.mode, pairs.uid, pairs.mode) == (ANSWER_UID, 0o711, ANSWER_UID, 0o711)
    assert (home.uid, home.mode) == (RUNNER_UID, 0o700)
    assert all(m.uid == 0 for n, m in members.items() if n.startswith(("h/", "b/p0/node_modules")))
    assert {"h/runner.mjs", "h/host.mjs", "h/membrane.mjs", "h/launch.mjs", "h/lockdown.mjs"} <= set(members)


def test_the_seccomp_profile_refuses_what_model_code_never_needs() -> None:
    profile = json.loads(SECCOMP.read_text())
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
    allowed = {n for rule in profile["syscalls"] if rule["action"] == "SCMP_ACT_ALLOW" for n in rule["names"]}
    for name in ("ptrace", "process_vm_readv", "io_uring_setup", "keyctl", "add_key", "unshare", "setns",
                 "mq_open", "shmget", "msgget", "semget", "kcmp", "pidfd_getfd", "bpf", "mount"):  # fmt: skip
        assert name not in allowed, name
    assert {"read", "write", "openat", "clone", "execve", "epoll_wait", "futex"} <= allowed
    domains = sorted(r["args"][0]["value"] for r in profile["syscalls"] if r["names"] == ["socket"])
    assert domains == [1, 2, 10, 16]  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
    assert all(not r.get("includes", {}).get("caps") for r in profile["syscalls"])


def test_bwrap_sees_the_packages_and_its_own_folder_only(tmp_path: Path) -> None:
    work = work_with_packages(tmp_path)
    run_dir = work.folder / "runs" / "r1"
    argv = wrap_argv("/usr/bin/bwrap", "/usr/bin/node", tmp_path / "h", work.folder, work.packages, run_dir)
    assert argv[:6] == [
        "/usr/bin/bwrap",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--clearenv",
    ]
    assert argv[-1] == "--"
    pairs = list(itertools.pairwise(argv))
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"]
    assert binds == [str(run_dir)]  # the one writable place
    ro = [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"]
    assert str(work.packages) in ro and str(work.folder / "node_modules") in ro
    assert not any(p.startswith(str(work.folder / "tests")) for p in ro + binds)
    assert ("--tmpfs", str(work.packages / ".bin")) in pairs
    assert ("/dev/null", str(work.packages / ".package-lock.json")) in pairs
    assert ("--proc", "/proc") in pairs
