"""results.html in Debian's headless Chromium (.ci/steps/60-chromium.sh installs it): screenshots in
light and dark at two widths, written under .ci/artifacts/html/ for a person to look at; the page
makes no network request; nothing overflows its box. Each detector has a control that trips it."""

from __future__ import annotations

import http.server
import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from skill_be.reports.html import render_html

REPO = Path(__file__).resolve().parents[3]
ARTIFACTS = REPO / ".ci" / "artifacts" / "html"
WIDTHS = (1280, 420)
LONG = (
    "Detects mixed currencies by catching CurrencyMismatchError or by comparing each payment's currency "
    "and reports it instead of adding the amounts " + "x" * 90
)


def chromium() -> str:
    found = shutil.which("chromium")
    assert found, "chromium is not installed: run .ci/steps/60-chromium.sh (apt-get install -y chromium)"
    return found


def browse(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]
    cmd += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A real run's results.html (two skills, a long criterion, the evidence rule on one), with code
    test results put on one output so the page shows them."""
    sys.path.insert(0, str(REPO))
    from tests.e2e.run.helpers import COUNTED_MODEL, project, run

    root = tmp_path_factory.mktemp("html")
    skills = {
        "money": [
            {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses alpha", "Uses beta"]},
            {
                "id": "vat-total-with-a-rather-long-scenario-identifier",
                "critical": False,
                "prompt": "Add VAT.",
                "criteria": [LONG + " gamma", "Uses beta"],
            },
        ],
        "dates": [{"id": "parse", "critical": True, "prompt": "Parse a date.", "criteria": ["Uses alpha"]}],
    }
    project(root, skills=skills, model=COUNTED_MODEL, config={"reps": 5})
    plan = {
        "base": ["alpha beta", "alpha beta gamma", "alpha", "nothing", "beta"],
        "skill": ["alpha beta gamma", "nothing", "alpha", "beta gamma", "nothing"],
    }
    (root / "plan.json").write_text(json.dumps(plan))
    r = run(root, "run", "--html")
    assert r.code == 1, r.stderr  # the strict rule blocks these small drops
    summary = r.summary()
    output = summary["skills"]["money"]["scenarios"][0]["models"]["m1"]["outputs"][0]
    output["tests"] = {
        "passed": 2,
        "total": 3,
        "error": None,
        "tests": [
            {"name": "splits evenly", "passed": True, "message": None},
            {"name": "keeps the total", "passed": True, "message": None},
            {"name": "rejects a negative total", "passed": False, "message": "Expected RangeError\n  at t.ts:12"},
        ],
    }
    answers = {  # each answer's text, as run_pages reads it from the run folder
        o["file"]: f"{o['arm']} answer of rep {o['rep']}: alpha beta"
        for sk in summary["skills"].values()
        for sc in sk["scenarios"]
        for m in sc["models"].values()
        for o in m["outputs"]
        if o["file"]
    }
    return render_html(summary, answers, {})


def opened(html: str) -> str:
    """Every <details> open, so screenshots and checks see the folded answers and tests too."""
    return re.sub(r"<details(?![^>]*\bopen\b)", "<details open", html)


def test_screenshots_light_and_dark_at_two_widths(page: str, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    src = tmp_path / "results.html"
    src.write_text(opened(page))
    for width in WIDTHS:
        for scheme, extra in (("light", ()), ("dark", DARK)):
            shot = ARTIFACTS / f"results-{scheme}-{width}.png"
            shot.unlink(missing_ok=True)
            p = browse(*extra, f"--window-size={width},2400", f"--screenshot={shot}", src.as_uri())
            assert shot.is_file() and shot.stat().st_size > 10_000, p.stderr[-2000:]
    assert (ARTIFACTS / "results-light-1280.png").read_bytes() != (ARTIFACTS / "results-dark-1280.png").read_bytes()


# --- no network request -------------------------------------------------------------------------


class _Log(http.server.SimpleHTTPRequestHandler):
    requests: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        # Requests the page causes carry its referrer; Chromium's own (a clock check with
        # clients2.google.com, for one) carry none, and are not the page's doing.
        if "site.test" in (self.headers.get("Referer") or ""):
            type(self).requests.append(f"{self.headers.get('Host')}{self.path}")
        super().do_GET()


def _serve(folder: Path) -> Iterator[tuple[int, list[str]]]:
    log: list[str] = []
    handler = type("Handler", (_Log,), {"requests": log})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], log
    finally:
        server.shutdown()
        server.server_close()


def requests_made(html: str, folder: Path) -> list[str]:
    """Every request the page makes: every host name resolves to a local server that logs it
    (--host-resolver-rules), so a request to anywhere is seen."""
    (folder / "page.html").write_text(html)
    for port, log in _serve(folder):
        rules = f"MAP * 127.0.0.1:{port}"
        browse(
            f"--host-resolver-rules={rules}", "--virtual-time-budget=3000", "--dump-dom", "http://site.test/page.html"
        )
        return list(log)
    raise AssertionError("unreachable")


def with_external(html: str) -> str:
    """An external style sheet and image, as an attack on the page would add them."""
    html = html.replace("</head>", '<link rel="stylesheet" href="http://fonts.example.com/a.css"></head>')
    return html.replace("<body>", '<body><img src="http://cdn.example.com/pixel.png">')


def test_the_page_makes_no_network_request(page: str, tmp_path: Path) -> None:
    assert requests_made(opened(page), tmp_path) == []
    # control: the same page with an external image and style sheet and without its CSP: both are fetched
    bare = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    tripped = requests_made(with_external(bare), tmp_path)
    assert any("cdn.example.com/pixel.png" in x for x in tripped), tripped
    assert any("fonts.example.com/a.css" in x for x in tripped), tripped
    # and with its CSP kept, the same injected resources are not fetched
    assert requests_made(with_external(page), tmp_path) == []


# --- nothing overflows -----------------------------------------------------------------------------

# Injected into a test copy only: the shipped page has no script (its CSP forbids one).
CHECK = """<script>
window.addEventListener("load", () => {
  const bad = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1) bad.push("page " + doc.scrollWidth + " > " + window.innerWidth);
  for (const el of document.body.querySelectorAll("*")) {
    if (el.id === "overflow-report" || el.clientWidth === 0) continue;
    if (el.scrollWidth > el.clientWidth + 1)
      bad.push(el.tagName + "." + el.className + " " + el.scrollWidth + " > " + el.clientWidth);
    const parent = el.parentElement.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    if (box.width > 0 && (box.right > parent.right + 1 || box.left < parent.left - 1))
      bad.push(el.tagName + "." + el.className + " sticks out of " + el.parentElement.tagName);
  }
  const out = document.createElement("pre");
  out.id = "overflow-report";
  const bg = getComputedStyle(document.body).backgroundColor;
  // the markers are split so that the script's own text never matches them
  out.textContent = "OVERFLOW" + "-CHECK " + JSON.stringify({bad: bad, background: bg}) + " E" + "ND";
  document.body.appendChild(out);
});
</script>"""


DARK = ("--force-dark-mode", "--blink-settings=preferredColorScheme=0")


def check(html: str, folder: Path, width: int, *extra: str) -> dict[str, object]:
    copy = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", opened(html))
    path = folder / f"check-{width}.html"
    path.write_text(copy.replace("</body>", CHECK + "</body>"))
    p = browse(*extra, f"--window-size={width},2400", "--virtual-time-budget=3000", "--dump-dom", path.as_uri())
    found = re.search(r"OVERFLOW-CHECK (.*?) END", p.stdout, re.S)
    assert found, p.stderr[-2000:]
    got: dict[str, object] = json.loads(found.group(1).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&"))
    return got


def overflows(html: str, folder: Path, width: int) -> list[str]:
    bad = check(html, folder, width)["bad"]
    assert isinstance(bad, list)
    return [str(x) for x in bad]


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_overflows_its_box(page: str, tmp_path: Path, width: int) -> None:
    assert overflows(page, tmp_path, width) == []


def test_dark_scheme_applies(page: str, tmp_path: Path) -> None:
    assert check(page, tmp_path, 1280)["background"] == "rgb(251, 251, 253)"
    dark = check(page, tmp_path, 420, *DARK)
    assert dark["background"] == "rgb(17, 17, 20)" and dark["bad"] == []


def test_overflow_control(page: str, tmp_path: Path) -> None:
    wide = page.replace("<h2>Overview</h2>", '<h2>Overview</h2><div class="muted">' + "W" * 400 + "</div>")
    assert overflows(wide, tmp_path, 420)


def test_passed_tests_each_on_their_own_line(page: str, tmp_path: Path) -> None:
    """The page used to run passed tests together on one line: each test is its own block now."""
    assert re.search(r'<div class="pass">✓ splits evenly</div>\s*<div class="pass">✓ keeps the total</div>', page)
    assert '<div class="message muted">Expected RangeError\n  at t.ts:12</div>' in page


def test_evidence_notes_and_top_up_are_on_the_page(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO))
    from tests.e2e.run.helpers import run
    from tests.e2e.run.test_evidence_gate import BOTH, NONE, counted_project

    root = counted_project(
        tmp_path, [BOTH, BOTH, NONE], [BOTH, NONE, NONE], reps=3, gate={"rule": "evidence", "topUpReps": 5}
    )
    r = run(root, "run", "--html", "--top-up")
    assert r.code == 0, r.stderr
    page = (r.run_dir() / "results.html").read_text()
    assert "top-up: split / m1 from 3 to 5 reps" in page
    assert "inconclusive: split / m1 — the scenario&#39;s mean:" in page
    assert "rule: evidence (a false block under 0.05 one-sided; harm margin 30pp; gate.inconclusive: pass)" in page
    assert overflows(page, tmp_path, 420) == []


# --- what blocks comes first; the two arms of a rep side by side -----------------------------------

# Injected into a test copy only, like CHECK: where the page puts the blocking line and the answers.
LAYOUT = """<script>
window.addEventListener("load", () => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const first = document.querySelector("#what-blocks li a");
  const target = first ? document.querySelector(first.getAttribute("href")) : null;
  const pair = document.querySelector(".rep-pair");
  const answers = pair ? [...pair.querySelectorAll("pre.answer")].map(box) : [];
  const out = document.createElement("pre");
  out.id = "layout-report";
  out.textContent = "LAYOUT" + "-CHECK " + JSON.stringify({
    block: first ? box(first) : null, text: first ? first.textContent : null,
    target: target ? target.tagName : null, height: window.innerHeight, answers: answers}) + " E" + "ND";
  document.body.appendChild(out);
});
</script>"""


def layout(html: str, folder: Path, width: int) -> dict[str, Any]:
    copy = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", opened(html))
    path = folder / f"layout-{width}.html"
    path.write_text(copy.replace("</body>", LAYOUT + "</body>"))
    p = browse(f"--window-size={width},900", "--virtual-time-budget=3000", "--dump-dom", path.as_uri())
    found = re.search(r"LAYOUT-CHECK (.*?) END", p.stdout, re.S)
    assert found, p.stderr[-2000:]
    got: dict[str, Any] = json.loads(found.group(1).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&"))
    return got


def test_the_page_opens_on_what_blocks_and_shows_the_arms_side_by_side(page: str, tmp_path: Path) -> None:
    wide = layout(page, tmp_path, 1280)
    assert wide["block"] is not None and wide["block"][3] <= wide["height"]  # on the first screen
    assert wide["text"].startswith("regression: ") and wide["target"] == "TR"  # it links to its score line
    (base, skill) = wide["answers"]
    assert abs(base[1] - skill[1]) < 2 and base[2] <= skill[0]  # one row: baseline left of with skill
    narrow = layout(page, tmp_path, 420)
    (base, skill) = narrow["answers"]
    assert skill[1] >= base[3] and abs(base[0] - skill[0]) < 2  # stacked on a narrow screen
    # control: without the page's two-column rule the answers stack at 1280 too
    single = page.replace("grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);", "")
    (base, skill) = layout(single, tmp_path, 1280)["answers"]
    assert skill[1] >= base[3]


# --- an agent rep: its transcript and diff opened ----------------------------------------------------


def agent_page() -> str:
    """The agent run of tests/unit/reports/runs/ with a long unbroken line in a result, the input and the
    diff, as results.html shows it."""
    from skill_be.results.run_pages import AgentFiles, agent_inputs, page_inputs, read_entry
    from skill_be.results.summary_file import read_summary

    run = REPO / "tests" / "unit" / "reports" / "runs" / "agent"
    entry = read_entry(run)
    assert entry.doc is not None
    agents = agent_inputs(run, entry.doc)
    stem = "greet/greet-file/fake-model/rep-1-with-skill"
    got = agents[stem]
    assert got.transcript is not None and got.diff is not None
    wide = "x" * 600
    calls = [{"name": "bash", "arguments": {"command": wide}, "result": wide, "isError": False, "turn": 1}]
    agents[stem] = AgentFiles({**got.transcript, "toolCalls": calls}, got.diff + f"+{wide}\n")
    return render_html(read_summary(run / "summary.json"), *page_inputs(run, entry.doc), agents=agents)


@pytest.mark.parametrize("width", WIDTHS)
def test_an_agent_reps_transcript_and_diff_fit_and_load_nothing(tmp_path: Path, width: int) -> None:
    html = agent_page()
    assert '<details class="transcript">' in html and '<span class="add">+' in html
    assert overflows(html, tmp_path, width) == []
    assert requests_made(opened(html), tmp_path) == []
    # control: a diff that keeps its long lines unwrapped sticks out
    unwrapped = html.replace("</style>", "pre.diff { white-space: pre; word-break: normal; }</style>")
    assert overflows(unwrapped, tmp_path, width)
