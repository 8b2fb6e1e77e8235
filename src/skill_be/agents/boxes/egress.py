"""The agent container's only way out: which provider hosts it may reach, how the CLI inside is
pointed at them, and the proxy container that enforces it.

The agent container has no network at all (`network_mode: none`, stricter than an internal Docker
network, whose gateway still reaches every service the host listens on). Inside it, a relay
(box_main.py) listens on 127.0.0.1 and forwards each connection to a unix socket of the egress
proxy (egress_main.py), which runs in a container of its own on the host's network and allows:
- a provider's `baseUrl` over http (a local model server): a fixed tunnel to that host and port; the
  CLI's base URL is rewritten to the relay's port;
- https providers (the default hosts, or an https `baseUrl`): HTTP CONNECT to exactly those
  host:port pairs, through `HTTPS_PROXY`; TLS stays end to end.
"""

from __future__ import annotations

import contextlib
import io
import json
import tarfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from skill_be.agents.drivers.base import ModelEndpoint

SOCKETS = "/egress"  # where the proxy's sockets are, in both containers
CONNECT_PORT = 39000  # the relay's port for HTTPS_PROXY inside the agent container
FIRST_TUNNEL_PORT = 39001
DEFAULT_HOSTS = {"anthropic": ("api.anthropic.com", 443), "openai": ("api.openai.com", 443),
                 "gemini": ("generativelanguage.googleapis.com", 443)}  # fmt: skip
PROXY_SOURCE = Path(__file__).with_name("egress_main.py")
READY_SECONDS = 20.0


@dataclass(frozen=True)
class Tunnel:
    socket: str
    host: str
    port: int
    local_port: int


@dataclass(frozen=True)
class EgressPlan:
    """The allow-list of one run: fixed tunnels for http base URLs, CONNECT for https hosts."""

    tunnels: tuple[Tunnel, ...] = ()
    allow: tuple[str, ...] = ()

    def rewrite(self, endpoint: ModelEndpoint) -> ModelEndpoint:
        """The endpoint as the CLI inside the container must call it."""
        if not endpoint.base_url:
            return endpoint
        u = urlsplit(endpoint.base_url)
        if u.scheme != "http":
            return endpoint
        for t in self.tunnels:
            if (t.host, t.port) == (u.hostname, u.port or 80):
                return replace(
                    endpoint, base_url=urlunsplit(("http", f"127.0.0.1:{t.local_port}", u.path, u.query, ""))
                )
        raise ValueError(f"no route for {endpoint.base_url}")

    def env(self) -> dict[str, str]:
        """The proxy variables the CLI inside reads (Node needs NODE_USE_ENV_PROXY for its fetch)."""
        if not self.allow:
            return {}
        proxy = f"http://127.0.0.1:{CONNECT_PORT}"
        env = {"HTTPS_PROXY": proxy, "https_proxy": proxy, "NODE_USE_ENV_PROXY": "1"}
        if self.tunnels:  # the tunnels' relay ports are on the container's loopback: never through the proxy
            env.update(NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        return env

    def relays(self) -> list[tuple[int, str]]:
        out = [(t.local_port, f"{SOCKETS}/{t.socket}") for t in self.tunnels]
        return [*out, (CONNECT_PORT, f"{SOCKETS}/connect")]

    def spec(self, folder: str = SOCKETS) -> dict[str, Any]:
        return {"dir": folder, "tunnels": [[t.socket, t.host, t.port] for t in self.tunnels], "allow": list(self.allow)}


def plan_for(endpoints: Sequence[ModelEndpoint]) -> EgressPlan:
    """The hosts of the configured providers (baseUrl included), and nothing else."""
    tunnels: list[Tunnel] = []
    allow: list[str] = []
    for e in endpoints:
        if e.base_url:
            u = urlsplit(e.base_url)
            host = u.hostname or ""
            if u.scheme == "http":
                if not any((t.host, t.port) == (host, u.port or 80) for t in tunnels):
                    n = len(tunnels)
                    tunnels.append(Tunnel(f"tunnel-{n}", host, u.port or 80, FIRST_TUNNEL_PORT + n))
                continue
            target = f"{host}:{u.port or 443}"
        else:
            h, p = DEFAULT_HOSTS.get(e.provider, DEFAULT_HOSTS["anthropic"])
            target = f"{h}:{p}"
        if target.lower() not in allow:
            allow.append(target.lower())
    return EgressPlan(tuple(tunnels), tuple(allow))


class EgressProxy:
    """The proxy container: the skill-be image on the host's network, its sockets in a tmpfs volume
    that each agent container mounts at /egress. One per run; `close` removes both."""

    def __init__(self, client: Any, image: str, plan: EgressPlan, labels: Mapping[str, str] | None = None) -> None:
        self.client = client
        self.image = image
        self.plan = plan
        self.labels = dict(labels or {})
        self.volume: Any = None
        self.container: Any = None

    def start(self) -> None:
        from skill_be import containers

        labels = {"skill-be": "egress", **self.labels}
        self.volume = containers.tmpfs_volume(self.client, 1, labels, uid=65534)
        self.container = containers.create(
            self.client,
            self.image,
            containers.Hardening(user="65534:65534", memory_mb=256, cpus=None, pids=256, network="host"),
            entrypoint=["python3", "-c", PROXY_SOURCE.read_text(encoding="utf-8")],
            command=[json.dumps(self.plan.spec())],
            volumes={self.volume.name: {"bind": SOCKETS, "mode": "rw"}},
            labels=labels,
        )
        self.container.start()
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            try:
                stream, _ = self.container.get_archive(f"{SOCKETS}/ready")
                tarfile.open(fileobj=io.BytesIO(b"".join(stream))).close()
                return
            except Exception:  # not there yet (docker.errors.NotFound), or the container died
                self.container.reload()
                if self.container.status == "exited":
                    logs = self.container.logs().decode("utf-8", errors="replace")[-500:]
                    raise RuntimeError(f"the egress proxy stopped: {logs}") from None
                time.sleep(0.05)
        raise RuntimeError(f"the egress proxy was not ready within {READY_SECONDS:g} s")

    def refused(self) -> list[str]:
        """The proxy's `egress: refused ...` lines so far."""
        if self.container is None:
            return []
        text = self.container.logs(stdout=False, stderr=True).decode("utf-8", errors="replace")
        return [line for line in text.splitlines() if line.startswith("egress: refused")]

    def close(self) -> None:
        if self.container is not None:
            with contextlib.suppress(Exception):  # already gone: nothing to clean
                self.container.remove(force=True)
        # The volume goes once no agent container holds it (their removals may still be under way).
        for _ in range(100):
            if self.volume is None:
                break
            try:
                self.volume.remove(force=True)
                break
            except Exception as e:
                if "in use" not in str(e):
                    break
                time.sleep(0.1)
        self.container = self.volume = None
