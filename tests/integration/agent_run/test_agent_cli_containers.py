"""The real agent CLIs (every one with a driver in agents/drivers DRIVERS, at the pinned versions in
skill-be's image) as agents, each in its container as a non-root user, behind one egress proxy,
against one scripted tool-use model
(tests/support/agent_model_server.py) on this machine: the skill is offered and loaded in the
with-skill arm and not in the baseline (by the transcript and by what reached the model), the files
the agent wrote (its write tool and its shell tool) come back, and a check passes and fails.

Both ways out of the container are taken by each CLI: the with-skill arm calls the model over http
(a local server: the proxy's fixed tunnel, the base URL rewritten to the relay's port), the baseline
over https (a hosted provider: HTTP CONNECT through HTTPS_PROXY, TLS end to end, to a TLS front of
the same server on Docker's bridge gateway, which only the proxy on the host's network reaches)."""

from __future__ import annotations

import contextlib
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from tests.integration.agent_run.conftest import IMAGE, Canary

from skill_be.adapters.fake import NAME as FAKE
from skill_be.agents.boxes import BoxSettings
from skill_be.agents.boxes.docker import IMAGE_PATH, DockerBox, create
from skill_be.agents.boxes.egress import plan_for
from skill_be.agents.drivers import DRIVERS, driver
from skill_be.agents.drivers.base import (
    AgentDriver,
    AgentLimits,
    AgentSetup,
    Launch,
    ModelEndpoint,
    SkillToInstall,
    Transcript,
)
from skill_be.agents.workspace import git_repo

SUPPORT = Path(__file__).resolve().parents[2] / "support"
sys.path.insert(0, str(SUPPORT))
import agent_model_server as ams  # noqa: E402  (the folder is put on sys.path just above)

KEY = "sk-agent-test-key-container"
BODY = "GREET-BODY: write hello."
SKILL = SkillToInstall(
    "greet",
    "Greets people in files. Use when asked to greet.",
    {
        "SKILL.md": f"---\nname: greet\ndescription: Greets people in files. Use when asked to greet.\n---\n{BODY}\n".encode()
    },
)
# Every agent CLI skill-be has a driver for: a CLI added to the table joins these tests.
# Every real CLI: the fake agent (run --fake) has no CLI and no model calls to check.
CLIS = tuple(module.rpartition(".")[2] for name, module in DRIVERS.items() if name != FAKE)


