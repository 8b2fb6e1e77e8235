"""The launcher's own logic (docker/launch.py, the image's entrypoint after the shell), without a
container: which command it sees, which mount holds a folder, and the order of the Dockerfile's
layers that keeps a source change from reinstalling Node or the CLIs."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from tests.e2e.image.conftest import REPO


def launcher() -> ModuleType:
    spec = importlib.util.spec_from_file_location("skill_be_launch", REPO / "docker" / "launch.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_command_and_the_config_are_found_wherever_they_stand() -> None:
    command_of = launcher().command_of
    assert command_of(["run", "--config", "run.yaml", "--html"]) == ("run", "run.yaml", False)
    assert command_of(["--config=x/skill-be.yaml", "verify"]) == ("verify", "x/skill-be.yaml", False)
    assert command_of(["check", "--help"]) == ("check", None, True)
    assert command_of(["--version"]) == (None, None, True)
    assert command_of(["triage", "signup", "--config", "c.yaml"]) == ("triage", "c.yaml", False)


MOUNTINFO = """\
22 1 0:21 / / rw,relatime - overlay overlay rw
23 22 0:22 / /proc rw - proc proc rw
30 22 8:1 /home/me/my\\040project /src rw,relatime - ext4 /dev/sda1 rw
31 22 8:1 /var/lib/docker/containers/abc/hostname /etc/hostname rw - ext4 /dev/sda1 rw
32 30 8:1 /home/me/cache /src/.cache rw - ext4 /dev/sda1 rw
"""


def test_the_deepest_mount_holds_a_folder(tmp_path: Path) -> None:
    info = tmp_path / "mountinfo"
    info.write_text(MOUNTINFO, encoding="utf-8")
    mount_of = launcher().mount_of
    assert mount_of("/src", str(info)) == "/src"
    assert mount_of("/src/sub/dir", str(info)) == "/src"
    assert mount_of("/src/.cache/x", str(info)) == "/src/.cache"
    assert mount_of("/srcother", str(info)) is None
    assert mount_of("/", str(info)) is None  # the image's own root is no project mount
    assert mount_of("/etc", str(info)) is None
    info.write_text("30 22 8:1 / /my\\040project rw - ext4 /dev/sda1 rw\n", encoding="utf-8")
    assert mount_of("/my project/a", str(info)) == "/my project"


def test_a_config_inside_the_mount_passes_and_one_outside_does_not(tmp_path: Path) -> None:
    module = launcher()
    (tmp_path / "skill-be.yaml").write_text("skills: ./skills\n", encoding="utf-8")
    mount = str(tmp_path)
    module.mount_of = lambda path, mountinfo="": mount  # the test's folder stands for the mount
    assert module.project_problem(mount, "skill-be.yaml") is None
    assert module.project_problem(mount, f"{mount}/sub/../skill-be.yaml") is None
    problem = module.project_problem(mount, "../elsewhere.yaml")
    assert problem is not None and problem.startswith("--config ../elsewhere.yaml: ")
    assert "is outside the mounted folder" in problem


def test_the_images_copy_node_typescript_the_venv_and_the_clis_before_the_source() -> None:
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    # What verify and skill-be share comes first, in the runtime stage both start from.
    runtime = text[text.index("AS runtime\n") : text.index("AS verify\n")]
    order = ["apt-get install", "COPY --from=node ", "COPY --from=typescript ", "COPY --from=python /opt/skill-be/ "]
    found = [runtime.index(step) for step in order]
    assert found == sorted(found)
    assert "FROM runtime AS verify\n" in text and "FROM runtime AS skill-be\n" in text
    # The full image adds the agent CLIs before skill-be's own wheel, so a source change rebuilds
    # only the last layers; the verify image has no CLIs at all.
    stage = text[text.index("AS skill-be\n") :]
    assert stage.index("COPY --from=clis ") < stage.index("COPY --from=python /wheels/ ")
    verify = text[text.index("AS verify\n") : text.index("AS skill-be\n")]
    assert "--from=clis" not in verify and "COPY --from=python /wheels/ " in verify
    # The python stage installs the dependencies from pyproject.toml before it copies the source.
    python = text[text.index("AS python\n") : text.index("AS skill-be\n")]
    assert python.index("requirements.txt") < python.index("COPY src ")
    assert re.search(r"COPY docker/requirements.py pyproject.toml", python)
