"""A fake agent CLI and its driver, for agent mode's tests: a real program (python3, standard
library) that follows a script in its prompt, the way a scripted model would drive a real CLI.

The prompt (and each follow-up, run as the fake again in the same workspace) is JSON: {"load": bool, "steps": [{"sh": cmd} | {"write": [path, text]} | {"ask": path}],
"final": text}; `$LOADED` in a written text becomes loaded-yes or loaded-no. The agent lists the skills installed under `<workspace>/.fake/skills/` (offered),
reads SKILL.md of each when `load` is set (loaded), runs the steps in its workspace, asks the model
endpoint (GET <base_url><path>) for `ask` steps, and prints one JSON event per line."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from skill_be.agents.drivers.base import AgentSetup, Launch, ToolCall, Transcript

AGENT = r"""
import json, os, subprocess, sys, urllib.request
spec = json.loads(sys.argv[1])
ws = os.getcwd()
def ev(**kw): print(json.dumps(kw), flush=True)
root = os.path.join(ws, ".fake", "skills")
offered = sorted(os.listdir(root)) if os.path.isdir(root) else []
ev(type="init", skills=offered)
turn = 0
loaded = []
if spec.get("load"):
    for name in offered:
        turn += 1
        text = open(os.path.join(root, name, "SKILL.md")).read()
        ev(type="tool", name="read", args={"path": f".fake/skills/{name}/SKILL.md"}, result=text[:200], turn=turn)
        ev(type="loaded", skill=name, turn=turn)
        loaded.append(name)
for step in spec.get("steps", []):
    turn += 1
    if "sh" in step:
        done = subprocess.run(["sh", "-c", step["sh"]], capture_output=True, text=True)
        ev(type="tool", name="bash", args={"command": step["sh"]}, result=(done.stdout + done.stderr)[-4000:],
           error=done.returncode != 0, turn=turn)
    elif "write" in step:
        path, text = step["write"]
        text = text.replace("$LOADED", "loaded-yes" if loaded else "loaded-no")
        os.makedirs(os.path.dirname(os.path.join(ws, path)) or ws, exist_ok=True)
        open(os.path.join(ws, path), "w").write(text)
        ev(type="tool", name="write", args={"path": path}, result="ok", turn=turn)
    elif "ask" in step:
        base = os.environ["FAKE_BASE_URL"]
        try:
            body = urllib.request.urlopen(base + step["ask"], timeout=10).read().decode()
        except Exception as e:
            body = f"error: {e}"
        ev(type="tool", name="ask", args={"path": step["ask"]}, result=body, turn=turn)
ev(type="final", text=spec.get("final", "done"), turns=turn + 1, input=100 * (turn + 1), output=10 * (turn + 1))
"""


class FakeDriver:
    name = "fake"

    def __init__(self, python: str = "python3") -> None:
        self.python = python

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        files = {home / "agent.py": AGENT.encode()}
        for skill in setup.skills:
            for rel, content in skill.files.items():
                files[workspace / ".fake" / "skills" / skill.name / rel] = content
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "FAKE_BASE_URL": setup.endpoint.base_url or "",
        }
        if setup.endpoint.api_key:
            env["FAKE_API_KEY"] = setup.endpoint.api_key
        run = [self.python, str(home / "agent.py")]
        then = [[*run, text] for text in setup.follow_ups]  # each follow-up: the fake again, in the same workspace
        return Launch(argv=[*run, setup.prompt], env=env, files=files, cwd=workspace, then=then)

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        calls: list[ToolCall] = []
        loaded: dict[str, int] = {}
        offered: list[str] | None = None
        final = None
        turns = 0  # over the prompt's run and each follow-up's
        for line in stdout.splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e["type"] == "init":
                offered = e["skills"]
            elif e["type"] == "tool":
                calls.append(ToolCall(e["name"], e["args"], e["result"], bool(e.get("error")), e["turn"]))
            elif e["type"] == "loaded":
                loaded.setdefault(e["skill"], e["turn"])
            elif e["type"] == "final":
                final = e
                turns += e["turns"]
        if final is None:
            return Transcript("", len(calls), calls, offered, loaded, error="the agent printed no final event")
        return Transcript(final["text"], turns, calls, offered, loaded, final["input"], final["output"])


def write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p
