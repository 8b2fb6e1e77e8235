"""The code of an answer: the last fenced block of the reply tagged ts, typescript, js or javascript."""

from __future__ import annotations

from dataclasses import dataclass

from skill_be.project.skills import code_blocks

CODE_LANGS = {"ts": "ts", "typescript": "ts", "js": "js", "javascript": "js"}
NO_BLOCK = "the reply has no code block tagged ts, typescript, js or javascript"


@dataclass(frozen=True)
class AnswerCode:
    code: str
    file_name: str  # what the compiler is told: answer.ts or answer.js


def extract_code(reply: str) -> AnswerCode | None:
    """The last such block; what the reply says around it does not matter. None when there is none."""
    found: AnswerCode | None = None
    for block in code_blocks(reply.replace("\r\n", "\n")):
        kind = CODE_LANGS.get(block.lang)
        if kind is not None:
            found = AnswerCode(code=block.code, file_name=f"answer.{kind}")
    return found
