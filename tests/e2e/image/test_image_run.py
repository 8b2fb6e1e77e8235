"""skill-be's commands in its image on a mounted project: check and verify with no network, the
signup demo's code tests in sibling containers (socket mounted) and in the process runner (no
socket), the files it writes owned by the project's owner, the image standing in as the sandbox,
and SIGTERM or SIGINT in the middle of a run (no sandbox container left, the socket never in one)."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import secrets
import select
import subprocess
import time
from pathlib import Path

import pytest
from tests.e2e.image.conftest import (
    OWNER,
    REPO,
    Run,
    containers_of,
    created_from,
    docker,
    engine_now,
    example,
    not_owned_by,
)

EXAMPLES = sorted(p.name for p in (REPO / "examples").iterdir() if (p / "skill-be.demo.yaml").is_file())
READY = "**READY** — No universal 0% criteria. No critical regressions."


@pytest.mark.parametrize("name", EXAMPLES)
def test_check_passes_on_each_example_with_no_network(image: str, tmp_path: Path, name: str) -> None:
    root = example(tmp_path, name)
    done = Run(mount=root)(image, "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("Result: pass")


def test_the_demo_runs_then_verify_passes_with_no_network_and_the_files_are_the_owner_s(
    image: str, tmp_path: Path
) -> None:
    root = example(tmp_path, "durations")
    ran = Run(mount=root)(image, "run", "--config", "skill-be.demo.yaml")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert READY in ran.stdout
    verified = Run(mount=root)(image, "verify", "--config", "skill-be.demo.yaml")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.rstrip().endswith("Result: pass")
    assert (root / ".skill-be" / "demo.result.json").is_file()
    # A user on the host can delete what skill-be wrote without sudo.
    assert not_owned_by(tmp_path, OWNER) == []


def test_control_with_the_hand_over_switched_off_the_files_are_root_s(image: str, tmp_path: Path) -> None:
    root = example(tmp_path, "durations")
    ran = Run(mount=root, env={"SKILL_BE_CHOWN": "0"})(image, "run", "--config", "skill-be.demo.yaml")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "demo.result.json (0:0)" in " ".join(not_owned_by(tmp_path, OWNER))


def test_as_the_github_runner_does_a_root_owned_workspace_works_and_stays_root_s(image: str, tmp_path: Path) -> None:
    root = example(tmp_path, "durations", owner=None)
    run = Run(mount=None, workdir="/github/workspace", extra=["-v", f"{root}:/github/workspace"])
    done = run(image, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / ".skill-be" / "demo.result.json").stat().st_uid == 0


def summary(root: Path) -> dict[str, object]:
    found = list((root / ".skill-be" / "demo-results").glob("*/summary.json"))
    assert len(found) == 1
    data: dict[str, object] = json.loads(found[0].read_text(encoding="utf-8"))
    return data


def test_with_the_socket_the_code_tests_run_in_sibling_containers_that_are_gone_after(
    image: str, sandbox_tag: str, tmp_path: Path
) -> None:
    root = example(tmp_path, "signup", extra_config=f"\ncodeTests:\n  image: {sandbox_tag}\n")
    since = engine_now()
    done = Run(mount=root, socket=True)(image, "run", "--config", "skill-be.demo.yaml")
    until = engine_now()
    assert done.returncode == 0, done.stdout + done.stderr
    assert READY in done.stdout
    code_tests = summary(root)["codeTests"]
    assert isinstance(code_tests, dict)
    assert (code_tests["sandbox"], code_tests["image"]) == ("docker", sandbox_tag)
    # The host's engine made them (siblings, not children), and removed them.
    assert created_from(sandbox_tag, since, until) != []
    assert containers_of(sandbox_tag) == []
    assert not_owned_by(tmp_path, OWNER) == []


# The model's answer: every test of it fails with what it could see, a uid and whether any process's
# environment (/proc/<pid>/environ) had the canary skill-be was started with.
PROBE_MODEL = r'''import sys
sys.stdin.read()
print("""Here it is.

