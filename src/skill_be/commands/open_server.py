"""`skill-be open`'s HTTP server (standard library only): read-only, on 127.0.0.1, serving the index
(reports/viewer.py), each run's results.html (its own file, else rendered from its summary.json by
reports/html.py) and the files under the results folder; nothing outside that folder."""

from __future__ import annotations

import http.server
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from skill_be.paths import shown
from skill_be.reports.quote import one_line
from skill_be.results.run_pages import Seen

PAGE = "results.html"
TYPES = {".json": "application/json", ".html": "text/plain"}  # only the index and run pages are HTML
SECURITY = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}


def index(root: Path, seen: Seen) -> bytes:
    from skill_be.reports.viewer import index_page
    from skill_be.results.run_pages import run_entries

    return index_page(run_entries(root, seen), shown(root)).encode("utf-8")


def run_page(root: Path, name: str) -> bytes | None:
    """A run's results.html with a link back to the index; rendered from its summary.json (and the
    answers in its folder) when the run wrote none; None for no such run or an unreadable one."""
    from skill_be.reports.viewer import with_index_link
    from skill_be.results.run_pages import agent_inputs, page_inputs, read_entry

    folder = root / name
    if not (folder / "summary.json").is_file():
        return None
    written = confined(root, [name, PAGE])
    if written is not None:
        return with_index_link(written.read_text(encoding="utf-8", errors="replace")).encode("utf-8")
    entry = read_entry(folder)
    if entry.doc is None or entry.summary is None:
        return None
    from skill_be.reports.html import render_html

    texts, replies = page_inputs(folder, entry.doc)
    page = render_html(entry.summary, texts, replies, agents=agent_inputs(folder, entry.doc))
    return with_index_link(page).encode("utf-8")


def confined(root: Path, parts: list[str]) -> Path | None:
    """The file `parts` names under `root`, or None: `..`, an empty or hidden-separator part, or a
    symlink that leads outside the folder is not served."""
    if any(p in ("", ".", "..") or "\\" in p or "\x00" in p for p in parts):
        return None
    try:
        target = root.joinpath(*parts).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return target if target.is_relative_to(root) and target.is_file() else None


HTML = "text/html; charset=utf-8"
NOT_FOUND = (404, "text/plain; charset=utf-8", b"not found\n")


def answer(root: Path, raw_path: str, seen: Seen | None = None) -> tuple[int, str, bytes]:
    """(status, content type, body) for one GET of `raw_path`; `seen` keeps the summaries read."""
    path = unquote(urlsplit(raw_path).path)
    if path in ("/", "/index.html"):
        return 200, HTML, index(root, {} if seen is None else seen)
    parts = path.removeprefix("/").split("/")
    if len(parts) == 2 and parts[1] == PAGE:
        page = run_page(root, parts[0]) if confined(root, [parts[0], "summary.json"]) else None
        return NOT_FOUND if page is None else (200, HTML, page)
    file = confined(root, parts)
    if file is None:
        return NOT_FOUND
    return 200, f"{TYPES.get(file.suffix, 'text/plain')}; charset=utf-8", file.read_bytes()


class Handler(http.server.BaseHTTPRequestHandler):
    """GET and HEAD only (anything else is 501, from the base class); quiet."""

    root: Path
    hosts: frozenset[str]
    seen: Seen
    server_version = "skill-be"
    sys_version = ""

    def do_GET(self) -> None:
        self._reply(body=True)

    def do_HEAD(self) -> None:
        self._reply(body=False)

    def _reply(self, body: bool) -> None:
        if self.headers.get("Host", "") not in self.hosts:  # a page elsewhere, through DNS rebinding
            status, kind, data = 403, NOT_FOUND[1], b"forbidden host\n"
        else:
            try:
                # the summaries read are kept for the next index (two at once may read one twice: harmless)
                status, kind, data = answer(self.root, self.path, self.seen)
            except OSError:
                status, kind, data = NOT_FOUND
            except Exception as e:  # a page that cannot be rendered: this request fails, the server serves on
                why = one_line(f"{type(e).__name__}: {e}", 300)
                print(f"skill-be open: {self.path}: cannot be shown ({why})", file=sys.stderr, flush=True)
                status, kind, data = 500, NOT_FOUND[1], f"cannot be shown: {why}\n".encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for k, v in SECURITY.items():
            self.send_header(k, v)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def server(root: Path, port: int) -> http.server.ThreadingHTTPServer:
    """Bound to 127.0.0.1 (`port` 0: a free one); raises OSError when the port is taken. Only requests
    whose Host is this address are answered."""

    class RunsHandler(Handler):
        pass

    RunsHandler.root = root.resolve()
    RunsHandler.seen = {}
    RunsHandler.hosts = frozenset()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), RunsHandler)
    httpd.daemon_threads = True
    bound = httpd.server_address[1]
    RunsHandler.hosts = frozenset({f"127.0.0.1:{bound}", f"localhost:{bound}"})
    return httpd
