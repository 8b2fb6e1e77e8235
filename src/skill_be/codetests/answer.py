"""The code of an answer: the last fenced block of the reply tagged with the scenario's language
(ts, typescript, js or javascript; for Python, python, py or python3)."""

from __future__ import annotations

from dataclasses import dataclass

from skill_be.project.skills import code_blocks

CODE_LANGS = {"ts": "ts", "typescript": "ts", "js": "js", "javascript": "js"}
PY_LANGS = {"python": "py", "py": "py", "python3": "py"}
NO_BLOCK = "the reply has no code block tagged ts, typescript, js or javascript"
NO_PY_BLOCK = "the reply has no code block tagged python, py or python3"


@dataclass(frozen=True)
class AnswerCode:
    code: str
    file_name: str  # what the compiler is told: answer.ts or answer.js (answer.py for Python)


def extract_code(reply: str, language: str = "typescript") -> AnswerCode | None:
    """The last such block; what the reply says around it does not matter. None when there is none."""
    langs = PY_LANGS if language == "python" else CODE_LANGS
    found: AnswerCode | None = None
    for block in code_blocks(reply.replace("\r\n", "\n")):
        kind = langs.get(block.lang)
        if kind is not None:
            found = AnswerCode(code=block.code, file_name=f"answer.{kind}")
    return found


def no_block(language: str) -> str:
    """The message of every test of an answer without such a block."""
    return NO_PY_BLOCK if language == "python" else NO_BLOCK
