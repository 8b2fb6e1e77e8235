"""A fake GitHub REST API on 127.0.0.1 for the action's tests.

Every request is checked against GitHub's own REST description (`@octokit/openapi`, installed by
.ci/steps/50-github.sh): the operation must exist for the method and path, query parameters must be
ones it declares, and a JSON body must validate against its requestBody schema. A request that fails
any of that is answered 422 and recorded in `violations`, which the tests assert empty. GitHub's
limits that the description does not state (a comment body of at most 65,536 characters, at most 50
annotations a request) are checked the same way.

It keeps issue comments and check runs in memory, paginates lists with Link headers, checks the
token, and can be told to fail: an HTTP status (with headers such as retry-after) or a hang.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parents[2]
GITHUB_CACHE = ROOT / ".ci" / "cache" / "github" / "node_modules" / "@octokit"
DESCRIPTION = GITHUB_CACHE / "openapi" / "generated" / "api.github.com.json"
WEBHOOK_EXAMPLES = GITHUB_CACHE / "webhooks-examples" / "api.github.com" / "index.json"
COMMENT_LIMIT = 65_536
ANNOTATIONS_PER_REQUEST = 50


def _need(path: Path) -> Path:
    if not path.is_file():
        raise RuntimeError(f"{path} is missing: run bash .ci/steps/50-github.sh")
    return path


@lru_cache(maxsize=1)
def description() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_need(DESCRIPTION).read_text(encoding="utf-8"))
    return data


@lru_cache(maxsize=1)
def _registry() -> Registry:
    return Registry().with_resource("urn:github", Resource.from_contents(description(), DRAFT202012))


@lru_cache(maxsize=1)
def _templates() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for template in description()["paths"]:
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        out.append((re.compile(f"^{pattern}$"), template))
    # The most literal template wins: /issues/comments/{id} before /issues/{issue_number}/comments.
    out.sort(key=lambda t: t[1].count("{"))
    return out


def webhook_examples(event: str) -> list[dict[str, Any]]:
    """The real payloads of one webhook event from @octokit/webhooks-examples."""
    for entry in json.loads(_need(WEBHOOK_EXAMPLES).read_text(encoding="utf-8")):
        if entry["name"] == event:
            return list(entry["examples"])
    raise KeyError(event)


def resolve(method: str, path: str) -> tuple[str, dict[str, Any]] | None:
    """The description's path template and operation for a request, None when it has none."""
    for pattern, template in _templates():
        if pattern.match(path):
            op = description()["paths"][template].get(method.lower())
            if op is not None:
                return template, op
    return None


def body_errors(template: str, method: str, op: dict[str, Any], body: Any) -> list[str]:
    rb = op.get("requestBody")
    if rb is None:
        return [] if body is None else ["the operation takes no body"]
    if body is None:
        return ["a JSON body is required"] if rb.get("required") else []
    pointer = "/".join(
        p.replace("~", "~0").replace("/", "~1")
        for p in ["paths", template, method.lower(), "requestBody", "content", "application/json", "schema"]
    )
    if "application/json" not in rb.get("content", {}):
        return ["the operation takes no JSON body"]
    schema = {"$ref": f"urn:github#/{pointer}"}
    validator = jsonschema.Draft202012Validator(schema, registry=_registry())
    return [
        f"{'/'.join(str(x) for x in e.absolute_path) or '(body)'}: {e.message[:300]}"
        for e in validator.iter_errors(body)
    ]


@dataclass
class Failure:
    method: str
    path: re.Pattern[str]
    status: int  # 0: hang for `hang` seconds, then answer normally
    times: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "injected failure"
    hang: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    raw: str
    headers: dict[str, str]


