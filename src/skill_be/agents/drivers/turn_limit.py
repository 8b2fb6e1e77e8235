"""The wrapper for a CLI without a hard turn limit or a way to stop its retries (opencode: its agent
`steps` only *asks* the model to stop and keeps running tools for a model that goes on, and it
retries a failed model request for about a minute). The launch runs this program with python3,
written into the private home. It starts the CLI in the same process group (so a caller that kills
the group kills both), copies its stdout and stderr line by line, and ends the run with one error
event, `{"type": "error", "error": {"name": ..., "data": {"message": ...}}}`, when turn `max + 1`
starts (a stdout line holding TURN_MARKER) or when a stderr or stdout line matches ERROR_PATTERN (its
first group is the message: opencode logs a failed request on stderr, Copilot CLI prints an event). It also feeds the CLI's stdin from a file: opencode wraps a message argument
that has spaces in quotes, but takes stdin as it is.

Arguments: MAX_TURNS TURN_MARKER STDIN_FILE ERROR_PATTERN ARGV...  ('' for no stdin or no pattern)
"""

from __future__ import annotations

WRAPPER = r"""# skill-be: end a CLI run at a turn limit or its first API error (see skill_be/agents/turn_limit.py).
import json, os, re, signal, subprocess, sys, threading

max_turns, marker, stdin_file, pattern, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
stdin = open(stdin_file, "rb") if stdin_file else subprocess.DEVNULL
# Same process group as this wrapper: a caller that kills the group kills the CLI too.
child = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
ended = []  # (name, message) of the first reason this wrapper ended the run


# pid and every process below it: a launcher that spawns the real CLI (Copilot's npm loader does)
# would otherwise leave that one running.
def tree(pid):
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return found


def end(name, message):
    if not ended:
        ended.append((name, message))
        for p in tree(child.pid):
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


def watch_stderr():
    error = re.compile(pattern.encode()) if pattern else None
    for line in child.stderr:
        sys.stderr.buffer.write(line)
        sys.stderr.flush()
        m = error.search(line) if error else None
        if m:
            end("SkillBeApiError", m.group(1).decode("utf-8", "replace").replace('\\"', '"'))


thread = threading.Thread(target=watch_stderr, daemon=True)
thread.start()
turns = 0
stdout_error = re.compile(pattern.encode()) if pattern else None
for line in child.stdout:
    m = stdout_error.search(line) if stdout_error else None
    if m:
        end("SkillBeApiError", m.group(1).decode("utf-8", "replace"))
        break
    if marker.encode() in line:
        turns += 1
        if turns > max_turns:
            end("SkillBeTurnLimit", f"turn limit reached (maxTurns {max_turns}: the agent asked for model call {turns})")
            break
    sys.stdout.buffer.write(line)
    sys.stdout.flush()
code = child.wait()
thread.join(5)
if ended:
    name, message = ended[0]
    sys.stdout.write(json.dumps({"type": "error", "error": {"name": name, "data": {"message": message}}}) + "\n")
    sys.stdout.flush()
    sys.exit(1)
sys.exit(code)
"""
