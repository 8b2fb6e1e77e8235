"""The sandbox contract (test_sandbox_contract.py) for Python's tests: the same OS-side claims, with a
Python runner and Python answers, in every sandbox, each with its control.

A taken-over runner is played by a test file (test files run in the runner): it reports its uid, looks
for skill-be's secret in every /proc/<pid>/environ it can read, walks the folders above it and the
project for another scenario's test, and tries to rewrite its own test file. An answer reads
skill-be's secret, the tests, the project; starts as many processes as it can; leaves files and a
System V segment for the next answer; and opens a connection. Sessions are shared per (sandbox,
weaken). Needs root, a Docker engine with the sandbox image and bwrap, as CI has."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.codetests.conftest import CodeProject, Driver, py
from tests.integration.codetests.pysupport import IMAGE, SANDBOXES

from skill_be.codetests.session import CodeTestSession, TestRun

CANARY_ENV = "SKILL_BE_PY_CONTRACT_CANARY"
CANARY = f"canary-{secrets.token_hex(8)}"
OTHER_KEY = f"answer-key-{secrets.token_hex(8)}"
PIDS = 48

SPY_TEST = """
import errno, json, os
from answer import result


def walk(top, depth, found, me):
    if depth < 0 or found:
        return
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for e in entries:
        try:
            if e.is_dir(follow_symlinks=False):
                walk(e.path, depth - 1, found, me)
            elif e.is_file() and e.path != me and KEY in open(e.path, errors="replace").read():
                found.append(e.path)
        except OSError:
            pass


def test_spy():
    me = os.path.abspath(__file__)
    seen = {"uid": os.getuid(), "environ": [], "other": [], "project": [], "answerUid": result()}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if CANARY in open(f"/proc/{p}/environ", "rb").read().decode("latin1"):
                    seen["environ"].append(p)
            except OSError:
                pass
    walk(os.path.abspath(os.path.join(me, *[".."] * 6)), 9, seen["other"], me)
    walk(PROJECT, 9, seen["project"], me)
    mark = " ".join(["#", "tampered", "by", "the", "spy"])
    seen["tampered"] = mark in open(me).read()
    try:
        with open(me, "a") as f:
            f.write("\\n" + mark + "\\n")
        seen["write"] = "written"
    except OSError as e:
        seen["write"] = errno.errorcode[e.errno]
    raise AssertionError("SPY " + json.dumps(seen))
"""
OTHER_TEST = f"""
def test_other():
    assert "{OTHER_KEY}"
"""
ECHO_TEST = """
import json
from answer import result


def test_echo():
    raise AssertionError("ECHO " + json.dumps(result()))
"""
UID_ANSWER = "def result():\n    import os\n    return os.getuid()"


class Contract:
    def __init__(self, project: CodeProject, session: CodeTestSession, drive: Driver) -> None:
        self.project = project
        self.session = session
        self.drive = drive

    def run(self, scenario: str, code: str) -> TestRun:
        return self.drive(self.session.run("probe", scenario, py(code)))

    def report(self, scenario: str, code: str, tag: str) -> Any:
        run = self.run(scenario, code)
        assert run.error is None, run.error
        message = (run.results[0].message or "").removeprefix("AssertionError: ")
        assert message.startswith(tag + " "), message
        return json.loads(message[len(tag) + 1 :])


def make_project(root: Path) -> CodeProject:
    root.mkdir(parents=True)
    root.chmod(0o755)
    project = CodeProject(root / "proj")
    spy = SPY_TEST.replace("KEY", json.dumps(OTHER_KEY)).replace("CANARY", json.dumps(CANARY))
    spy = spy.replace("PROJECT", json.dumps(str(project.root)))
    project.scenarios({"spy": spy, "other": OTHER_TEST, "echo": ECHO_TEST}, language="python")
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for f in files:
            os.chmod(os.path.join(folder, f), 0o644)
    return project


class Sessions:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="skill-be-py-contract-"))
        self.root.chmod(0o755)
        self.open: dict[tuple[str, frozenset[str]], Contract] = {}
        self.drive = Driver()

    def get(self, kind: str, *weaken: str) -> Contract:
        key = (kind, frozenset(weaken))
        if key not in self.open:
            project = make_project(self.root / f"{kind}-{'-'.join(sorted(key[1])) or 'kept'}")
            settings = {"sandbox": kind, "image": IMAGE, "testTimeoutSeconds": 10, "answerTimeoutSeconds": 30}
            config = project.save_config({**settings, "pids": PIDS}, concurrency=1)
            self.open[key] = Contract(project, self.drive.open(config, weaken=key[1]), self.drive)
        return self.open[key]

    def close(self) -> None:
        for contract in self.open.values():
            self.drive(contract.session.close())
        self.drive.close()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def sessions() -> Iterator[Sessions]:
    assert os.geteuid() == 0, "the contract holds for the process runner as root; run the tests as root, as CI does"
    os.environ[CANARY_ENV] = CANARY
    # A process of skill-be's with the secret in its environment, as a model adapter's CLI holds its key
    # (/proc/<pid>/environ shows what a process started with: skill-be's own shows no later setenv).
    holder = subprocess.Popen(["sleep", "3600"], env={**os.environ, CANARY_ENV: CANARY})
    s = Sessions()
    try:
        yield s
    finally:
        s.close()
        holder.kill()
        holder.wait()
        del os.environ[CANARY_ENV]


def off(kind: str, *names: str) -> tuple[str, ...]:
    """bwrap's namespaces off too where the control needs to see the host."""
    return (*names, "bwrap") if kind == "bwrap" else names


