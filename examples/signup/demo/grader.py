"""A scripted demo grader: judges each numbered criterion with a simple text rule and replies with
a VERDICTS: block, as skill-be asks. A stand-in for a real judge, so the demo runs offline."""

import re
import sys

prompt = sys.stdin.read()
head, _, rest = prompt.rpartition("<answer>")
answer = rest.rpartition("</answer>")[0]
criteria = re.findall(r"^(\d+)\. (.+)$", head.split("Criteria:")[-1], re.M)

lines = []
for number, criterion in criteria:
    if "log" in criterion.lower():
        met = re.search(r"console\.\w+\([^)]*password", answer) is None
    else:
        met = False
    lines.append(f"{number}: {'YES' if met else 'NO'}")
print("Checked each criterion against the answer.\n\nVERDICTS:\n" + "\n".join(lines))
