"""`skill-be schema config|eval|result|summary`: print a file format's JSON Schema."""

from __future__ import annotations

import sys
from pathlib import Path

from skill_be.schema import text


def main(config_path: Path, format: str) -> int:
    del config_path  # the schema is the same for every project
    sys.stdout.write(text(format))
    return 0
