"""skill-be's own turn limit, for a CLI that has none that holds (a driver declares `turn_limit =
"relay"`; `drivers.driver` then wraps it here, so every box and the trigger calls get it).

`agent.maxTurns` means model calls, for every CLI: the requests of the agent's conversation (those
that offer its tools; a side call without tools, such as opencode's title, is not a turn). The
launch runs the CLI under a small relay (RELAY, python3, standard library only) that listens on
127.0.0.1 and forwards each request to the real endpoint (the provider's base URL, or its default
host over https, through HTTPS_PROXY when the box sets one); the CLI is pointed at the relay. The
relay counts the model calls; none past the limit reaches the provider: the relay answers each with
an error, stops the CLI (DRAIN seconds later at most, so that the CLI prints its last step's events;
a wrapper stops it at the first refusal) and ends the output with one line, `{"type":
"skill-be.turn-limit", "maxTurns": N}`, which the wrapped driver's parse reads as the run's error
(LIMIT_ERROR).

The CLI's own limit is kept where it means the same (claude's `--max-turns`, pi's extension): both
end the run before call N + 1 is sent, and their parsers word it with LIMIT_ERROR too.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from skill_be.agents.drivers.base import AgentDriver, AgentSetup, Launch, Transcript
from skill_be.agents.drivers.events import events

LIMIT_ERROR = "turn limit reached (maxTurns {max}: the agent asked for model call {next})"
LIMIT_START = "turn limit reached ("  # how every CLI's turn-limit error begins (LIMIT_ERROR, turn_limit.py, runs.py)


def is_turn_limit(error: str | None) -> bool:
    """Whether a run's error is its turn limit (a run that ended where it was told to), not a failure."""
    return error is not None and error.startswith(LIMIT_START)


TOKEN = "skill-be-relay.invalid"  # the relay's address in the launch until the relay knows its port
EVENT = "skill-be.turn-limit"
# Where a provider's requests go when the endpoint names no base URL.
DEFAULT_UPSTREAM = {"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com/v1",
                    "gemini": "https://generativelanguage.googleapis.com"}  # fmt: skip

RELAY = r"""# skill-be: count the agent's model calls and stop the one past maxTurns (skill_be/agents/drivers/limit.py).
import http.client, http.server, json, os, signal, socket, subprocess, sys, threading, urllib.parse

spec = json.load(open(sys.argv[1]))
argv, limit, up = sys.argv[2:], int(spec["max"]), urllib.parse.urlsplit(spec["upstream"])
MODEL_PATHS = ("/messages", "/chat/completions", "/responses", ":generateContent", ":streamGenerateContent")
DRAIN = 2.0  # seconds from the call past the limit to the CLI's kill (stop)
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "host"}
# The count lives in a file: the follow-up turns (followUps) each run under a relay of their own and
# share maxTurns with the prompt's.
count_file = spec["count"]
try:
    calls = int(open(count_file).read() or 0)
except (OSError, ValueError):
    calls = 0
state = {"calls": calls, "over": False}
lock = threading.Lock()
child = None


def upstream():
    port = up.port or (443 if up.scheme == "https" else 80)
    if up.scheme != "https":
        return http.client.HTTPConnection(up.hostname, port, timeout=600)
    proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
    if proxy:
        p = urllib.parse.urlsplit(proxy)
        conn = http.client.HTTPSConnection(p.hostname, p.port or 80, timeout=600)
        conn.set_tunnel(up.hostname, port)
        return conn
    return http.client.HTTPSConnection(up.hostname, port, timeout=600)


def is_turn(method, path, body):
    if method != "POST" or not path.split("?", 1)[0].rstrip("/").endswith(MODEL_PATHS):
        return False
    try:
        return bool(json.loads(body).get("tools"))
    except Exception:
        return True  # a body this relay cannot read (compressed): a call all the same


def tree(pid):
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, task)) as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return found


def kill(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def stop(pid):
    # pid and every process below it (a launcher that starts the real CLI, Copilot's npm loader or a
    # wrapper, would otherwise go on and keep the output open), DRAIN seconds after the call past the
    # limit was refused: every call until then is refused too, and the CLI prints the events of its
    # last step meanwhile (opencode prints a tool's event after it has sent the next request: killed
    # at once, the run's last tool call would be missing from its transcript). A wrapper ends the run
    # earlier, at the CLI's first failed request (turn_limit.py).
    timer = threading.Timer(DRAIN, lambda: kill(tree(pid)))
    timer.daemon = True
    timer.start()


class Relay(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("content-length") or 0)
        return self.rfile.read(n) if n else b""

    def handle_one(self):
        data = self.body()
        if is_turn(self.command, self.path, data):
            with lock:
                state["calls"] += 1
                with open(count_file, "w") as f:
                    f.write(str(state["calls"]))
                over = state["calls"] > limit
                state["over"] = state["over"] or over
            if over:
                msg = json.dumps({"type": "error", "error": {"type": "invalid_request_error",
                                  "message": "skill-be: turn limit reached (maxTurns %d)" % limit}}).encode()
                self.send_response(400)
                for k, v in (("content-type", "application/json"), ("content-length", str(len(msg))), ("connection", "close")):
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(msg)
                self.wfile.flush()
                self.close_connection = True
                with lock:
                    first, state["stopping"] = not state.get("stopping"), True
                if child is not None and first:
                    stop(child.pid)
                return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        headers["content-length"] = str(len(data))
        headers["host"] = up.netloc
        conn = upstream()
        try:
            conn.request(self.command, self.path, body=data, headers=headers)
            resp = conn.getresponse()
        except OSError as e:
            return self.send_error(502, "skill-be relay: %s" % e)
        self.send_response(resp.status, resp.reason)
        for k, v in resp.getheaders():
            if k.lower() not in HOP and k.lower() != "content-length":
                self.send_header(k, v)
        self.send_header("connection", "close")
        self.end_headers()
        while True:
            chunk = resp.read1(65536)
            if not chunk:
                break
            self.wfile.write(chunk)
            self.wfile.flush()
        conn.close()
        self.close_connection = True

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = handle_one


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Relay)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
where = "127.0.0.1:%d" % server.server_address[1]
for f, text in spec["files"].items():  # as the launch wrote them: a follow-up's relay has a port of its own
    with open(f, "w", encoding="utf-8") as out:
        out.write(text.replace(spec["token"], where))
env = {k: v.replace(spec["token"], where) for k, v in os.environ.items()}
child = subprocess.Popen([a.replace(spec["token"], where) for a in argv], env=env)
code = child.wait()
if state["over"]:
    sys.stdout.write(json.dumps({"type": "skill-be.turn-limit", "maxTurns": limit}) + "\n")
    sys.stdout.flush()
    sys.exit(1)
sys.exit(code)
"""


