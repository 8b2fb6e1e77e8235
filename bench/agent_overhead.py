"""skill-be's overhead per agent run: the same scripted agent task (each agent CLI against the scripted
tool-use model, tests/support/agent_model_server.py, on loopback) run directly with the CLI on this
machine (its driver's launch alone: no relay, no container), and through skill-be's docker agent box
(container, egress proxy, the turn-limit relay where the CLI has no limit of its own, workspace copied
in and out, stream parsed, record and diff built), side by side in the same run; then 8 runs through
skill-be at concurrency 4 against the ideal (2 x one run).

    python bench/agent_overhead.py [--cli claude|pi|opencode|codex|copilot|gemini|all] [--runs 5] [--parallel 8] [--concurrency 4]

Targets: overhead at most 1.0 s per run for every CLI; 8 runs at concurrency 4 within 1.3x of the ideal.
Needs Docker, skill-be's image (.ci/steps/40-docker.sh) and the CLIs on PATH (.ci/env)."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any

from _shared import load_support  # bench/_shared.py (this folder is on sys.path when a benchmark runs)

from skill_be import __version__
from skill_be.agents.drivers.base import AgentLimits, AgentSetup, ModelEndpoint, SkillToInstall
from skill_be.agents.record import record_of
from skill_be.agents.workspace import git_repo, write_files

IMAGE = f"skill-be:{__version__}"
SKILL = SkillToInstall(
    "greet",
    "Greets people in files. Use when asked to greet.",
    {
        "SKILL.md": b"---\nname: greet\ndescription: Greets people in files. Use when asked to greet.\n---\nWrite hello.\n"
    },
)


def load_server() -> Any:
    return load_support("agent_model_server")


CLIS = ("claude", "pi", "opencode", "codex", "copilot", "gemini")
WIRE = {"claude": "anthropic", "gemini": "gemini"}  # the rest speak OpenAI's wire formats, under /v1


def setup_for(server: Any, cli: str = "claude") -> AgentSetup:
    wire = WIRE.get(cli, "openai")
    url = server.base_url + ("/v1" if wire == "openai" else "")
    endpoint = ModelEndpoint("agent-mock", wire, base_url=url, api_key="sk-bench-key")
    return AgentSetup(
        "Greet the team in a file.", endpoint, (SKILL,), limits=AgentLimits(max_turns=8, timeout_seconds=120)
    )


def direct(driver: Any, setup: AgentSetup, files: dict[str, bytes]) -> float:
    """The CLI alone: its launch written to a temp folder and run, nothing else."""
    with tempfile.TemporaryDirectory(prefix="bench-agent-") as tmp:
        ws, home = Path(tmp) / "ws", Path(tmp) / "home"
        ws.mkdir()
        home.mkdir()
        write_files(ws, files)
        launch = driver.prepare(setup, PurePosixPath(ws), PurePosixPath(home))
        for path, content in launch.files.items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(content)
        started = time.monotonic()
        done = subprocess.run(list(launch.argv), cwd=ws, env=dict(launch.env), capture_output=True, timeout=180)
        seconds = time.monotonic() - started
        assert done.returncode == 0, done.stderr[-1000:]
        return seconds


def through(box: Any, driver: Any, setup: AgentSetup, files: dict[str, bytes]) -> float:
    """What skill-be does for one agent run besides the engine's bookkeeping."""
    started = time.monotonic()
    run = box.run_agent(driver, setup, files)
    transcript = driver.parse(run.stdout, setup)
    record_of(run, transcript, files, 0.0, lambda t: t)
    seconds = time.monotonic() - started
    assert run.error is None and transcript.error is None and "greet" in transcript.skills_loaded, run.stderr[-1000:]
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default="claude", choices=[*CLIS, "all"], help="the agent CLI (default claude)")
    parser.add_argument("--runs", type=int, default=5, help="runs on each side (alternating)")
    parser.add_argument("--parallel", type=int, default=8, help="runs through skill-be at once")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    ams = load_server()
    work = Path(tempfile.mkdtemp(prefix="bench-agent-server-"))
    server = ams.AgentServer(str(work), netns=False)
    try:
        for cli in CLIS if args.cli == "all" else (args.cli,):
            one_cli(cli, server, args)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


def one_cli(cli: str, server: Any, args: argparse.Namespace) -> None:
    import importlib

    from skill_be.agents.boxes import BoxSettings, open_box
    from skill_be.agents.drivers import driver, module_of

    setup = setup_for(server, cli)
    box = open_box("docker", BoxSettings(image=IMAGE, endpoints=[setup.endpoint]), print)
    try:
        server.agent(skill="greet", load="offered", write={"path": "out.txt", "content": "hello"},
                     command="echo ran > ran.txt", final="DONE")  # fmt: skip
        # The CLI alone: its driver's own launch, without skill-be's relay (drivers/limit.py).
        host = importlib.import_module(module_of(cli)).create(path=os.environ.get("PATH", ""))
        inside = driver(cli, **box.driver_options(lambda: cli))
        files = git_repo({"README.md": b"# team\n"})
        through(box, inside, setup, files)  # warm-up: the image's layers, the CLI's first start
        direct(host, setup, files)
        d, t = [], []
        for _ in range(args.runs):
            d.append(direct(host, setup, files))
            t.append(through(box, inside, setup, files))
        md, mt = statistics.median(d), statistics.median(t)
        print(f"== {cli}")
        print("direct:", " ".join(f"{x:.2f}" for x in d), "| through:", " ".join(f"{x:.2f}" for x in t))
        print(f"direct ({cli} on this machine): median {md:.2f} s of {args.runs}")
        print(f"through skill-be (container, proxy, copy, parse): median {mt:.2f} s of {args.runs}")
        print(f"overhead per agent run ({cli}): {mt - md:+.2f} s (target at most +1.00 s)")
        started = time.monotonic()
        with ThreadPoolExecutor(args.concurrency) as pool:
            list(pool.map(lambda _: through(box, inside, setup, files), range(args.parallel)))
        wall = time.monotonic() - started
        ideal = -(-args.parallel // args.concurrency) * mt
        print(f"{args.parallel} runs at concurrency {args.concurrency}: {wall:.2f} s, ideal {ideal:.2f} s "
              f"({wall / ideal:.2f}x, target at most 1.30x; {os.cpu_count()} CPUs)")  # fmt: skip
        # The same 8 runs of the CLI alone at the same concurrency: what the machine itself allows.
        started = time.monotonic()
        with ThreadPoolExecutor(args.concurrency) as pool:
            list(pool.map(lambda _: direct(host, setup, files), range(args.parallel)))
        alone = time.monotonic() - started
        print(f"the CLI alone, {args.parallel} runs at concurrency {args.concurrency}: {alone:.2f} s "
              f"({alone / (-(-args.parallel // args.concurrency) * md):.2f}x its ideal); through skill-be / alone: "
              f"{wall / alone:.2f}x")  # fmt: skip
    finally:
        box.close()


if __name__ == "__main__":
    raise SystemExit(main())
