"""The agent container's protections, each an attack with a control that shows the attack works
with the protection off: the network (only the provider host, through the egress proxy), the host's
files and skill-be's environment, the Docker socket, the key in the checks container, a fork bomb
and a huge file. One egress proxy for the module; each run is a real container from skill-be's image."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent_run.conftest import IMAGE, Canary
from tests.integration.agent_run.fake_agent import FakeDriver

from skill_be.agents.base import AgentLimits, AgentSetup, ModelEndpoint
from skill_be.agents.container import BoxLimits, DockerBoxes, DockerSandbox
from skill_be.agents.egress import CONNECT_PORT, EgressProxy, plan_for
from skill_be.agents.host_box import ProcessSandbox

KEY = "sk-agent-test-key-0123456789"
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


OPENED: list[DockerSandbox] = []


@pytest.fixture(scope="module")
def proxy(client: Any, model_server: str) -> Iterator[EgressProxy]:
    plan = plan_for([ModelEndpoint("m", "anthropic", base_url=model_server)])
    p = EgressProxy(client, IMAGE, plan)
    p.start()
    yield p
    for box in OPENED:
        box.close()  # its spare container, and the removals under way
    p.close()


def sandbox(client: Any, proxy: EgressProxy, **kw: Any) -> DockerSandbox:
    box = DockerSandbox(
        DockerBoxes(client, IMAGE, BoxLimits(memory_mb=512, pids=128, disk_mb=128), proxy, **kw), proxy.plan
    )
    OPENED.append(box)
    return box


def setup_for(model_server: str, steps: list[dict[str, object]], timeout: float = 60) -> AgentSetup:
    prompt = json.dumps({"steps": steps, "final": "done"})
    endpoint = ModelEndpoint("m", "anthropic", base_url=model_server, api_key=KEY)
    return AgentSetup(prompt, endpoint, limits=AgentLimits(timeout_seconds=timeout))


def probe(box: Any, model_server: str, canary: Canary, secret: Path) -> dict[str, Any]:
    steps = [
        {"ask": "/v1/hello"},
        {"write": ["probe.py", PROBE.replace("PROXY", str(CONNECT_PORT))]},
        {"sh": f"python3 probe.py {canary.host} {canary.port} {secret}"},
    ]
    run = box.run_agent(FakeDriver(), setup_for(model_server, steps), {})
    assert run.error is None, run
    t = FakeDriver().parse(run.stdout, setup_for(model_server, []))
    found = {"ask": t.tool_calls[0].result, **json.loads(t.tool_calls[2].result or "{}")}
    return found


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


def test_the_agent_reaches_its_model_and_nothing_else(
    client: Any, proxy: EgressProxy, model_server: str, canary: Canary, secret: Path
) -> None:
    before = canary.hits
    found = probe(sandbox(client, proxy), model_server, canary, secret)
    assert found["ask"] == "model says hi"  # the allowed provider, through the proxy
    assert found["canary"] != "connected" and canary.hits == before
    assert found["proxy_to_canary"].startswith("HTTP/1.1 403")
    assert any(f"{canary.host}:{canary.port}" in line for line in proxy.refused())
    assert found["host_file"] == "FileNotFoundError"
    assert found["skill_be_env"] == []
    assert found["docker_socket"] is False


def test_control_with_a_network_the_canary_is_reached(
    client: Any, proxy: EgressProxy, model_server: str, canary: Canary, secret: Path
) -> None:
    before = canary.hits
    found = probe(sandbox(client, proxy, network_mode="bridge"), model_server, canary, secret)
    assert found["canary"] == "connected" and canary.hits == before + 1


def test_control_on_the_host_files_env_and_socket_are_in_reach(model_server: str, canary: Canary, secret: Path) -> None:
    found = probe(ProcessSandbox(), model_server, canary, secret)
    assert found["host_file"] == "host secret"
    assert found["skill_be_env"] != []  # the stand-in's environment, through /proc
    assert found["docker_socket"] is os.path.exists("/var/run/docker.sock") is True


def test_the_key_is_in_the_agent_container_and_not_in_the_checks_container(
    client: Any, proxy: EgressProxy, model_server: str
) -> None:
    box = sandbox(client, proxy)
    grep = f"cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c {KEY} || true"
    run = box.run_agent(FakeDriver(), setup_for(model_server, [{"sh": grep}]), {})
    t = FakeDriver().parse(run.stdout, setup_for(model_server, []))
    assert int((t.tool_calls[0].result or "0").strip()) >= 1  # control: the agent has it
    rows, error = box.run_checks({}, {}, [("env", f"env; {grep}")], 30)
    assert error is None
    assert KEY not in rows[0].output and rows[0].output.strip().endswith("0")


def test_a_fork_bomb_and_a_huge_file_end_as_that_run_s_error(
    client: Any, proxy: EgressProxy, model_server: str
) -> None:
    box = sandbox(client, proxy)
    started = time.monotonic()
    bomb = box.run_agent(FakeDriver(), setup_for(model_server, [{"sh": "b() { b | b & }; b; sleep 60"}], timeout=8), {})
    assert bomb.exit == "timeout" and time.monotonic() - started < 60
    huge = box.run_agent(FakeDriver(), setup_for(model_server, [{"sh": "head -c 300M /dev/zero > big"}]), {})
    assert huge.error is not None and "over" in huge.error  # 128 MB volume: the write fails there
    after = box.run_agent(FakeDriver(), setup_for(model_server, [{"write": ["ok.txt", "fine"]}]), {})
    assert after.error is None and after.workspace == {"ok.txt": b"fine"}


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
    plan = plan_for([ModelEndpoint("m", "anthropic", base_url=tls_server)])
    assert plan.tunnels == () and plan.allow == (tls_server.removeprefix("https://"),)
    p = EgressProxy(client, IMAGE, plan)
    p.start()
    box = DockerSandbox(DockerBoxes(client, IMAGE, BoxLimits(memory_mb=512, disk_mb=128), p), plan)
    try:
        steps = [{"sh": FETCH + tls_server}, {"sh": FETCH + f"https://{canary.host}:{canary.port}"}]
        setup = AgentSetup(json.dumps({"steps": steps}), ModelEndpoint("m", "anthropic", base_url=tls_server))
        driver = FakeDriver()
        run = box.run_agent(TlsTolerant(driver), setup, {})
        t = driver.parse(run.stdout, setup)
        assert "GOT tls hello" in (t.tool_calls[0].result or "").splitlines(), run.stderr
        assert "GOT" not in (t.tool_calls[1].result or "")  # the canary: refused by the proxy (403)
        assert any(f"{canary.host}:{canary.port}" in line for line in p.refused())
    finally:
        box.close()
        p.close()


class TlsTolerant:
    """The fake driver, with Node trusting the test's self-signed certificate."""

    name = "fake"

    def __init__(self, inner: FakeDriver) -> None:
        self.inner = inner

    def prepare(self, setup: AgentSetup, workspace: Any, home: Any) -> Any:
        from dataclasses import replace

        launch = self.inner.prepare(setup, workspace, home)
        return replace(launch, env={**launch.env, "NODE_TLS_REJECT_UNAUTHORIZED": "0"})

    def parse(self, stdout: str, setup: AgentSetup) -> Any:
        return self.inner.parse(stdout, setup)
