"""A scripted demo grader: checks each numbered criterion with a simple text rule over what the agent
did (its final message, tool calls and workspace diff) and replies in skill-be's VERDICTS format."""

import re
import sys

prompt = sys.stdin.read()
head, _, rest = prompt.rpartition("<answer>")
answer = rest.rpartition("</answer>")[0]
final = answer.split("Tool calls (")[0]
diff = answer.split("Workspace diff:")[-1]
criteria = re.findall(r"^(\d+)\. (.+)$", head.split("Criteria:")[-1], re.M)


def met(criterion: str) -> bool:
    if "final message names version" in criterion:
        return "1.2.0" in final
    if "dated heading" in criterion:
        return re.search(r"^\+## \[1\.2\.0\] - \d{4}-\d{2}-\d{2}$", diff, re.M) is not None
    return False


print("VERDICTS:\n" + "\n".join(f"{n}: {'YES' if met(c) else 'NO'}" for n, c in criteria))
