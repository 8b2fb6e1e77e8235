"""`skill-be sandbox build`: the Docker sandbox image from the Dockerfile the package ships, so a
pip install gets Docker's isolation without skill-be's source (codetests/sandbox_build.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from skill_be.codetests.sandbox.image import DEFAULT_IMAGE
from skill_be.codetests.sandbox_build import DEFAULT_BASE, build, ca_text
from skill_be.reports import strings


def main(
    config_path: Path,
    action: str = "build",
    base: str | None = None,
    ca_certs: str | None = None,
    tag: str | None = None,
) -> int:
    image = tag or DEFAULT_IMAGE
    print(f"building {image} (the node and sandbox stages, from {base or DEFAULT_BASE})", file=sys.stderr, flush=True)
    build(image, base or DEFAULT_BASE, ca_text(ca_certs), lambda line: print(line, file=sys.stderr, flush=True))
    print(f"built {image}: codeTests.sandbox auto and docker use it")
    print(strings.RESULT_PASS)
    return 0