class RelayLimited:
    """A driver whose launch runs its CLI under the counting relay (AgentDriver)."""

    def __init__(self, inner: AgentDriver, python: str = "python3") -> None:
        self.inner = inner
        self.python = python
        self.name = inner.name
        self.providers: tuple[str, ...] = inner.providers
        self.trigger_tools: tuple[str, ...] = inner.trigger_tools

    def __getattr__(self, attr: str) -> Any:  # the driver's own options (bin, path) as they are
        return getattr(self.inner, attr)

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        ep = setup.endpoint
        target = urlsplit(ep.base_url or DEFAULT_UPSTREAM.get(ep.provider, DEFAULT_UPSTREAM["openai"]))
        relayed = urlunsplit(("http", TOKEN, target.path, target.query, ""))
        launch = self.inner.prepare(replace(setup, endpoint=replace(ep, base_url=relayed)), workspace, home)
        program, spec_file = home / ".skill-be" / "relay.py", home / ".skill-be" / "relay.json"
        spec = {"max": int(setup.limits.max_turns), "upstream": urlunsplit((*target[:2], "", "", "")),
                "token": TOKEN, "count": str(home / ".skill-be" / "relay-count"),
                "files": {str(p): c.decode() for p, c in launch.files.items() if TOKEN.encode() in c}}  # fmt: skip
        files = {**launch.files, program: RELAY.encode(), spec_file: json.dumps(spec).encode()}
        relay = [self.python, str(program), str(spec_file)]
        then = [[*relay, *t] for t in launch.then]  # each follow-up under a relay too, one count for all
        return Launch(argv=[*relay, *launch.argv], env=launch.env, files=files, cwd=launch.cwd, then=then)

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        t = self.inner.parse(stdout, setup)
        if any(e.get("type") == EVENT for e in events(stdout)):
            n = setup.limits.max_turns
            return replace(t, turns=min(t.turns, n), error=LIMIT_ERROR.format(max=n, next=n + 1))
        return t


def limited(driver: AgentDriver) -> AgentDriver:
    """`driver`, under skill-be's turn limit when it declares `turn_limit = "relay"`."""
    return RelayLimited(driver) if getattr(driver, "turn_limit", "own") == "relay" else driver
