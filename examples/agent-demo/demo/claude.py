#!/usr/bin/env python3
"""A scripted stand-in for Claude Code as an agent, so the demo runs offline with no key: it reads the
launch the way `claude -p --output-format stream-json` does (the prompt after `--`, the skills under
$CLAUDE_CONFIG_DIR/skills), loads the changelog skill with the Skill tool when it is offered (unless
its model id names "skeptic"), edits
CHANGELOG.md, runs a command, and prints Claude Code's stream-json events. Without the skill it writes
a plain line instead. It says nothing about a real model: use skill-be.yaml for that."""

import datetime
import json
import os
import subprocess
import sys

if "--version" in sys.argv:
    print("2.1.197 (Claude Code demo stand-in)")
    sys.exit(0)

prompt = sys.argv[sys.argv.index("--") + 1] if "--" in sys.argv else ""
skills_dir = os.path.join(os.environ.get("CLAUDE_CONFIG_DIR", ""), "skills")
offered = sorted(os.listdir(skills_dir)) if os.path.isdir(skills_dir) else []
turn = 0


def emit(**event):
    print(json.dumps(event), flush=True)


def tool(name, args, result):
    global turn
    turn += 1
    call = f"toolu_{turn}"
    emit(type="assistant", message={"id": f"msg_{turn}", "content": [{"type": "tool_use", "id": call, "name": name, "input": args}]})
    event = {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": call, "content": result}]}}
    if name == "Skill":
        event["tool_use_result"] = {"success": True, "commandName": args["skill"]}
    emit(**event)


emit(type="system", subtype="init", skills=offered, tools=["Skill", "Read", "Write", "Edit", "Bash"])
# The model id (`--model`): one that names "skeptic" never loads a skill, so the two-agents demo
# (skill-be.two-agents.demo.yaml) has an agent the skill cannot help.
model = sys.argv[sys.argv.index("--model") + 1] if "--model" in sys.argv else ""
loaded = "changelog" in offered and "changelog" in prompt.lower() and "skeptic" not in model
if loaded:
    tool("Skill", {"skill": "changelog"}, "Launching skill: changelog")
path = os.path.join(os.getcwd(), "CHANGELOG.md")
old = open(path, encoding="utf-8").read()
if loaded:
    today = datetime.date.today().isoformat()
    entry = f"## [1.2.0] - {today}\n\n### Fixed\n- Login no longer times out.\n\n"
    new = old.replace("# Changelog\n\n", "# Changelog\n\n" + entry, 1)
    final = f"I added a 1.2.0 section dated {today} to CHANGELOG.md, with the login timeout under Fixed."
else:
    new = old + "\nVersion 1.2.0: fixed the login timeout.\n"
    final = "I noted the fix at the end of CHANGELOG.md."
tool("Write", {"file_path": path, "content": new}, "File written")
with open(path, "w", encoding="utf-8") as f:
    f.write(new)
shown = subprocess.run(["head", "-n", "8", "CHANGELOG.md"], capture_output=True, text=True).stdout
tool("Bash", {"command": "head -n 8 CHANGELOG.md"}, shown)
turn += 1
emit(type="assistant", message={"id": f"msg_{turn}", "content": [{"type": "text", "text": final}]})
emit(type="result", subtype="success", is_error=False, result=final, num_turns=turn,
     usage={"input_tokens": 900 * turn, "output_tokens": 60 * turn}, total_cost_usd=0)