# --- a taken-over runner ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_runner_is_neither_root_nor_the_answer_and_reads_no_secret_nor_other_test(
    sessions: Sessions, kind: str
) -> None:
    seen = sessions.get(kind).report("spy", UID_ANSWER, "SPY")
    assert seen["uid"] != 0 and seen["uid"] != seen["answerUid"] and seen["answerUid"] != 0, seen
    assert seen["environ"] == [], seen
    assert seen["other"] == [], seen
    assert seen["write"] in ("EACCES", "EROFS"), seen
    if kind == "process":  # no private view of the file system: a world-readable project is readable
        assert seen["project"] and all("/skill-tests/" in p for p in seen["project"]), seen
    else:
        assert seen["project"] == [], seen


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_a_runner_as_root_is_root_and_writes_its_test(sessions: Sessions, kind: str) -> None:
    contract = sessions.get(kind, *off(kind, "runner-uid"))
    seen = contract.report("spy", UID_ANSWER, "SPY")
    assert seen["uid"] == 0 and seen["write"] == "written", seen
    if kind != "docker":  # skill-be's environment never enters the container, whoever runs there
        assert seen["environ"], seen
    again = contract.report("spy", UID_ANSWER, "SPY")  # and the next answer's copy is clean all the same
    assert not again["tampered"], again


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_with_every_test_file_given_the_runner_finds_the_other_scenario_s(
    sessions: Sessions, kind: str
) -> None:
    assert sessions.get(kind, "test-files").report("spy", UID_ANSWER, "SPY")["other"]


# --- the answer -----------------------------------------------------------------------------------

SNOOP = """
import os

def result():
    found = {"environ": [], "tests": []}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if CANARY in open(f"/proc/{p}/environ", "rb").read().decode("latin1"):
                    found["environ"].append(p)
            except OSError:
                pass
    base = os.path.abspath(os.path.join(os.getcwd(), "..", ".."))
    for folder, _, files in os.walk(base):
        for f in files:
            try:
                if KEY in open(os.path.join(folder, f), errors="replace").read():
                    found["tests"].append(os.path.join(folder, f))
            except OSError:
                pass
    return found
"""


def snoop() -> str:
    return SNOOP.replace("CANARY", json.dumps(CANARY)).replace("KEY", '"def " + "test_echo"')


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_answer_reads_no_secret_and_no_test(sessions: Sessions, kind: str) -> None:
    assert sessions.get(kind).report("echo", snoop(), "ECHO") == {"environ": [], "tests": []}


@pytest.mark.parametrize("kind", ["process", "bwrap"])
def test_control_as_skill_bes_own_user_the_answer_reads_the_secret_and_the_tests(sessions: Sessions, kind: str) -> None:
    found = sessions.get(kind, *off(kind, "uid")).report("echo", snoop(), "ECHO")
    assert found["environ"] and found["tests"], found


