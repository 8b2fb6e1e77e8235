"""One contract for every agent box (docker, process), as the code-test sandboxes have theirs: the same
attacks and promises run against each box, and each protection has a control, the same attack with
that one protection switched off (`BoxSettings.weaken`, or the box that does not have it), where it
works. What each box promises is PROMISES (docs/agent-mode.md says the same in words):

- the network: only the configured provider (docker: the egress proxy; process: none);
- the host: no host file, no process environment of skill-be's, no Docker socket (docker only);
- the key: in the agent's box, never in the checks', never on a command line, never in the kept
  files (both);
- limits: processes, disk (docker only: the process box has none);
- leftovers: nothing a run made outlives it (both);
- the record: the CLI's exit and output are skill-be's (docker: a supervisor under another uid;
  process: the operating system's), cut at the CLI's exit, what it left killed before it is read;
- the checks: each check's exit and output its own, every process it left killed before the next;
  a JSON last line counts only from a check that exits 0 (both).

Each box is a real one: a container from skill-be's image behind its own egress proxy, or this
machine. Needs Docker and skill-be's image, as CI has."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent_run.conftest import IMAGE, Canary
from tests.integration.agent_run.fake_agent import FakeDriver

from skill_be.agents.boxes import AgentBox, BoxLimits, BoxSettings
from skill_be.agents.boxes import docker as docker_box
from skill_be.agents.boxes.docker import LABEL, DockerBox
from skill_be.agents.boxes.egress import CONNECT_PORT, plan_for
from skill_be.agents.boxes.process import ProcessBox
from skill_be.agents.drivers.base import AgentLimits, AgentSetup, ModelEndpoint

KEY = "sk-agent-test-key-0123456789"
BOX_KINDS = ("docker", "process")
PROMISES: dict[str, dict[str, bool]] = {
    "docker": {"network": True, "host": True, "key": True, "limits": True, "leftovers": True},
    "process": {"network": False, "host": False, "key": True, "limits": False, "leftovers": True},
}
SMALL = BoxLimits(memory_mb=512, pids=128, disk_mb=128)
PROBE = r"""
import json, os, socket, sys
gw, port, secret = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def tcp(host, p):
    try:
        socket.create_connection((host, p), timeout=2).close(); return "connected"
    except OSError as e:
        return type(e).__name__
def connect_via_proxy(target):
    try:
        s = socket.create_connection(("127.0.0.1", PROXY), timeout=2)
        s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        return s.recv(100).decode().split("\r\n")[0]
    except OSError as e:
        return type(e).__name__
def readable(path):
    try:
        return open(path).read()[:50]
    except OSError as e:
        return type(e).__name__
env_hits = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            if b"SKILL_BE_CANARY_ENV" in open(f"/proc/{pid}/environ", "rb").read():
                env_hits.append(pid)
        except OSError:
            pass
