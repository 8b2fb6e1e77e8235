"""`skill-be open [folder] [--port N] [--no-browser]`: serve the results folder (the config's
`results`, or the folder named) on 127.0.0.1, print the address, open the default browser, and serve
until Ctrl-C. The index lists every run with its verdicts and charts each skill over the runs; each
run's page is its results.html (rendered from summary.json when the run wrote none)."""

from __future__ import annotations

import sys
from pathlib import Path

from skill_be.errors import ConfigError, UsageError
from skill_be.paths import command_line, shown
from skill_be.results.run_dir import run_folders


def results_folder(config_path: Path, folder: str | None) -> Path:
    """The folder named, else the config's `results`; one with no run is one line (exit 2)."""
    if folder is not None:
        root = Path(folder)
        where = shown(root)
    else:
        from skill_be.project.config import load_config

        root = load_config(config_path).results
        where = f"{shown(root)} (results in {shown(config_path)})"
    if not root.is_dir():
        raise ConfigError(
            f'{where}: no such folder; run "{command_line("run", config_path)}" first, or name a results folder'
        )
    if not run_folders(root):
        raise ConfigError(
            f'{where}: no run in it (no folder with a summary.json); run "{command_line("run", config_path)}" first'
        )
    return root


CONSOLE = frozenset({"www-browser", "links", "elinks", "lynx", "w3m"})  # they would take the terminal over


def open_browser(url: str) -> str:
    """The default browser on `url`, through the standard library; never fails. A text-mode browser
    is not started. Returns the line to print, or ''."""
    import webbrowser

    try:
        browser = webbrowser.get()
        if Path(str(getattr(browser, "name", ""))).name in CONSOLE:
            return "no graphical browser here: open the address yourself"
        if browser.open(url):
            return ""
    except Exception:  # no browser at all (webbrowser.Error), or one that fails to start
        pass
    return "no browser could be opened: open the address yourself"


def _open_aside(url: str) -> None:
    """open_browser in a thread of its own: a browser command that waits never holds the server up."""
    import threading

    def go() -> None:
        note = open_browser(url)
        if note:
            print(note, file=sys.stderr, flush=True)

    threading.Thread(target=go, daemon=True).start()


def main(config_path: Path, folder: str | None = None, port: int = 0, no_browser: bool = False) -> int:
    from skill_be.commands.open_server import server

    root = results_folder(config_path, folder)
    try:
        httpd = server(root, port)
    except OSError as e:
        raise UsageError(
            f"--port {port}: cannot listen on 127.0.0.1:{port} ({e.strerror or e}); pick another port or leave "
            "--port out for a free one",
            "open",
        ) from None
    url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    print(f"Serving {shown(root)} at {url} (Ctrl-C to stop)", flush=True)
    if not no_browser:
        _open_aside(url)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0
