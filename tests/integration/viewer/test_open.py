"""`skill-be open` over HTTP on a results folder with three real runs: the index (three rows, three
points per chart), each run's page (its own results.html, or one rendered from summary.json), the
files of a run; Ctrl-C; bad input; no file outside the folder (with the control that serves one)."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.three_runs import three_runs

from skill_be.commands import open_server
from skill_be.reports.viewer import INDEX_LINK, with_index_link

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return three_runs(tmp_path_factory.mktemp("open") / "project")


def get(port: int, path: str, host: str | None = None) -> tuple[int, str, bytes]:
    """One GET with the path sent as it is (no client-side `..` folding)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.putrequest("GET", path, skip_host=True)
    c.putheader("Host", host or f"127.0.0.1:{port}")
    c.endheaders()
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type") or "", body


@pytest.fixture
def serve() -> Iterator[object]:
    """Starts open_server.server(root) in a thread; yields a function root -> port."""
    started: list[object] = []

    def start(root: Path) -> int:
        httpd = open_server.server(root, 0)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        started.append(httpd)
        return int(httpd.server_address[1])

    yield start
    for httpd in started:
        httpd.shutdown()  # type: ignore[attr-defined]
        httpd.server_close()  # type: ignore[attr-defined]


def env() -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO / "src")}