def wire(cli: str) -> str:
    """The wire format each CLI is pointed at: the OpenAI chat-completions one where the CLI speaks
    it (its base URL ends in /v1), else the CLI's own."""
    speaks = driver(cli).providers
    return "openai" if "openai" in speaks else speaks[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    s = ams.AgentServer(str(tmp_path_factory.mktemp("agent-model")), netns=False)
    yield s
    s.stop()


def endpoint(base_url: str, cli: str, key: str | None = None) -> ModelEndpoint:
    provider = wire(cli)
    return ModelEndpoint(
        "agent-mock", provider, base_url=base_url + ("/v1" if provider == "openai" else ""), api_key=key
    )


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory, server: Any, canary: Canary) -> Iterator[tuple[str, bytes]]:
    """The model server behind TLS (a self-signed certificate for the gateway's address) on Docker's
    bridge gateway: (its https URL, the certificate the CLIs are told to trust)."""
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=skill-be-test",
         "-addext", f"subjectAltName=IP:{canary.host}", "-keyout", str(folder / "key.pem"),
         "-out", str(folder / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    listener = socket.create_server((canary.host, 0))

    def front(conn: socket.socket) -> None:
        try:
            inner = context.wrap_socket(conn, server_side=True)
            up = socket.create_connection(("127.0.0.1", server.port))
        except OSError:
            return
        threading.Thread(target=_pipe, args=(inner, up), daemon=True).start()
        _pipe(up, inner)

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=front, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield f"https://{canary.host}:{listener.getsockname()[1]}", (folder / "cert.pem").read_bytes()
    listener.close()


@pytest.fixture(scope="module")
def box(client: Any, server: Any, tls: tuple[str, bytes]) -> Iterator[DockerBox]:
    # One proxy for every CLI and both ways: one tunnel (every http endpoint is the same host and
    # port) and CONNECT to the TLS front. The box gets the limits a user gets (2 GB: opencode alone
    # takes about 600 MB).
    endpoints = [endpoint(url, cli) for cli in CLIS for url in (server.base_url, tls[0])]
    plan = plan_for(endpoints)
    assert len(plan.tunnels) == 1 and plan.allow == (tls[0].removeprefix("https://"),)
    box = create(BoxSettings(image=IMAGE, endpoints=endpoints), lambda _: None)
    assert box.egress is not None
    proxy = box.egress
    yield box
    refused = proxy.refused()
    box.close()
    assert refused == []  # no CLI asked the proxy for any other host


class Trusting:
    """A driver whose CLI trusts the test's certificate, as a user behind a TLS-intercepting proxy
    would make it (Node and Bun, which run opencode, Claude Code and Copilot CLI, read
    NODE_EXTRA_CA_CERTS; skill-be's turn-limit relay, python3, which makes the https request for
    opencode and Codex, and other OpenSSL-based clients read SSL_CERT_FILE)."""

    def __init__(self, inner: AgentDriver, cert: bytes) -> None:
        self.inner, self.cert, self.name, self.trigger_tools = inner, cert, inner.name, inner.trigger_tools

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        launch = self.inner.prepare(setup, workspace, home)
        ca = str(home / "test-ca.pem")
        env = {**launch.env, "NODE_EXTRA_CA_CERTS": ca, "SSL_CERT_FILE": ca}
        return replace(launch, env=env, files={**launch.files, home / "test-ca.pem": self.cert})

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        return self.inner.parse(stdout, setup)


def setup(base_url: str, cli: str, skills: tuple[SkillToInstall, ...]) -> AgentSetup:
    return AgentSetup(
        "Greet the team in a file.",
        endpoint(base_url, cli, KEY),
        skills,
        limits=AgentLimits(max_turns=8, timeout_seconds=120),
    )


@pytest.mark.parametrize("cli", CLIS)
def test_the_cli_acts_in_its_container_with_and_without_the_skill(
    box: DockerBox, server: Any, tls: tuple[str, bytes], canary: Canary, cli: str
) -> None:
    # The command records the uid it ran as: the CLI's shell tool, and so the CLI, is not root.
    server.agent(skill="greet", load="offered", write={"path": "out.txt", "content": "hello team"},
                 command="echo ran > ran.txt; id -u > uid.txt", final="DONE")  # fmt: skip
    agent = Trusting(driver(cli, path=IMAGE_PATH), tls[1])
    files = git_repo({"README.md": b"# team\n"})
    runs = {}
    for arm, skills, url in (("with-skill", (SKILL,), server.base_url), ("baseline", (), tls[0])):
        server.reset()
        s = setup(url, cli, skills)
        run = box.run_agent(agent, s, files)
        assert run.error is None and run.exit == "0", (run.stderr[-2000:], run.stdout[-2000:])
        # What the model saw: the skill named in every agent turn of this arm, its body only once loaded.
        log = [e for e in server.agent_log() if e["cli"] == cli]
        seen = "\n".join(r["body"] for r in server.model_calls())
        runs[arm] = (run, agent.parse(run.stdout, s), log, seen)
    run, t, log, seen = runs["with-skill"]
    assert t.error is None and t.final_message == "DONE", (t.error, run.stderr[-2000:])
    assert "greet" in (t.skills_offered or []) and "greet" in t.skills_loaded
    assert log and all(e["offered"] for e in log) and BODY in seen
    assert (
        run.workspace is not None and run.workspace["out.txt"] == b"hello team" and run.workspace["ran.txt"] == b"ran\n"
    )
    assert run.workspace["uid.txt"].strip() not in (b"", b"0")
    run, t, log, seen = runs["baseline"]
    assert t.error is None and t.final_message == "DONE", (t.error, run.stderr[-2000:])
    assert "greet" not in (t.skills_offered or []) and t.skills_loaded == {}
    assert log and not any(e["offered"] for e in log) and BODY not in seen
    assert run.workspace is not None and run.workspace["out.txt"] == b"hello team"
    rows, error = box.run_checks(run.workspace, {}, [("out", "grep -q hello out.txt"), ("nope", "test -f nope")], 30)
    assert error is None and [r.exit for r in rows] == ["0", "1"]
    assert canary.hits == 0  # nothing reached the bridge gateway but through the proxy's CONNECT
