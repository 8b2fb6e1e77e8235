"""The output contract: a fixed paragraph appended to the prompt of both arms."""

from __future__ import annotations

from collections.abc import Sequence

HEADS = {
    "typescript": (
        "Answer format: reply with exactly one TypeScript code block. "
        "The code must be a complete ES module that exports these names:"
    ),
    "python": (
        "Answer format: reply with exactly one Python code block. "
        "The code must be a complete Python module that defines these names at its top level:"
    ),
}


def contract_paragraph(output: Sequence[tuple[str, str]], language: str = "typescript") -> str:
    """One line per field in the eval file's order; never part of the skill text."""
    lines = [HEADS[language]]
    lines += [f"- `{name}`: {description}" for name, description in output]
    return "\n".join(lines)