class FakeGitHub:
    """`with FakeGitHub() as gh:` serves on gh.url (http://127.0.0.1:PORT, plus base_path for GHES)."""

    def __init__(
        self,
        token: str = "ghs_faketoken",
        base_path: str = "",
        repository: str = "Codertocat/Hello-World",
        host: str = "127.0.0.1",
    ):
        self.host = host  # another address only for a container on a Docker network (the e2e tests)
        self.token = token
        self.base_path = base_path.rstrip("/")
        self.repository = repository
        self.comments: dict[int, dict[str, Any]] = {}
        self.check_runs: dict[int, dict[str, Any]] = {}
        self.requests: list[Seen] = []
        self.violations: list[str] = []
        self.failures: list[Failure] = []
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- test controls ---------------------------------------------------------------------------
    def fail(
        self,
        method: str,
        path: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
        message: str = "injected failure",
    ) -> None:
        """The next `times` requests whose path matches the regex `path` get `status`."""
        self.failures.append(Failure(method.upper(), re.compile(path), status, times, headers or {}, message))

    def hang(self, method: str, path: str, seconds: float, times: int = 1) -> None:
        self.failures.append(Failure(method.upper(), re.compile(path), 0, times, hang=seconds))

    def add_comment(self, issue: int, body: str, user: str = "someone") -> int:
        with self._lock:
            return self._add_comment(issue, body, user)

    def comments_on(self, issue: int) -> list[dict[str, Any]]:
        return [c for c in self.comments.values() if c["issue"] == issue]

    def writes(self) -> list[Seen]:
        return [r for r in self.requests if r.method != "GET"]

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_address[1]}{self.base_path}"

    def __enter__(self) -> FakeGitHub:
        description()  # load before the first request, so no request waits on it
        _templates()
        self._server = ThreadingHTTPServer((self.host, 0), self._handler())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    # -- the API -----------------------------------------------------------------------------------
    def _add_comment(self, issue: int, body: str, user: str) -> int:
        self._next_id += 1
        cid = self._next_id
        self.comments[cid] = {"id": cid, "issue": issue, "body": body, "user": {"login": user}}
        return cid

    def _comment_json(self, c: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": c["id"],
            "node_id": f"IC_{c['id']}",
            "url": f"{self.url}/repos/{self.repository}/issues/comments/{c['id']}",
            "html_url": f"https://github.com/{self.repository}/issues/{c['issue']}#issuecomment-{c['id']}",
            "body": c["body"],
            "user": c["user"],
        }

    def _failure_for(self, method: str, path: str) -> Failure | None:
        with self._lock:
            for f in self.failures:
                if f.times > 0 and f.method == method and f.path.search(path):
                    f.times -= 1
                    return f
        return None

    def handle(self, method: str, target: str, headers: dict[str, str], raw: str) -> tuple[int, dict[str, str], Any]:
        parts = urlsplit(target)
        path, query = parts.path, parse_qs(parts.query)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = "<not JSON>"
        self.requests.append(Seen(method, path, query, body, raw, headers))
        if not path.startswith(self.base_path + "/"):
            return self._violation(404, f"{method} {path}: outside the API base path {self.base_path or '/'}")
        api_path = path[len(self.base_path) :]
        found = resolve(method, api_path)
        if found is None:
            return self._violation(404, f"{method} {api_path}: no such operation in GitHub's REST description")
        template, op = found
        allowed = {p["name"] for p in op.get("parameters", []) if isinstance(p, dict) and p.get("in") == "query"}
        allowed |= {
            p["name"]
            for ref in op.get("parameters", [])
            if isinstance(ref, dict) and "$ref" in ref
            for p in [_deref(ref["$ref"])]
            if p.get("in") == "query"
        }
        for name in query:
            if name not in allowed:
                return self._violation(422, f"{method} {api_path}: query parameter {name!r} is not in the description")
        errors = body_errors(template, method, op, body)
        if errors:
            return self._violation(422, f"{method} {api_path}: " + "; ".join(errors))
        if headers.get("authorization") != f"Bearer {self.token}":
            return 401, {}, {"message": "Bad credentials"}
        failure = self._failure_for(method, api_path)
        if failure is not None:
            if failure.status == 0:
                time.sleep(failure.hang)
            else:
                return failure.status, failure.headers, {"message": failure.message}
        return self._serve(method, template, api_path, query, body)

    def _violation(self, status: int, message: str) -> tuple[int, dict[str, str], Any]:
        self.violations.append(message)
        return status, {}, {"message": message}

    def _serve(
        self, method: str, template: str, path: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, dict[str, str], Any]:
        segs = path.strip("/").split("/")
        repo = f"{segs[1]}/{segs[2]}"
        if repo != self.repository:
            return 404, {}, {"message": "Not Found"}
        with self._lock:
            if template == "/repos/{owner}/{repo}/issues/{issue_number}/comments":
                issue = int(segs[4])
                if method == "POST":
                    if len(body["body"]) > COMMENT_LIMIT:
                        return self._violation(422, f"POST {path}: body is too long ({len(body['body'])})")
                    cid = self._add_comment(issue, body["body"], "github-actions[bot]")
                    return 201, {}, self._comment_json(self.comments[cid])
                return self._page(path, query, [self._comment_json(c) for c in self.comments_on(issue)])
            if template == "/repos/{owner}/{repo}/issues/comments/{comment_id}":
                c = self.comments.get(int(segs[5]))
                if c is None:
                    return 404, {}, {"message": "Not Found"}
                if method == "PATCH":
                    if len(body["body"]) > COMMENT_LIMIT:
                        return self._violation(422, f"PATCH {path}: body is too long ({len(body['body'])})")
                    c["body"] = body["body"]
                return 200, {}, self._comment_json(c)
            if template == "/repos/{owner}/{repo}/check-runs" and method == "POST":
                self._next_id += 1
                run = {"id": self._next_id, **body, "annotations": []}
                error = self._take_annotations(run, body.get("output"), path)
                if error:
                    return error
                self.check_runs[run["id"]] = run
                return 201, {}, {"id": run["id"], "name": run["name"], "head_sha": run["head_sha"]}
            if template == "/repos/{owner}/{repo}/check-runs/{check_run_id}":
                run = self.check_runs.get(int(segs[4]))
                if run is None:
                    return 404, {}, {"message": "Not Found"}
                if method == "PATCH":
                    error = self._take_annotations(run, body.get("output"), path)
                    if error:
                        return error
                    run.update({k: v for k, v in body.items() if k != "output"})
                    if "output" in body:
                        run["output"] = {k: v for k, v in body["output"].items() if k != "annotations"}
                return 200, {}, {"id": run["id"], "name": run["name"], "head_sha": run["head_sha"]}
        return self._violation(501, f"{method} {path}: the fake does not serve this operation")

    def _take_annotations(self, run: dict[str, Any], output: Any, path: str) -> tuple[int, dict[str, str], Any] | None:
        notes = (output or {}).get("annotations") or []
        if len(notes) > ANNOTATIONS_PER_REQUEST:
            return self._violation(422, f"{path}: {len(notes)} annotations in one request (at most 50)")
        run["annotations"].extend(notes)
        if output:
            run["output"] = {k: v for k, v in output.items() if k != "annotations"}
        return None

    def _page(self, path: str, query: dict[str, list[str]], items: list[Any]) -> tuple[int, dict[str, str], Any]:
        per_page = min(int(query.get("per_page", ["30"])[0]), 100)
        page = int(query.get("page", ["1"])[0])
        last = max(1, -(-len(items) // per_page))
        links = []
        base = f"{self.url}{path[len(self.base_path) :]}"
        if page < last:
            links.append(f'<{base}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{base}?per_page={per_page}&page={last}>; rel="last"')
        headers = {"Link": ", ".join(links)} if links else {}
        return 200, headers, items[(page - 1) * per_page : page * per_page]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length).decode("utf-8") if length else ""
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, extra, payload = fake.handle(self.command, self.path, headers, raw)
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json; charset=utf-8")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in extra.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _any

        return Handler


def _deref(ref: str) -> dict[str, Any]:
    node: Any = description()
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node if isinstance(node, dict) else {}
