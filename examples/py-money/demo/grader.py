"""A scripted demo grader: judges each numbered criterion with a text rule and replies in the
VERDICTS: format skill-be asks for. A stand-in for a real judge, so the demo runs offline."""

import re
import sys

RULES = [  # (words in the criterion, pattern the answer must contain)
    ("allocate", r"\.allocate\("),
    ("Money values", r"\bMoney\.of\("),
    ("total or add", r"\btotal\(|\.add\("),
    ("with format", r"\.format\(\)"),
]

prompt = sys.stdin.read()
head, _, rest = prompt.rpartition("<answer>")
answer = rest.rpartition("</answer>")[0]
criteria = re.findall(r"^(\d+)\. (.+)$", head.split("Criteria:")[-1], re.M)

lines = []
for number, criterion in criteria:
    pattern = next((p for words, p in RULES if words in criterion), None)
    met = pattern is not None and re.search(pattern, answer) is not None
    lines.append(f"{number}: {'YES' if met else 'NO'}")
print("Checked each criterion against the answer's code.\n\nVERDICTS:\n" + "\n".join(lines))
