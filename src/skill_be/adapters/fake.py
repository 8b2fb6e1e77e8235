"""The `fake` adapter: canned answers and canned gradings, no model, no network, no cost.

It lets a new user run the whole pipeline on their own skill before any key (`skill-be run --fake`,
or `adapter: fake` in the config): the reports, results.html, the checks, the code tests (against a
canned answer) and the closing lines. Every answer and every grading it writes starts with `MARK`;
a run with a fake model or grader is never READY and never writes the result file
(commands/run_files.py). What it answers is decided by the prompt alone, so a run is reproducible:

- a grading prompt (it ends with the grader's fixed closing paragraph): a VERDICTS block whose YES
  or NO per criterion comes from a digest of the criterion and the answer;
- a trigger query (the `<available_skills>` block): `none`;
- any other prompt: a canned answer; when the prompt asks for one code block (an output contract),
  the first code block of that language in the prompt (the with-skill arm's skill text may hold one),
  else an empty one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, Usage
from skill_be.project.config import AdapterEntry

NAME = "fake"
MARK = "[skill-be fake]"
ANSWER = (
    f"{MARK} A canned answer: no model was called. It stands in for a model's answer so the reports, "
    "results.html and the checks can be seen; nothing it scores says anything about the skill."
)
GRADING = f"{MARK} Canned verdicts: no grader was called; each YES or NO is drawn from a digest of the answer."
# The grader prompt's fixed closing paragraph (engine/prompts.py CLOSING) names how many criteria it has.
_CLOSING = re.compile(r"one line for each of the (\d+) criteria above")
_CRITERION = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)
_CONTRACT = re.compile(r"reply with exactly one (TypeScript|Python) code block")
_FENCES = {"TypeScript": ("ts", "typescript"), "Python": ("py", "python")}


def grading(prompt: str, n: int) -> str:
    """The canned VERDICTS block for a grading prompt with `n` criteria."""
    answer = prompt.rpartition("<answer>")[2]
    criteria = dict(_CRITERION.findall(prompt.partition("<answer>")[0]))
    lines = []
    for i in range(1, n + 1):
        digest = hashlib.sha256(f"{criteria.get(str(i), '')}\n{answer}".encode()).digest()
        lines.append(f"{i}: {'YES' if digest[0] % 2 else 'NO'}")
    return "\n".join([GRADING, "", "VERDICTS:", *lines])


def code_answer(prompt: str, language: str) -> str:
    """The first code block of `language` in the prompt, else an empty one, after the mark."""
    tags = _FENCES[language]
    for match in re.finditer(r"```([A-Za-z]*)\n(.*?)```", prompt, re.DOTALL):
        if match.group(1).lower() in tags:
            return f"{MARK} A canned answer: the first {language} block of the prompt.\n\n```{tags[0]}\n{match.group(2)}```"
    comment = "//" if language == "TypeScript" else "#"
    return f"{MARK} A canned answer: the prompt holds no {language} block.\n\n```{tags[0]}\n{comment} {MARK}\n```"


def answer(prompt: str) -> str:
    """What the fake model or grader replies to `prompt`."""
    closing = _CLOSING.search(prompt)
    if closing is not None and prompt.rstrip().endswith("only the last VERDICTS: block is read."):
        return grading(prompt, int(closing.group(1)))
    if "<available_skills>" in prompt:
        return "none"
    contract = _CONTRACT.search(prompt)
    if contract is not None:
        return code_answer(prompt, contract.group(1))
    digest = hashlib.sha256(prompt.encode()).hexdigest()[:8]
    return f"{ANSWER} (prompt {digest}, {len(prompt)} characters)"


class FakeAdapter:
    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        self.entry = entry
        self.label = env.label or entry.id
        self.base_url: str | None = None  # what an agent scenario's driver is given (agents/drivers/fake.py)

    def key(self) -> str | None:
        return None

    def executable(self) -> str:
        return "sh"  # the fake agent is a shell line (agents/drivers/fake.py)

    async def preflight(self) -> None:
        return None

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        return Answer(text=answer(prompt), usage=Usage(input_tokens=0, output_tokens=0), meta={"fake": True})

    def describe(self) -> Mapping[str, object]:
        return {"adapter": NAME, "id": self.entry.id, "fake": True}


def create(entry: AdapterEntry, env: AdapterEnv) -> FakeAdapter:
    return FakeAdapter(entry, env)
