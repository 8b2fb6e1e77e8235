"""A scripted demo grader: judges each numbered criterion with a simple text rule and replies in
the VERDICTS: format skill-be asks for. A stand-in for a real judge, so the demo runs offline."""

import re
import sys

RULES = [  # (words in the criterion, pattern the answer must contain)
    ("Duration.parse", r"Duration\.parse\("),
    ("30 seconds", r"30\s*(s\b|'s'|, 's'|_?000|000)|'30s'"),
    ("clear error", r"throw new Error\("),
    ("plus or total", r"\btotal\(|\.plus\("),
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
