"""A dead endpoint is found in a few calls, not after every timeout (engine/breaker.py): a server that
accepts and never answers cuts its model off after a handful of requests, the line naming its URL;
a server that fails the first calls and then answers (the control) is not cut off. The test counts
the requests the server saw, never seconds."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from tests.e2e.run.helpers import project, run

from skill_be.reports.errors import EXIT_ERROR

REPS = 25  # one scenario, both arms: 50 calls of the model


class Hanging(BaseHTTPRequestHandler):
    """The first `hang` requests get no answer (until the test ends); the later ones a chat completion."""

    protocol_version = "HTTP/1.1"
    hang: ClassVar[int] = 10**9
    seen: ClassVar[int] = 0
    lock = threading.Lock()
    release = threading.Event()

    def log_message(self, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        with Hanging.lock:
            Hanging.seen += 1
            mine = Hanging.seen
        if mine <= Hanging.hang:
            Hanging.release.wait(120)
            return
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "allocate"}}],
                           "usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server() -> Iterator[str]:
    Hanging.seen, Hanging.hang = 0, 10**9
    Hanging.release.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hanging)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    Hanging.release.set()
    httpd.shutdown()


def dead_end_project(tmp_path: Path, url: str, concurrency: int) -> Path:
    model = {"adapter": "openai", "id": "m1", "baseUrl": url}
    return project(tmp_path, config={"model": model, "reps": REPS, "concurrency": concurrency, "timeoutSeconds": 1})


def test_a_server_that_never_answers_is_cut_off_after_a_handful_of_calls(tmp_path: Path, server: str) -> None:
    root = dead_end_project(tmp_path, server, concurrency=4)
    r = run(root, "run", env={"OPENAI_API_KEY": "sk-test-breaker"})
    assert r.code == EXIT_ERROR, r.stdout + r.stderr
    assert Hanging.seen <= 8, Hanging.seen  # a first wave at concurrency 4, and those already waiting
    assert f"calls in a row to {server}" in r.stderr and "failed to connect or timed out" in r.stderr
    assert "the remaining calls of m1 are not sent and count as errors" in r.stderr
    assert "Result: error, could not measure money: " in r.stdout


def test_control_a_server_that_fails_the_first_calls_then_answers_is_not_cut_off(tmp_path: Path, server: str) -> None:
    Hanging.hang = 3  # fewer in a row than open the breaker
    root = dead_end_project(tmp_path, server, concurrency=1)
    r = run(root, "run", env={"OPENAI_API_KEY": "sk-test-breaker"})
    assert Hanging.seen == 2 * REPS, (Hanging.seen, r.stdout + r.stderr)  # every call was sent
    assert "calls in a row to" not in r.stderr
