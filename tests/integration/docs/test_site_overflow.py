"""The built site at a phone's width (390 px) and a desktop's (1280 px): no page scrolls sideways
(document.scrollingElement.scrollWidth > clientWidth); a wide code block or table scrolls inside its
own box instead. One headless Chromium (.ci/steps/60-chromium.sh) loads every page of the strict
build in frames of those widths; a planted wide table without that rule is caught (the control)."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from tests.integration.docs.test_site import ROOT, build

WIDTHS = (390, 1280)
HARNESS = "__overflow.html"
# Loads each page in a frame of each width, 8 at a time, and posts what it measured back.
SCRIPT = """<!doctype html><html><body><script>
const urls = %s, widths = %s, out = [], jobs = [];
for (const u of urls) for (const w of widths) jobs.push([u, w]);
function one(url, w) {
  return new Promise((done) => {
    const f = document.createElement("iframe");
    f.style.cssText = "width:" + w + "px;height:900px;border:0";
    f.onload = () => setTimeout(() => {
      const d = f.contentDocument, s = d.scrollingElement, wide = [];
      if (s.scrollWidth > s.clientWidth)
        for (const el of d.body.querySelectorAll("*")) {
          const r = el.getBoundingClientRect();
          if (r.right > s.clientWidth + 1) wide.push(el.tagName.toLowerCase() + "." + el.className);
        }
      out.push({url: url, width: w, scroll: s.scrollWidth, client: s.clientWidth, wide: wide.slice(-3)});
      f.remove(); done();
    }, 50);
    f.src = url; document.body.appendChild(f);
  });
}
const worker = async () => { while (jobs.length) { const [u, w] = jobs.shift(); await one(u, w); } };
Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(worker)).then(() =>
  fetch("/__result", {method: "POST", body: JSON.stringify(out)}));
</script></body></html>"""


def chromium() -> str:
    found = shutil.which("chromium")
    assert found, "chromium is not installed: run .ci/steps/60-chromium.sh (apt-get install -y chromium)"
    return found


def measure(site: Path, urls: list[str]) -> list[dict[str, Any]]:
    """Every page at every width, in one browser: (url, width, scrollWidth, clientWidth, what sticks out)."""
    (site / HARNESS).write_text(SCRIPT % (json.dumps(urls), json.dumps(WIDTHS)), encoding="utf-8")
    got: list[Any] = []
    arrived = threading.Event()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_POST(self) -> None:
            got.extend(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()
            arrived.set()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Every host but this server fails at once (the theme asks for web fonts): offline and fast.
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]
    cmd += ["--disable-background-networking", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
    cmd += ["--window-size=1400,1000", f"http://127.0.0.1:{server.server_address[1]}/{HARNESS}"]
    browser = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert arrived.wait(240), "the pages were not measured within 240 s"
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        server.shutdown()
        server.server_close()
    return got


def page_urls(site: Path) -> list[str]:
    pages = sorted(p.relative_to(site).parent.as_posix() for p in site.rglob("index.html"))
    return ["/" if p == "." else f"/{p}/" for p in pages if not p.startswith("assets")]


def sideways(results: list[dict[str, Any]]) -> list[str]:
    return [f"{r['url']} at {r['width']} px: {r['scroll']} > {r['client']} ({r['wide']})" for r in results
            if r["scroll"] > r["client"]]  # fmt: skip


WIDE_TABLE = "| " + " | ".join(f"`column_{i}_with_a_long_unbroken_name`" for i in range(8)) + " |\n"
PLANTED = (
    "# Planted\n\nA table wider than any screen.\n\n"
    + WIDE_TABLE
    + "|"
    + "---|" * 8
    + "\n"
    + WIDE_TABLE.replace("column", "value")
    + "\n<style>.md-typeset table:not([class]) { display: table; overflow: visible; }"
    " .md-typeset__scrollwrap { overflow: visible; } .md-typeset td code { word-break: normal; white-space: nowrap; }"
    "</style>\n"
)


# The same table and a long code line under the site's own rules: each scrolls in its box.
IN_BOXES = (
    "# In boxes\n\n" + WIDE_TABLE + "|" + "---|" * 8 + "\n" + WIDE_TABLE.replace("column", "value")
    + "\n```sh\nskill-be run " + "--a-very-long-option_with_no_break " * 12 + "\n```\n"
    "\n<style>.md-typeset td code { word-break: normal; white-space: nowrap; }</style>\n"
)  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The strict build of the docs, with one page planted for the control: a wide table whose
    scrolling box is switched off."""
    copy = tmp_path_factory.mktemp("repo")
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copy(ROOT / "ARCHITECTURE.md", copy / "ARCHITECTURE.md")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (copy / "mkdocs.yml").write_text(
        config.replace("not_in_nav: |\n", "not_in_nav: |\n  planted.md\n  in-boxes.md\n", 1)
    )
    (copy / "docs" / "planted.md").write_text(PLANTED, encoding="utf-8")
    (copy / "docs" / "in-boxes.md").write_text(IN_BOXES, encoding="utf-8")
    done = build(copy, copy / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    return copy / "site"


@pytest.fixture(scope="module")
def measured(site: Path) -> list[dict[str, Any]]:
    urls = page_urls(site)
    assert len(urls) >= 40 and "/planted/" in urls, urls
    results = measure(site, urls)
    assert len(results) == len(urls) * len(WIDTHS), "every page measured at every width"
    return results


def test_no_page_of_the_site_scrolls_sideways(measured: list[dict[str, Any]]) -> None:
    assert sideways([r for r in measured if r["url"] != "/planted/"]) == []
    assert sorted(r["width"] for r in measured if r["url"] == "/in-boxes/") == [390, 1280]  # measured, and it fits


def test_control_a_wide_table_without_its_scrolling_box_makes_the_page_scroll(measured: list[dict[str, Any]]) -> None:
    planted = [r for r in measured if r["url"] == "/planted/"]
    assert sorted(r["width"] for r in planted if r["scroll"] > r["client"]) == [390, 1280], planted
