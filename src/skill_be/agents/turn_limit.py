"""The turn-limit wrapper for a CLI without a hard limit (opencode: its agent `steps` only *asks* the
model to stop and keeps running tools for a model that goes on). The launch runs this program with
python3, written into the private home: it starts the CLI in the same process group (so a caller that
kills the group kills both), copies its stdout line by line, counts the lines that start a model
turn, and when turn `max + 1` starts it kills the CLI and prints one error event:
`{"type": "error", "error": {"name": "SkillBeTurnLimit", ...}}`. It also feeds the CLI's stdin from a
file: opencode quotes a message argument that has spaces, but takes stdin as it is.

Arguments: MAX_TURNS TURN_MARKER STDIN_FILE ('' for none) ARGV...
"""

from __future__ import annotations

WRAPPER = r"""# skill-be: end a CLI run at a turn limit (written by skill-be; see skill_be/agents/turn_limit.py).
import json, os, signal, subprocess, sys

max_turns, marker, stdin_file, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
stdin = open(stdin_file, "rb") if stdin_file else subprocess.DEVNULL
child = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE)  # same process group: the caller's kill reaches it


def stop(*_):
    try:
        child.kill()
    except ProcessLookupError:
        pass


signal.signal(signal.SIGTERM, lambda *a: (stop(), sys.exit(143)))
turns = 0
for line in child.stdout:
    if marker.encode() in line:
        turns += 1
        if turns > max_turns:
            stop()
            error = {"name": "SkillBeTurnLimit", "data": {"message": f"turn limit reached (maxTurns {max_turns})"}}
            sys.stdout.write(json.dumps({"type": "error", "error": error}) + "\n")
            sys.stdout.flush()
            child.wait()
            sys.exit(1)
    sys.stdout.buffer.write(line)
    sys.stdout.flush()
sys.exit(child.wait())
"""