def test_the_command_serves_three_runs_until_ctrl_c(results: Path) -> None:
    project = results.parents[1]
    p = subprocess.Popen(
        [sys.executable, "-m", "skill_be", "open", "--no-browser"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        assert p.stdout is not None
        first = p.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        assert m, first
        assert first.startswith("Serving .skill-be/results at ")
        port = int(m.group(1))
        status, kind, body = get(port, "/")
        page = body.decode()
        assert status == 200 and kind.startswith("text/html")
        rows = re.findall(r'<tr class="run">.*?</tr>', page, re.S)
        assert len(rows) == 3
        names = sorted(p.name for p in results.iterdir())
        assert [re.search(r">(2[^<]+)</a>", r).group(1) for r in rows] == names[::-1]  # type: ignore[union-attr]
        commits = (project / "commits.txt").read_text().split()
        assert [re.search(r'<code title="([0-9a-f]{40})">', r).group(1) for r in rows] == commits[::-1]  # type: ignore[union-attr]
        effect = re.search(r'<svg class="effect".*?</svg>', page, re.S).group(0)  # type: ignore[union-attr]
        assert effect.count('<circle class="point"') == 3
        rates = re.search(r'<svg class="rates".*?</svg>', page, re.S).group(0)  # type: ignore[union-attr]
        assert rates.count('<circle class="baseline"') == 3 and rates.count('<circle class="with-skill"') == 3
        for href in re.findall(r'<a class="run-link" href="([^"]+)"', page):
            status, kind, body = get(port, "/" + href)
            assert status == 200 and kind.startswith("text/html"), href
            assert INDEX_LINK in body.decode() and "<h1>" in body.decode()
        status, kind, body = get(port, f"/{names[0]}/money.md")
        assert status == 200 and kind.startswith("text/plain") and b"Release Gate" in body
    finally:
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert "Traceback" not in err


def test_a_run_without_results_html_gets_the_page_run_html_would_have_written(
    results: Path, tmp_path: Path, serve: object
) -> None:
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    last = sorted(copy.iterdir())[-1]
    written = (last / "results.html").read_text()
    (last / "results.html").unlink()
    port = serve(copy)  # type: ignore[operator]
    status, _, body = get(port, f"/{last.name}/results.html")
    assert status == 200
    assert body.decode() == with_index_link(written)  # the one renderer, with the answers read back
    assert "allocate" in written  # the answers are on it


def test_no_file_outside_the_results_folder_is_served(
    results: Path, tmp_path: Path, serve: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret\n")
    run = sorted(copy.iterdir())[0]
    (run / "leak.txt").symlink_to(secret)
    (copy / "out").symlink_to(tmp_path, target_is_directory=True)
    (run / "results.html").symlink_to(secret)  # a run page that is a link out
    attacks = [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        f"/{run.name}/..%2f..%2fsecret.txt",
        f"/{run.name}/leak.txt",
        "/out/secret.txt",
        f"/{run.name}/results.html",
        "/%2fetc%2fpasswd",
        f"/{run.name}/%5c..%5c..%5csecret.txt",
    ]
    port = serve(copy)  # type: ignore[operator]
    for path in attacks:
        status, _, body = get(port, path)
        assert b"the secret" not in body, path
        # a run page that links out is not read: the page is rendered from summary.json instead
        assert status == (200 if path.endswith("results.html") else 404), path
    assert get(port, f"/{run.name}/summary.json")[0] == 200  # a file inside is served

    # control: the same requests with the confinement switched off reach the file outside
    def naive(root: Path, parts: list[str]) -> Path | None:
        target = root.joinpath(*parts)
        return target if target.is_file() else None

    monkeypatch.setattr(open_server, "confined", naive)
    leaked = [path for path in attacks if b"the secret" in get(port, path)[2]]
    assert leaked == [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        f"/{run.name}/..%2f..%2fsecret.txt",
        f"/{run.name}/leak.txt",
        "/out/secret.txt",
        f"/{run.name}/results.html",
    ]


def test_only_requests_for_this_address_are_answered(results: Path, serve: object) -> None:
    port = serve(results)  # type: ignore[operator]
    assert get(port, "/", host="attacker.example")[0] == 403  # DNS rebinding: another site's name
    assert get(port, "/", host=f"localhost:{port}")[0] == 200  # control: this address's own


def test_a_broken_summary_is_listed_as_unreadable(results: Path, tmp_path: Path, serve: object) -> None:
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    broken = sorted(copy.iterdir())[1]
    (broken / "summary.json").write_text('{"schema": 1, "skills": ')
    port = serve(copy)  # type: ignore[operator]
    status, _, body = get(port, "/")
    page = body.decode()
    assert status == 200
    assert len(re.findall(r'<tr class="run">', page)) == 2
    row = re.search(r'<tr class="run unreadable">.*?</tr>', page, re.S).group(0)  # type: ignore[union-attr]
    assert broken.name in row and "unreadable: " in row and "summary.json" in row
    assert get(port, f"/{broken.name}/results.html")[0] == 404  # no page, no crash
    assert re.search(r'<svg class="effect".*?</svg>', page, re.S).group(0).count('class="point"') == 2  # type: ignore[union-attr]


def run_open(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skill_be", "open", "--no-browser", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_bad_input_is_one_line_and_exit_2(results: Path, tmp_path: Path) -> None:
    r = run_open("nowhere", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        'nowhere: no such folder; run "skill-be run" first, or name a results folder'
    ]
    (tmp_path / "empty").mkdir()
    r = run_open("empty", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "no run in it" in r.stderr
    r = run_open(cwd=tmp_path)  # no config here
    assert r.returncode == 2 and "skill-be.yaml" in r.stderr and "Traceback" not in r.stderr
    with socketed() as port:
        r = run_open(str(results), "--port", str(port), cwd=tmp_path)
    assert r.returncode == 2 and f"--port {port}: cannot listen" in r.stderr and "Traceback" not in r.stderr
    r = run_open("--port", "70000", cwd=tmp_path)
    assert r.returncode == 2 and "must be a port" in r.stderr


class socketed:
    """A port held by another socket for the duration."""

    def __enter__(self) -> int:
        import socket

        self.s = socket.socket()
        self.s.bind(("127.0.0.1", 0))
        self.s.listen()
        return int(self.s.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        self.s.close()


def test_the_default_browser_is_opened_on_the_address(results: Path, tmp_path: Path) -> None:
    """BROWSER names the browser command for the standard library's webbrowser: a script that
    records the address it is given stands in for it."""
    record = tmp_path / "browser.py"
    record.write_text("import sys, pathlib\npathlib.Path(sys.argv[2]).write_text(sys.argv[1])\n")
    seen = tmp_path / "seen.txt"
    p = subprocess.Popen(
        [sys.executable, "-m", "skill_be", "open", str(results)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env(), "BROWSER": f"{sys.executable} {record} %s {seen}"},
    )
    try:
        assert p.stdout is not None
        url = re.search(r"http://\S+/", p.stdout.readline())
        assert url
        for _ in range(100):
            if seen.is_file():
                break
            threading.Event().wait(0.1)
        assert seen.read_text() == url.group(0)
    finally:
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=30)
    assert p.returncode == 0 and err == "", err


def test_no_browser_at_all_is_a_line_never_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import webbrowser

    from skill_be.commands.open import open_browser

    def fresh(browser: str) -> None:  # the standard library's browser list, found again from the environment
        monkeypatch.setenv("BROWSER", browser)
        monkeypatch.setattr(webbrowser, "_tryorder", None)
        monkeypatch.setattr(webbrowser, "_browsers", {})

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    fresh(str(tmp_path / "no-such-browser"))
    assert open_browser("http://127.0.0.1:1/") == "no browser could be opened: open the address yourself"
    lynx = tmp_path / "lynx"
    lynx.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\n")
    lynx.chmod(0o755)
    fresh("lynx")  # a text-mode browser would take the terminal over: not started
    assert open_browser("http://127.0.0.1:1/") == "no graphical browser here: open the address yourself"
    assert not (tmp_path / "ran").exists()


def test_run_and_regrade_record_the_commit_and_a_folder_outside_git_none(results: Path, tmp_path: Path) -> None:
    from tests.e2e.run.helpers import run

    copy = tmp_path / "project"
    shutil.copytree(results.parents[1], copy, symlinks=True)
    head = (copy / "commits.txt").read_text().split()[-1]
    assert run(copy, "regrade").code in (0, 1)
    newest = sorted((copy / ".skill-be" / "results").iterdir())[-1]
    doc = json.loads((newest / "summary.json").read_text())
    assert "regradeOf" in doc and doc["commit"] == head
    shutil.rmtree(copy / ".git")  # control: outside git no commit is recorded
    assert run(copy, "run").code in (0, 1)
    newest = sorted((copy / ".skill-be" / "results").iterdir())[-1]
    assert "commit" not in json.loads((newest / "summary.json").read_text())


def test_a_page_that_cannot_be_rendered_is_a_500_and_the_server_serves_on(
    results: Path, tmp_path: Path, serve: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import skill_be.reports.html

    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    first = sorted(copy.iterdir())[0]

    def broken(*args: object, **kwargs: object) -> str:
        raise KeyError("scenarios")

    monkeypatch.setattr(skill_be.reports.html, "render_html", broken)
    port = serve(copy)  # type: ignore[operator]
    status, _, body = get(port, f"/{first.name}/results.html")
    assert status == 500 and body == b"cannot be shown: KeyError: 'scenarios'\n"
    assert get(port, "/")[0] == 200
    err = capsys.readouterr().err
    assert err == f"skill-be open: /{first.name}/results.html: cannot be shown (KeyError: 'scenarios')\n"
