"""Docker, skill-be's image, a scripted model server and a canary listener for the agent tests."""

from __future__ import annotations

import http.server
import ipaddress
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from skill_be import __version__

IMAGE = f"skill-be:{__version__}"


@pytest.fixture(scope="session")
def client() -> Any:
    import docker

    c = docker.from_env()
    c.ping()
    try:
        c.images.get(IMAGE)
    except Exception:
        pytest.fail(f"{IMAGE} is missing: build it with .ci/steps/40-docker.sh")
    return c


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"model says hi"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def model_server() -> Iterator[str]:
    """A scripted model endpoint on loopback: GET anything -> "model says hi"."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class Canary:
    """Counts the connections that reach it."""

    def __init__(self, host: str) -> None:
        self.sock = socket.socket()
        self.sock.bind((host, 0))
        self.sock.listen(16)
        self.host, self.port = host, self.sock.getsockname()[1]
        self.hits = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.hits += 1
            conn.close()


@pytest.fixture(scope="session")
def canary(client: Any) -> Iterator[Canary]:
    """A listener on Docker's bridge gateway: what a container with any network could reach."""
    config = client.networks.get("bridge").attrs["IPAM"]["Config"][0]
    gateway = config.get("Gateway") or str(ipaddress.ip_network(config["Subnet"]).network_address + 1)
    c = Canary(gateway)
    yield c
    c.sock.close()