def test_control_with_skill_bes_environment_given_the_docker_answer_reads_it(sessions: Sessions) -> None:
    assert sessions.get("docker", "environ").report("echo", snoop(), "ECHO")["environ"]


def test_control_with_the_tests_open_to_every_user_the_docker_answer_reads_them(sessions: Sessions) -> None:
    assert sessions.get("docker", "tests").report("echo", snoop(), "ECHO")["tests"]


SPAWN = """
import subprocess

def result():
    started = 0
    for _ in range(120):
        try:
            subprocess.Popen(["sleep", "4"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
            started += 1
        except OSError:
            pass
    return started
"""


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_process_limit_holds(sessions: Sessions, kind: str) -> None:
    assert sessions.get(kind).report("echo", SPAWN, "ECHO") < PIDS


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_without_the_limit_every_process_starts(sessions: Sessions, kind: str) -> None:
    assert sessions.get(kind, "limits").report("echo", SPAWN, "ECHO") == 120


def leave(mark: str, open_folder: Path) -> str:
    return f"""
import os, subprocess

def result():
    left = []
    for p in ["/run/lock/{mark}", "/dev/shm/{mark}", "{open_folder}/{mark}"]:
        try:
            open(p, "w").write("x")
            left.append(p)
        except OSError:
            pass
    try:
        subprocess.run(["ipcmk", "-M", "4096", "-p", "0600"], check=True, capture_output=True)
        left.append("shm")
    except (OSError, subprocess.CalledProcessError):
        pass
    return {{"left": left, "uid": os.getuid()}}
"""


def find(mark: str, open_folder: Path, uid: int) -> str:
    return f"""
import os

def result():
    found = [p for p in ["/run/lock/{mark}", "/dev/shm/{mark}", "{open_folder}/{mark}"] if os.path.exists(p)]
    try:
        rows = open("/proc/sysvipc/shm").read().splitlines()[1:]
    except OSError:
        rows = []
    if any(r.split()[7] == "{uid}" for r in rows if len(r.split()) > 7):
        found.append("shm")
    return found
"""


@pytest.fixture(scope="module")
def open_folder() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="skill-be-py-contract-open-", dir="/tmp"))
    os.chown(folder, 65534, 65534)
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def leftovers(contract: Contract, open_folder: Path) -> tuple[list[str], list[str]]:
    mark = f"left-{secrets.token_hex(4)}"
    left = contract.report("echo", leave(mark, open_folder), "ECHO")
    return left["left"], contract.report("echo", find(mark, open_folder, left["uid"]), "ECHO")


@pytest.mark.parametrize("kind", SANDBOXES)
def test_nothing_left_in_shared_places_or_ipc_reaches_the_next_answer(
    sessions: Sessions, kind: str, open_folder: Path
) -> None:
    left, found = leftovers(sessions.get(kind), open_folder)
    assert found == [], (left, found)


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_without_the_sweep_the_next_answer_finds_what_was_left(
    sessions: Sessions, kind: str, open_folder: Path
) -> None:
    names = {"docker": ("sweep", "seccomp"), "bwrap": ("sweep", "bwrap"), "process": ("sweep",)}[kind]
    left, found = leftovers(sessions.get(kind, *names), open_folder)
    assert found and "shm" in found, (left, found)


CONNECT = """
import socket

def result():
    try:
        socket.create_connection(("127.0.0.1", PORT), timeout=3).close()
        return "connected"
    except OSError as e:
        return type(e).__name__
"""


@pytest.fixture(scope="module")
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.5)
        while not stop.is_set():
            try:
                server.accept()[0].close()
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    server.close()


@pytest.mark.parametrize("kind", ["docker", "bwrap"])
def test_the_answer_has_no_network(sessions: Sessions, kind: str, listener: int) -> None:
    assert sessions.get(kind).report("echo", CONNECT.replace("PORT", str(listener)), "ECHO") != "connected"


def test_control_the_process_sandbox_has_the_machine_s_network(sessions: Sessions, listener: int) -> None:
    assert sessions.get("process").report("echo", CONNECT.replace("PORT", str(listener)), "ECHO") == "connected"