print(json.dumps({
    "canary": tcp(gw, port),
    "proxy_to_canary": connect_via_proxy(f"{gw}:{port}"),
    "host_file": readable(secret),
    "skill_be_env": env_hits,
    "docker_socket": os.path.exists("/var/run/docker.sock"),
}))
"""


class Boxes:
    """One box per (kind, protections off, limits), opened on first use and closed at the end."""

    def __init__(self, model_server: str) -> None:
        self.endpoints = [ModelEndpoint("m", "anthropic", base_url=model_server)]
        self.open: dict[tuple[str, frozenset[str], BoxLimits], AgentBox] = {}

    def get(self, kind: str, *weaken: str, limits: BoxLimits = SMALL) -> AgentBox:
        key = (kind, frozenset(weaken), limits)
        if key not in self.open:
            settings = BoxSettings(image=IMAGE, endpoints=self.endpoints, limits=limits, weaken=key[1])
            self.open[key] = docker_box.create(settings, lambda _: None) if kind == "docker" else ProcessBox(settings)
        return self.open[key]

    def close(self) -> None:
        for box in self.open.values():
            box.close()


@pytest.fixture(scope="module")
def boxes(client: Any, model_server: str) -> Iterator[Boxes]:
    b = Boxes(model_server)
    yield b
    b.close()


def setup_for(model_server: str, steps: list[dict[str, object]], timeout: float = 60) -> AgentSetup:
    prompt = json.dumps({"steps": steps, "final": "done"})
    endpoint = ModelEndpoint("m", "anthropic", base_url=model_server, api_key=KEY)
    return AgentSetup(prompt, endpoint, limits=AgentLimits(timeout_seconds=timeout))


def results(box: AgentBox, model_server: str, steps: list[dict[str, object]], timeout: float = 60) -> list[str]:
    """Each step's tool result, from the run's transcript."""
    run = box.run_agent(FakeDriver(), setup_for(model_server, steps, timeout), {})
    assert run.error is None, run
    t = FakeDriver().parse(run.stdout, setup_for(model_server, []))
    return [c.result or "" for c in t.tool_calls]


def probe(box: AgentBox, model_server: str, canary: Canary, secret: Path) -> dict[str, Any]:
    steps = [
        {"ask": "/v1/hello"},
        {"write": ["probe.py", PROBE.replace("PROXY", str(CONNECT_PORT))]},
        {"sh": f"python3 probe.py {canary.host} {canary.port} {secret}"},
    ]
    ask, _, found = results(box, model_server, steps)
    return {"ask": ask, **json.loads(found or "{}")}


@pytest.fixture
def secret(tmp_path: Path) -> Iterator[Path]:
    """A host file, and a host process (standing in for skill-be) with a canary in its environment."""
    p = tmp_path / "host-secret.txt"
    p.write_text("host secret")
    env = {**os.environ, "SKILL_BE_CANARY_ENV": "1"}
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], env=env)
    yield p
    sleeper.kill()
    sleeper.wait()


# --- the network ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", BOX_KINDS)
def test_the_agent_reaches_its_provider_and_nothing_else(
    boxes: Boxes, kind: str, model_server: str, canary: Canary, secret: Path
) -> None:
    before = canary.hits
    found = probe(boxes.get(kind), model_server, canary, secret)
    assert found["ask"] == "model says hi"  # the provider, in every box
    if PROMISES[kind]["network"]:
        assert found["canary"] != "connected" and canary.hits == before
        assert found["proxy_to_canary"].startswith("HTTP/1.1 403")
        box = boxes.get(kind)
        assert isinstance(box, DockerBox) and box.egress is not None
        assert any(f"{canary.host}:{canary.port}" in line for line in box.egress.refused())
    else:  # the process box has the machine's network, as its warning says
        assert found["canary"] == "connected" and canary.hits == before + 1


def test_control_with_a_network_the_canary_is_reached(
    boxes: Boxes, model_server: str, canary: Canary, secret: Path
) -> None:
    before = canary.hits
    found = probe(boxes.get("docker", "network"), model_server, canary, secret)
    assert found["canary"] == "connected" and canary.hits == before + 1


# --- the host ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", BOX_KINDS)
def test_no_host_file_no_skill_be_environment_no_docker_socket(
    boxes: Boxes, kind: str, model_server: str, canary: Canary, secret: Path
) -> None:
    found = probe(boxes.get(kind), model_server, canary, secret)
    if PROMISES[kind]["host"]:
        assert found["host_file"] == "FileNotFoundError"
        assert found["skill_be_env"] == []
        assert found["docker_socket"] is False
    else:  # the control: on this machine the same probe finds all three
        assert found["host_file"] == "host secret"
        assert found["skill_be_env"] != []  # the stand-in's environment, through /proc
        assert found["docker_socket"] is os.path.exists("/var/run/docker.sock") is True


# --- the key -------------------------------------------------------------------------------------

GREP_KEY = f"cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c {KEY} || true"


@pytest.mark.parametrize("kind", BOX_KINDS)
def test_the_key_is_in_the_agent_s_box_and_not_in_the_checks(boxes: Boxes, kind: str, model_server: str) -> None:
    box = boxes.get(kind)
    (count,) = results(box, model_server, [{"sh": GREP_KEY}])
    assert int(count.strip()) >= 1  # control: the agent has it
    rows, error = box.run_checks({}, {}, [("env", f"env; {GREP_KEY}")], 30)
    assert error is None
    assert KEY not in rows[0].output and rows[0].output.strip().endswith("0")


# --- limits --------------------------------------------------------------------------------------

SPAWN = "n=0; for i in $(seq 200); do (sleep 5 &) 2>/dev/null && n=$((n+1)); done; echo started $n"


def test_processes_stop_at_the_box_s_limit(boxes: Boxes, model_server: str) -> None:
    assert PROMISES["docker"]["limits"] and not PROMISES["process"]["limits"]  # no limits on this machine
    (limited,) = results(boxes.get("docker"), model_server, [{"sh": SPAWN}])
    assert int(limited.split()[-1]) < 128, limited
    # the control: a box with room for them starts all 200
    (room,) = results(boxes.get("docker", limits=BoxLimits(memory_mb=512, pids=1024, disk_mb=128)), model_server,
                      [{"sh": SPAWN}])  # fmt: skip
    assert room.strip().endswith("started 200"), room


def test_a_fork_bomb_and_a_huge_file_end_as_that_run_s_error(boxes: Boxes, model_server: str) -> None:
    box = boxes.get("docker")
    bomb = box.run_agent(
        FakeDriver(), setup_for(model_server, [{"sh": "b() { b | b & }; b; while :; do :; done"}], timeout=8), {}
    )
    assert bomb.exit == "timeout"
    huge = box.run_agent(FakeDriver(), setup_for(model_server, [{"sh": "head -c 300M /dev/zero > big"}]), {})
    assert huge.error is not None and "over" in huge.error  # 128 MB volume: the write fails there
    after = box.run_agent(FakeDriver(), setup_for(model_server, [{"write": ["ok.txt", "fine"]}]), {})
    assert after.error is None and after.workspace == {"ok.txt": b"fine"}


def test_the_disk_stops_at_the_box_s_volume(boxes: Boxes, model_server: str) -> None:
    write = [{"sh": "head -c 50M /dev/zero 2>/dev/null > big && echo wrote || echo refused; rm -f big"}]
    small = BoxLimits(memory_mb=512, pids=128, disk_mb=32)
    (refused,) = results(boxes.get("docker", limits=small), model_server, write)
    assert refused.strip().endswith("refused"), refused
    (wrote,) = results(boxes.get("docker"), model_server, write)  # the control: a 128 MB volume holds it
    assert wrote.strip().endswith("wrote"), wrote


# --- leftovers -----------------------------------------------------------------------------------


def made_by(client: Any, box: DockerBox) -> list[str]:
    selector = {"label": f"{LABEL}={box.id}"}
    return [c.name for c in client.containers.list(all=True, filters=selector)] + [
        v.name for v in client.volumes.list(filters=selector)
    ]


def test_a_closed_docker_box_leaves_no_container_or_volume(client: Any, model_server: str) -> None:
    box = docker_box.create(BoxSettings(image=IMAGE, endpoints=[ModelEndpoint("m", "anthropic", base_url=model_server)],
                                        limits=SMALL), lambda _: None)  # fmt: skip
    try:
        results(box, model_server, [{"write": ["a.txt", "a"]}])
        assert made_by(client, box) != []  # the control: the proxy and the spare container are there
    finally:
        box.close()
    assert made_by(client, box) == []


def test_a_process_run_leaves_no_folder(boxes: Boxes, model_server: str) -> None:
    import tempfile

    root = Path(tempfile.gettempdir())
    before = set(root.glob("skill-be-agent-*")) | set(root.glob("skill-be-checks-*"))
    box = boxes.get("process")
    (where,) = results(box, model_server, [{"sh": "pwd"}])
    assert Path(where.strip()).name == "ws" and not Path(where.strip()).exists()  # the control: it was there
    box.run_checks({}, {}, [("x", "true")], 10)
    assert set(root.glob("skill-be-agent-*")) | set(root.glob("skill-be-checks-*")) == before


# --- the record: skill-be's, not the agent's ------------------------------------------------------

FORGED = '{"type": "final", "text": "FORGED", "turns": 1, "input": 1, "output": 1}'
# Left behind by the agent: it holds the CLI's stdout, waits until the CLI is dead, then for three
# seconds writes a forged final event into that stream and rewrites the files the old record was in.
REWRITER = (
    "cli=$PPID; export F='" + FORGED + "'; setsid sh -c '"
    'trap "" PIPE; exec 3>/proc/$0/fd/1; '
    'while ! grep -qs "^State:.Z" /proc/$0/status && [ -e /proc/$0 ]; do sleep 0.005; done; '
    'i=0; while [ $i -lt 150 ]; do printf 0 > /work/.skill-be/out/exit; echo "$F" >> /work/.skill-be/out/stdout; '
    'echo "$F" >&3; i=$((i+1)); sleep 0.02; done\' $cli </dev/null >/dev/null 2>&1 & '
)
ORDER = {"docker": "record", "process": "cut"}  # the protection whose control shows this attack


def rewriting_run(box: AgentBox, model_server: str) -> Any:
    steps: list[dict[str, object]] = [{"sh": "echo real"}, {"sh": REWRITER + "sleep 60"}]
    return box.run_agent(FakeDriver(), setup_for(model_server, steps, timeout=4), {})


@pytest.mark.parametrize("kind", BOX_KINDS)
def test_a_process_left_behind_cannot_rewrite_the_run_s_record(boxes: Boxes, kind: str, model_server: str) -> None:
    run = rewriting_run(boxes.get(kind), model_server)
    assert run.exit == "timeout", run  # past its time limit, as it was
    assert "FORGED" not in run.stdout and '"type": "init"' in run.stdout and "real" in run.stdout  # the real stream


@pytest.mark.parametrize("kind", BOX_KINDS)
def test_control_the_old_record_is_rewritten(boxes: Boxes, kind: str, model_server: str) -> None:
    run = rewriting_run(boxes.get(kind, ORDER[kind]), model_server)
    assert "FORGED" in run.stdout, run
    if kind == "docker":  # the exit in a file the agent can write: rewritten too
        assert run.exit == "0", run


LEAVER = "setsid sh -c 'echo $$ > pid.txt; exec sleep 60' </dev/null >/dev/null 2>&1 & sleep 0.3"


@pytest.mark.parametrize("weaken", [(), ("kill",)], ids=["kept", "control"])
def test_what_a_run_leaves_on_this_machine_is_killed(boxes: Boxes, model_server: str, weaken: tuple[str, ...]) -> None:
    run = boxes.get("process", *weaken).run_agent(FakeDriver(), setup_for(model_server, [{"sh": LEAVER}]), {})
    assert run.exit == "0" and run.workspace is not None
    pid = int(run.workspace["pid.txt"])
    alive = running(pid)
    if alive:
        os.kill(pid, 9)
    assert alive is ("kill" in weaken)


def running(pid: int) -> bool:
    """Whether the process is there and not a zombie (killed, waiting for its parent to reap it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


# --- the checks' results: each check's own ---------------------------------------------------------

# Left behind by the first check: once that check is gone, for five seconds it writes FORGED into the output of any process
# running the second check (its /proc/<pid>/fd/1: refused in the docker box, whose pipes are root's),
# into the workspace file the second check reads, and into the file the old checks' record was in.
INJECTOR = (
    'setsid sh -c \'trap "" PIPE; p=$PPID; while [ -e /proc/$p ]; do sleep 0.005; done; i=0; while [ $i -lt 500 ]; do '
    'for f in $(grep -ls "sleep 3;" /proc/[0-9]*/cmdline); do echo FORGED > ${f%cmdline}fd/1; done 2>/dev/null; '
    "echo FORGED > verdict.txt; "
    'echo "[{\\"name\\": \\"victim\\", \\"exit\\": \\"0\\", \\"output\\": \\"FORGED\\"}]" '
    "> /work/.skill-be/out/checks.json 2>/dev/null; i=$((i+1)); sleep 0.01; done' </dev/null >/dev/null 2>&1 & sleep 0.3; exit 0"
)
CHECKS = [("leaver", INJECTOR), ("victim", "sleep 3; cat verdict.txt; exit 1")]
START = {"verdict.txt": b"real\n"}  # what the second check reads, unless a leftover rewrites it
CHECK_CONTROLS = [("docker", "kill"), ("docker", "record"), ("process", "kill")]


@pytest.mark.parametrize("kind", BOX_KINDS)
def test_each_check_keeps_its_own_result(boxes: Boxes, kind: str) -> None:
    rows, error = boxes.get(kind).run_checks(START, {}, CHECKS, 30)
    assert error is None and [r.name for r in rows] == ["leaver", "victim"]
    assert rows[1].exit == "1" and "real" in rows[1].output and "FORGED" not in rows[1].output, rows


@pytest.mark.parametrize(("kind", "weaken"), CHECK_CONTROLS)
def test_control_a_check_s_leftover_writes_another_s_result(boxes: Boxes, kind: str, weaken: str) -> None:
    try:
        rows, error = boxes.get(kind, weaken).run_checks(START, {}, CHECKS, 30)
    finally:
        kill_matching("/work/.skill-be/out/checks.json")  # on this machine the leftover lives on: end it
    assert error is None and "FORGED" in rows[-1].output, rows


def kill_matching(text: str) -> None:
    for pid in command_lines_with(text):
        with contextlib.suppress(OSError):
            os.kill(int(pid), 9)


@pytest.mark.parametrize("kind", BOX_KINDS)
def test_a_json_last_line_counts_only_from_a_check_that_exits_0(boxes: Boxes, kind: str) -> None:
    from skill_be.agents.runs import check_results

    report = """printf '{"checks": [{"name": "a", "passed": true}]}\\n'; exit """
    rows, error = boxes.get(kind).run_checks({}, {}, [("forged", report + "1"), ("real", report + "0")], 30)
    assert error is None
    lines = {name: passed for name, passed, _ in check_results(rows, lambda t: t)}
    assert lines == {"check: forged › a": False, "check: real › a": True}  # the control: exit 0 counts


# --- the key on no command line, and out of the kept files -----------------------------------------


def command_lines_with(secret: str) -> list[str]:
    hits = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if secret.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    hits.append(pid)
            except OSError:
                pass
    return hits


@pytest.mark.parametrize("weaken", [(), ("argv",)], ids=["kept", "control"])
@pytest.mark.parametrize("kind", BOX_KINDS)
def test_the_key_is_on_no_command_line(boxes: Boxes, kind: str, model_server: str, weaken: tuple[str, ...]) -> None:
    import threading

    box = boxes.get(kind, *weaken)
    done = threading.Event()
    seen: list[str] = []

    def run() -> None:
        box.run_agent(FakeDriver(), setup_for(model_server, [{"sh": "sleep 2"}]), {})
        done.set()

    threading.Thread(target=run, daemon=True).start()
    while not done.wait(0.05):
        seen += command_lines_with(KEY)  # what every local user can read on this machine
    assert bool(seen) is ("argv" in weaken)


@pytest.mark.parametrize("kind", BOX_KINDS)
def test_the_files_the_agent_changed_are_kept_redacted(boxes: Boxes, kind: str, model_server: str) -> None:
    import base64

    from skill_be.adapters.credentials import Redactor
    from skill_be.agents.runs import outcome

    setup = setup_for(model_server, [{"write": ["notes.txt", f"the key is {KEY}\n"]}])
    run = boxes.get(kind).run_agent(FakeDriver(), setup, {})
    kept = outcome(FakeDriver(), run, setup, {}, 0.0, Redactor([KEY])).record["changed"]["notes.txt"]
    assert base64.b64decode(kept) == b"the key is ***\n"
    plain = outcome(FakeDriver(), run, setup, {}, 0.0, lambda t: t).record["changed"]["notes.txt"]
    assert KEY.encode() in base64.b64decode(plain)  # the control: unredacted, the key is there


# --- the egress proxy over https -----------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory, canary: Canary) -> Iterator[str]:
    """An https model endpoint (a self-signed certificate) on Docker's bridge gateway, which only the
    proxy on the host's network reaches: a provider reached over TLS."""
    import http.server
    import ssl
    import threading

    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=skill-be-test",
         "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"tls hello")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer((canary.host, 0), Hello)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"https://{canary.host}:{server.server_address[1]}"
    server.shutdown()


FETCH = "node -e \"fetch(process.argv[1]).then(r => r.text()).then(t => console.log('GOT', t)).catch(e => console.log('ERR', e.cause && (e.cause.code || e.cause.message)))\" "


def test_an_https_provider_is_reached_through_connect_and_nothing_else(
    client: Any, tls_server: str, canary: Canary
) -> None:
    endpoint = ModelEndpoint("m", "anthropic", base_url=tls_server)
    plan = plan_for([endpoint])
    assert plan.tunnels == () and plan.allow == (tls_server.removeprefix("https://"),)
    box = docker_box.create(BoxSettings(image=IMAGE, endpoints=[endpoint], limits=SMALL), lambda _: None)
    try:
        steps = [{"sh": FETCH + tls_server}, {"sh": FETCH + f"https://{canary.host}:{canary.port}"}]
        setup = AgentSetup(json.dumps({"steps": steps}), endpoint)
        driver = FakeDriver()
        run = box.run_agent(TlsTolerant(driver), setup, {})
        t = driver.parse(run.stdout, setup)
        assert "GOT tls hello" in (t.tool_calls[0].result or "").splitlines(), run.stderr
        assert "GOT" not in (t.tool_calls[1].result or "")  # the canary: refused by the proxy (403)
        assert box.egress is not None
        assert any(f"{canary.host}:{canary.port}" in line for line in box.egress.refused())
    finally:
        box.close()


class TlsTolerant:
    """The fake driver, with Node trusting the test's self-signed certificate."""

    name = "fake"
    trigger_tools = ()

    def __init__(self, inner: FakeDriver) -> None:
        self.inner = inner

    def prepare(self, setup: AgentSetup, workspace: Any, home: Any) -> Any:
        from dataclasses import replace

        launch = self.inner.prepare(setup, workspace, home)
        return replace(launch, env={**launch.env, "NODE_TLS_REJECT_UNAUTHORIZED": "0"})

    def parse(self, stdout: str, setup: AgentSetup) -> Any:
        return self.inner.parse(stdout, setup)