```ts
import { readdirSync, readFileSync } from 'node:fs';

function probe(): string {
  const seen: string[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/environ`, 'latin1').includes('CANARY_%s')) seen.push(p);
    } catch {}
  }
  return `PROBE uid=${process.getuid!()} ` + (seen.length ? 'LEAK at ' + seen.join(',') : 'contained');
}

export const result = (_deps: unknown) => async (_input: unknown) => {
  throw new Error(probe());
};

export const reason = 'It reports what it saw.';
```""")
'''


def probes(image: str, root: Path, user: str | None) -> set[str]:
    tag = secrets.token_hex(6)
    (root / "demo" / "model.py").write_text(PROBE_MODEL % tag, encoding="utf-8")
    done = Run(mount=root, user=user, env={f"CANARY_{tag}": "secret"})(image, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 1, done.stdout + done.stderr  # every code test fails: NOT READY
    code_tests = summary(root)["codeTests"]
    assert isinstance(code_tests, dict) and code_tests["sandbox"] == "process"
    seen = set()
    for tests in (root / ".skill-be" / "demo-results").glob("*/signup/new-signup/*/*.tests.json"):
        seen |= {line.split('"')[0] for line in tests.read_text(encoding="utf-8").split("PROBE ")[1:]}
    assert seen, "no answer reported what it saw"
    return seen


def test_without_the_socket_the_answer_runs_as_another_uid_and_cannot_read_skill_be_s_environment(
    image: str, tmp_path: Path
) -> None:
    seen = probes(image, example(tmp_path, "signup"), user=None)
    uids = {int(s.split()[0].removeprefix("uid=")) for s in seen}
    assert 0 not in uids and OWNER not in uids and 65534 not in uids
    assert {s.split(" ", 1)[1] for s in seen} == {"contained"}
    assert not_owned_by(tmp_path, OWNER) == []  # nothing of root's, nor of the answers' uids, is left


def test_control_as_a_plain_user_skill_be_cannot_drop_the_uid_and_the_same_answer_reads_the_canary(
    image: str, tmp_path: Path
) -> None:
    seen = probes(image, example(tmp_path, "signup"), user=f"{OWNER}:{OWNER}")
    assert all(s.startswith(f"uid={OWNER} LEAK at ") for s in seen), seen
    assert any(" 1" in s.replace(",", " ") for s in seen)  # PID 1 is skill-be itself


def test_the_image_itself_stands_in_as_the_sandbox(image: str, tmp_path: Path) -> None:
    # What skill-be falls back to when the engine has no skill-be-sandbox image: its own image.
    image_id = docker("image", "inspect", "-f", "{{.Id}}", image, check=True).stdout.strip()
    find = (
        "import docker; from skill_be.codetests.sandbox import image; "
        "print(image.resolve(docker.from_env(), 'skill-be-sandbox:absent', default='skill-be-sandbox:absent'))"
    )
    own = Run(socket=True, workdir=None, extra=["--entrypoint", "python3"])(image, "-c", find)
    assert own.returncode == 0, own.stderr
    assert own.stdout.strip() == image_id
    root = example(tmp_path, "signup", extra_config=f"\ncodeTests:\n  sandbox: docker\n  image: {image_id}\n")
    since = engine_now()
    done = Run(mount=root, socket=True)(image, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert READY in done.stdout
    assert created_from(image_id, since, engine_now()) != []
    assert containers_of(image_id) == []


SLOW_TEST = """\
import { test } from 'skill-be/testing';

test('waits', async () => {
  await new Promise((resolve) => setTimeout(resolve, 120_000));
});
"""


@pytest.mark.parametrize(("signal", "code"), [("TERM", 143), ("INT", 130)])
@pytest.mark.parametrize("owner", [OWNER, None], ids=["user-owned", "root-owned"])
def test_a_signal_during_the_code_tests_ends_the_run_and_leaves_no_sandbox(
    image: str, sandbox_tag: str, tmp_path: Path, signal: str, code: int, owner: int | None
) -> None:
    extra = f"\ncodeTests:\n  image: {sandbox_tag}\n  testTimeoutSeconds: 300\n  answerTimeoutSeconds: 300\n"
    root = example(tmp_path, "signup", owner=owner, extra_config=extra)
    (root / "skill-tests" / "signup" / "new-signup.test.ts").write_text(SLOW_TEST, encoding="utf-8")
    name = f"skill-be-e2e-{secrets.token_hex(4)}"
    run = Run(mount=root, socket=True, name=name)
    proc = subprocess.Popen(run.argv(image, "run", "--config", "skill-be.demo.yaml"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not containers_of(sandbox_tag) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        ids = [c.split()[0] for c in containers_of(sandbox_tag)]
        assert ids, "no sandbox container was started"
        # Files go in through the archive API: the sandbox has its tmpfs volume, and never the socket.
        mounts = json.loads(docker("inspect", "-f", "{{json .Mounts}}", ids[0], check=True).stdout)
        assert [m["Type"] for m in mounts] == ["volume"]
        time.sleep(2)  # the answers reach the sandbox
        docker("kill", "-s", signal, name, check=True)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            docker("rm", "-f", name)
            proc.kill()
    assert proc.returncode == code, err
    assert containers_of(sandbox_tag) == [], err
    if owner is not None:
        assert not_owned_by(tmp_path, owner) == []


@pytest.mark.parametrize("owner", [OWNER, None], ids=["user-owned", "root-owned"])
def test_ctrl_c_on_docker_run_it_exits_130_and_leaves_no_sandbox(
    image: str, sandbox_tag: str, tmp_path: Path, owner: int | None
) -> None:
    # A real terminal: Ctrl-C is a byte the container's terminal turns into SIGINT for its foreground group.
    extra = f"\ncodeTests:\n  image: {sandbox_tag}\n  testTimeoutSeconds: 300\n  answerTimeoutSeconds: 300\n"
    root = example(tmp_path, "signup", owner=owner, extra_config=extra)
    (root / "skill-tests" / "signup" / "new-signup.test.ts").write_text(SLOW_TEST, encoding="utf-8")
    argv = Run(mount=root, socket=True, extra=["-it"]).argv(image, "run", "--config", "skill-be.demo.yaml")
    pid, fd = pty.fork()
    if pid == 0:  # the child: docker's client on the terminal
        os.execvp(argv[0], argv)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while not containers_of(sandbox_tag) and time.monotonic() < deadline:
            seen += read_some(fd)
        assert containers_of(sandbox_tag), "no sandbox container was started"
        time.sleep(2)  # the answers reach the sandbox
        os.write(fd, b"\x03")
        deadline = time.monotonic() + 60
        done, status = os.waitpid(pid, os.WNOHANG)
        while done == 0 and time.monotonic() < deadline:
            seen += read_some(fd)
            done, status = os.waitpid(pid, os.WNOHANG)
        assert done == pid, "docker run did not end within 60 s of Ctrl-C"
    finally:
        with contextlib.suppress(ChildProcessError, ProcessLookupError):
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    text = seen.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 130, text
    assert "SIGINT: stopped the model calls in flight" in text
    assert containers_of(sandbox_tag) == [], text


def read_some(fd: int) -> bytes:
    ready, _, _ = select.select([fd], [], [], 0.2)
    if not ready:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:  # the terminal closed: the client is gone
        time.sleep(0.2)
        return b""


def test_docker_stop_during_a_check_ends_it_with_143(image: str, tmp_path: Path) -> None:
    # `check` has no SIGTERM handler of its own; as the container's PID 1 it would ignore SIGTERM.
    root = example(tmp_path, "durations")
    config = root / "skill-be.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").split("checks:")[0] + "checks:\n  typecheck:\n    command: sleep 60\n",
        encoding="utf-8",
    )
    name = f"skill-be-e2e-{secrets.token_hex(4)}"
    proc = subprocess.Popen(Run(mount=root, name=name).argv(image, "check"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "sleep 60" not in docker("top", name, "-o", "args").stdout:
            time.sleep(0.2)
        docker("kill", "-s", "TERM", name, check=True)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            docker("rm", "-f", name)
            proc.kill()
    assert proc.returncode == 143, err  # ignored, the check would go on for minutes: communicate() times out
