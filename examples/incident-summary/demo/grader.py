"""A scripted demo grader: checks each numbered criterion with a simple text rule and replies in
the VERDICTS: format skill-be asks for. A stand-in for a real judge, so the demo runs offline."""

import re
import sys

prompt = sys.stdin.read()
head, _, rest = prompt.rpartition("<answer>")
answer = rest.rpartition("</answer>")[0].strip()
first = answer.splitlines()[0] if answer else ""
last = answer.splitlines()[-1] if answer else ""
criteria = re.findall(r"^(\d+)\. (.+)$", head.split("Criteria:")[-1], re.M)


def met(criterion: str) -> bool:
    if criterion.startswith("Starts with a line that says Resolved"):
        return "Resolved" in first and "UTC" in first
    if criterion.startswith("Starts with a line that says Ongoing"):
        return "Ongoing" in first
    if "what customers saw" in criterion:
        return not re.search(r"pay-gw|es-cluster|alerts", answer)
    if "host names" in criterion:
        return not re.search(r"pay-gw|OPS-\d+|Dana", answer)
    if "Next:" in criterion:
        return last.startswith("Next:")
    return False


print("VERDICTS:\n" + "\n".join(f"{n}: {'YES' if met(c) else 'NO'}" for n, c in criteria))
