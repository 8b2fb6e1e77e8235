"""Scripted models that log every call they answer, for counting what the cache saves."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

# Answers "SKILLED allocate money [<task>]" with the skill in the prompt, else "plain answer [<task>]";
# logs `model<TAB><task>` for every call. A task that contains FAIL makes the call fail (exit 1).
COUNTING_MODEL = """
import sys
p = sys.stdin.read()
task = p.split("Task: ")[-1].strip()
with open("calls.log", "a") as log:
    log.write("model\\t" + task + "\\n")
if "FAIL" in task:
    sys.exit("the model is down")
print(("SKILLED allocate money" if "LIBRARY DOCS" in p else "plain answer") + " [" + task + "]")
"""

# Says YES to criterion n when the answer contains the criterion's last word; logs `grader<TAB><task>`.
COUNTING_GRADER = """
import re, sys
p = sys.stdin.read()
head, _, rest = p.rpartition("<answer>")
answer = rest.rpartition("</answer>")[0]
task = answer.rpartition("[")[2].rstrip("]\\n ")
with open("calls.log", "a") as log:
    log.write("grader\\t" + task + "\\n")
crit = re.findall(r"^(\\d+)\\. (.+)$", head.split("Criteria:")[-1], re.M)
print("I looked.\\n\\nVERDICTS:")
for n, c in crit:
    print(f"{n}: {'YES' if c.split()[-1] in answer else 'NO'}")
"""

TWO_SCENARIOS = {
    "money": [
        {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate"]},
        {"id": "share", "prompt": "Share a cost.", "criteria": ["Uses money"]},
    ]
}


def calls(root: Path) -> Counter[tuple[str, str]]:
    """(model | grader, task) -> how many calls."""
    log = root / "calls.log"
    if not log.exists():
        return Counter()
    return Counter(tuple(line.split("\t", 1)) for line in log.read_text().splitlines())  # type: ignore[misc]


def reset(root: Path) -> None:
    (root / "calls.log").unlink(missing_ok=True)
