"""A scripted demo model: reads the prompt on stdin and answers deterministically from it, so the
pipeline runs offline. With the guidelines in the prompt it follows the team's format."""

import sys

prompt = sys.stdin.read()
with_skill = "GUIDELINES" in prompt

if "pay-gw" in prompt:
    if with_skill:
        answer = (
            "**Resolved** · Card payments · 09:14–09:41 UTC\n\n"
            "Some card payments timed out and had to be retried. Payments by invoice were not affected.\n\n"
            "Next: we will publish what caused it on Thursday."
        )
    else:
        answer = (
            "## Incident report\n\nAt 09:14 UTC alerts fired on pay-gw-3 (OPS-2231). Dana failed over to "
            "pay-gw-4 at 09:20 and error rates recovered by 09:41. We sincerely apologize."
        )
elif "search" in prompt:
    if with_skill:
        answer = (
            "**Ongoing** · Search · since 16:05 UTC\n\n"
            "About a third of searches return no results.\n\nNext: an update within 30 minutes."
        )
    else:
        answer = "**Ongoing**: search is degraded (es-cluster-b). Next update in 30 minutes."
else:
    answer = "No summary."
print(answer)
