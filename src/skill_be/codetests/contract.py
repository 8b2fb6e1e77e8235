"""The output contract: a fixed paragraph appended to the prompt of both arms."""

from __future__ import annotations

from collections.abc import Sequence


def contract_paragraph(output: Sequence[tuple[str, str]]) -> str:
    """One line per field in the eval file's order; never part of the skill text."""
    lines = [
        "Answer format: reply with exactly one TypeScript code block. "
        "The code must be a complete ES module that exports these names:"
    ]
    lines += [f"- `{name}`: {description}" for name, description in output]
    return "\n".join(lines)
