"""The environment's image, without Docker: what its hash is made of (every input changes it, nothing
else does), the Dockerfile and context `cached_image` builds from, and the one line of a setup that
failed (the command's last output, Docker's words, and the network hint when the output says so).
The build itself, its reuse and its rebuild: tests/integration/agent_run/test_environment_run.py."""

from __future__ import annotations

import io
import tarfile
from typing import Any

from skill_be import containers
from skill_be.agents.environment import failed_setup
from skill_be.containers import PlacedFile, _dockerfile, dockerfile_context, image_hash

TOOL = PlacedFile("/usr/local/bin/superlint", {"": b"#!/bin/sh\n"}, "+x")


def test_every_input_changes_the_hash_and_the_same_inputs_give_the_same() -> None:
    base = image_hash("sha256:a", ["pip install six"], [TOOL])
    assert image_hash("sha256:a", ["pip install six"], [PlacedFile(TOOL.dest, dict(TOOL.content), "+x")]) == base
    for other in (
        image_hash("sha256:b", ["pip install six"], [TOOL]),
        image_hash("sha256:a", ["pip install six", "true"], [TOOL]),
        image_hash("sha256:a", ["pip install six"], [PlacedFile(TOOL.dest, {"": b"#!/bin/sh\n#2\n"}, "+x")]),
        image_hash("sha256:a", ["pip install six"], [PlacedFile(TOOL.dest, dict(TOOL.content), "755")]),
        image_hash("sha256:a", ["pip install six"], [PlacedFile("/opt/superlint", dict(TOOL.content), "+x")]),
        image_hash("sha256:a", ["pip install six"]),
    ):
        assert other != base


def test_the_dockerfile_places_the_files_then_runs_the_setup() -> None:
    folder = PlacedFile("/opt/my tools", {"a.sh": b"a", "lib/b.py": b"b"}, "755")
    text, context = _dockerfile("skill-be:1.0.0", ["pip install six"], [TOOL, folder])
    assert text.splitlines() == [
        "FROM skill-be:1.0.0",
        "USER root",
        'COPY ["files/0", "/usr/local/bin/superlint"]',
        "RUN chmod +x /usr/local/bin/superlint",
        'COPY ["files/1", "/opt/my tools"]',
        "RUN chmod -R 755 '/opt/my tools'",
        "RUN pip install six",
    ]
    assert context == {"files/0": b"#!/bin/sh\n", "files/1/a.sh": b"a", "files/1/lib/b.py": b"b"}
    with tarfile.open(fileobj=io.BytesIO(dockerfile_context(text, context))) as tar:
        assert sorted(tar.getnames()) == ["Dockerfile", "files/0", "files/1/a.sh", "files/1/lib/b.py"]


class Engine:
    """Docker's client as cached_image uses it: one base image, the images found by label, builds counted."""

    def __init__(self, found: bool) -> None:
        self.found, self.builds = found, []
        self.images = self
        self.api = self

    def get(self, name: str) -> Any:
        return type("Image", (), {"id": "sha256:base"})()

    def list(self, filters: dict[str, str]) -> list[str]:
        return ["image"] if self.found else []

    def build(self, **options: Any) -> list[dict[str, str]]:
        self.builds.append(options)
        return [{"stream": "Step 1/2 : FROM x"}]


def test_an_image_found_by_its_hash_is_not_built_and_a_missing_one_is() -> None:
    lines: list[str] = []
    found = Engine(found=True)
    tag = containers.cached_image(found, "skill-be:1.0.0", ["true"], lines.append, files=[TOOL])
    assert found.builds == [] and lines == [] and tag.startswith("skill-be-env:")
    missing = Engine(found=False)
    again = containers.cached_image(missing, "skill-be:1.0.0", ["true"], lines.append, files=[TOOL], labels={"x": "y"})
    assert again == tag and len(missing.builds) == 1 and lines == ["Step 1/2 : FROM x"]
    labels = missing.builds[0]["labels"]
    assert labels["x"] == "y" and labels[containers.HASH_LABEL] == image_hash("sha256:base", ["true"], [TOOL])


def test_a_failed_setup_is_one_line_with_its_last_output() -> None:
    output = [
        "Step 3/3 : RUN make",
        " ---> Running in 1234",
        "make: *** no rule for all",
        "Removing intermediate container 1",
    ]
    line = str(failed_setup("evals/x.json:3:5: environment.setup", "The command returned a non-zero code: 2", output))
    assert line == (
        "evals/x.json:3:5: environment.setup: the environment's setup failed (make: *** no rule for all; The command "
        "returned a non-zero code: 2); run the command in a container of skill-be's image to see all its output, "
        "and fix it"
    )
    offline = failed_setup("w", "returned a non-zero code: 1", ["ERROR: Could not resolve host: pypi.org"])
    assert "it needs the network, which this build machine does not reach" in str(offline)
