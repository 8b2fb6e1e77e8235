"""What a container gets wrong, each told in one line on stderr with exit code 2, never a traceback:
no project mounted, a config path outside the mount, a folder it cannot read, `sandbox: docker`
without the socket, a socket the container's user cannot open."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import docker
import pytest
from tests.e2e.image.conftest import OWNER, Run, example

from skill_be.codetests.sandbox import image as sandbox_image
from skill_be.errors import ConfigError


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_no_project_mounted(image: str) -> None:
    line = one_line(Run(workdir=None)(image, "verify"))
    assert line.startswith("skill-be: no project: the working folder is /; mount your project and work in it: ")
    assert 'docker run --rm -v "$PWD:/src" -w /src' in line


def test_a_working_folder_with_nothing_mounted(image: str) -> None:
    line = one_line(Run(workdir="/src")(image, "check"))
    assert line.startswith(
        "skill-be: no project in /src: nothing is mounted there and it is empty; mount your project: "
    )


def test_help_and_version_need_no_project(image: str) -> None:
    done = Run(workdir=None)(image, "verify", "--help")
    assert done.returncode == 0, done.stderr
    assert Run(workdir=None)(image, "--version").returncode == 0


def test_a_config_outside_the_mount(image: str, tmp_path: Path) -> None:
    example(tmp_path, "durations")
    mount = tmp_path / "durations"
    # The path the user has on the host, which the container does not have.
    line = one_line(Run(mount=mount)(image, "verify", "--config", f"{mount}/skill-be.yaml"))
    assert line == (
        f"skill-be: --config {mount}/skill-be.yaml: {mount}/skill-be.yaml is outside the mounted folder /src; "
        "skill-be reads the project and writes its results next to the config, so give a path inside /src"
    )
    line = one_line(Run(mount=mount)(image, "check", "--config=../etc/skill-be.yaml"))
    assert line.startswith("skill-be: --config ../etc/skill-be.yaml: /etc/skill-be.yaml is outside the mounted folder")


def test_a_mount_the_container_s_user_cannot_read(image: str, tmp_path: Path) -> None:
    root = example(tmp_path, "durations")
    os.chmod(root, 0o700)  # the owner's alone; the container runs as another uid
    line = one_line(Run(mount=root, user="4321:4321")(image, "check"))
    assert line == (
        "skill-be: cannot read the working folder /src as uid 4321 (Permission denied); make it readable to that "
        "uid, run without --user, or on an SELinux host add :z to the -v option"
    )


def test_sandbox_docker_without_the_socket(image: str, tmp_path: Path) -> None:
    root = example(tmp_path, "signup", extra_config="\ncodeTests:\n  sandbox: docker\n")
    line = one_line(Run(mount=root)(image, "run", "--config", "skill-be.demo.yaml"))
    assert line.startswith("codeTests.sandbox: docker, but no Docker engine answers (")
    assert line.endswith(
        "; mount the Docker socket into skill-be's container (-v /var/run/docker.sock:/var/run/docker.sock), "
        "or set codeTests.sandbox: process"
    )


def test_a_socket_the_container_s_user_cannot_open(image: str, tmp_path: Path) -> None:
    root = example(tmp_path, "signup")
    st = os.stat("/var/run/docker.sock")
    assert st.st_mode & 0o006 == 0, "the socket must not be open to everyone for this test"
    line = one_line(
        Run(mount=root, socket=True, user=f"{OWNER}:{OWNER}")(image, "run", "--config", "skill-be.demo.yaml")
    )
    assert line == (
        f"skill-be: the Docker socket /var/run/docker.sock is mounted, but uid {OWNER} cannot open it (owner "
        f"{st.st_uid}:{st.st_gid}, mode {st.st_mode & 0o7777:o}); run the container as root (no --user), or add "
        f"--group-add {st.st_gid}, or leave the socket out to run the code tests without Docker"
    )
    # The fix it names works.
    done = Run(mount=root, socket=True, user=f"{OWNER}:{OWNER}", extra=["--group-add", str(st.st_gid)])(
        image, "run", "--config", "skill-be.demo.yaml"
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_when_neither_the_sandbox_image_nor_skill_be_s_own_is_there(image: str) -> None:
    # skill-be on this machine, outside the image: the default sandbox image missing, and no
    # container of this engine to take the image from.
    client = docker.from_env()
    try:
        with pytest.raises(ConfigError) as caught:
            sandbox_image.resolve(client, "skill-be-sandbox:absent", default="skill-be-sandbox:absent")
    finally:
        client.close()
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(
        'codeTests.image: the Docker image "skill-be-sandbox:absent" is not on this Docker engine; build it from '
        "skill-be's source with `docker build --force-rm --target sandbox -t skill-be-sandbox:absent .`, set "
        "codeTests.image to an image with Node 22 and a POSIX shell, or set codeTests.sandbox: process "
        "(the image skill-be runs in cannot stand in: "
    )
    assert line.endswith(("skill-be does not run in a container)", "(skill-be runs in a container of another engine)"))
