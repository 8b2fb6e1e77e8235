"""The skill-be image as users run it: `docker run` on a mounted project.

The images come from CI's step .ci/steps/40-docker.sh, which these tests run first: it builds them
when what goes into them changed, and otherwise reuses them (a few seconds). A missing Docker engine
or a failed build fails the tests, with the step's reason."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.support.images import built_image

from skill_be import __version__

REPO = Path(__file__).resolve().parents[3]
IMAGE = f"skill-be:{__version__}"
SANDBOX = f"skill-be-sandbox:{__version__}"
SOCKET = "/var/run/docker.sock"
OWNER = 1234  # a uid and gid that own the mounted project, as a user on the host would


@pytest.fixture(scope="session")
def image() -> str:
    return built_image()


def docker(*args: str, timeout: float = 300, check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=check)


@dataclass
class Run:
    """How one `docker run` of the image is set up; argv() gives the command line."""

    mount: Path | None = None
    workdir: str | None = "/src"
    socket: bool = False
    network_none: bool = True
    user: str | None = None
    env: dict[str, str] | None = None
    name: str | None = None
    extra: Sequence[str] = ()

    def argv(self, image: str, *args: str) -> list[str]:
        out = ["docker", "run", "--rm", "-e", "NO_COLOR=1"]
        if self.name:
            out += ["--name", self.name]
        if self.network_none:
            out += ["--network", "none"]
        if self.mount is not None:
            out += ["-v", f"{self.mount}:/src"]
        if self.workdir is not None:
            out += ["-w", self.workdir]
        if self.socket:
            out += ["-v", f"{SOCKET}:{SOCKET}"]
        if self.user:
            out += ["--user", self.user]
        for k, v in (self.env or {}).items():
            out += ["-e", f"{k}={v}"]
        return [*out, *self.extra, image, *args]

    def __call__(self, image: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(image, *args), capture_output=True, text=True, timeout=timeout, check=False)


def example(tmp_path: Path, name: str, owner: int | None = OWNER, extra_config: str = "") -> Path:
    """A copy of examples/<name>, owned by `owner` like a user's checkout on the host."""
    root = tmp_path / name
    shutil.copytree(REPO / "examples" / name, root, ignore=shutil.ignore_patterns(".skill-be", "node_modules"))
    if extra_config:
        config = root / "skill-be.demo.yaml"
        config.write_text(config.read_text(encoding="utf-8") + extra_config, encoding="utf-8")
    if owner is not None:
        chown_tree(tmp_path, owner)
    return root


def chown_tree(top: Path, owner: int) -> None:
    os.chown(top, owner, owner)
    for folder, dirs, files in os.walk(top):
        for name in (*dirs, *files):
            os.lchown(os.path.join(folder, name), owner, owner)


def not_owned_by(top: Path, owner: int) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(top):
        for name in (folder, *(os.path.join(folder, n) for n in (*dirs, *files))):
            st = os.lstat(name)
            if (st.st_uid, st.st_gid) != (owner, owner):
                found.append(f"{os.path.relpath(name, top)} ({st.st_uid}:{st.st_gid})")
    return sorted(set(found))


@pytest.fixture
def sandbox_tag(image: str) -> Iterator[str]:
    """A tag of its own for the sandbox image, so that this test's sandbox containers are told apart
    from those of tests running beside it: they are the only ones created from this name."""
    tag = f"skill-be-sandbox:e2e-image-{secrets.token_hex(4)}"
    docker("tag", SANDBOX, tag, check=True)
    try:
        yield tag
    finally:
        docker("rmi", tag)


def containers_of(tag: str) -> list[str]:
    """skill-be's sandbox containers (by their label) created from the name `tag`.

    `docker ps --filter ancestor=` matches every name of the same image, so the containers of other
    tests (made from skill-be-sandbox:<version>, the same image) are told apart by the name they were
    created from."""
    done = docker("ps", "-aq", "--no-trunc", "--filter", f"ancestor={tag}", "--filter", "label=skill-be.run",
                  check=True)  # fmt: skip
    found = []
    for cid in done.stdout.split():
        made_from = docker("inspect", "-f", "{{.Config.Image}}", cid)  # gone meanwhile: not found
        if made_from.returncode == 0 and made_from.stdout.strip() == tag:
            found.append(cid[:12])
    return found


def created_from(tag: str, since: str, until: str) -> list[str]:
    """The sandbox containers created from the name `tag` between two engine times (the engine's log)."""
    done = docker(
        "events", "--since", since, "--until", until, "--filter", "type=container", "--filter", "event=create",
        "--filter", "label=skill-be.run", "--format", '{{.Actor.ID}} {{index .Actor.Attributes "image"}}',
        check=True,
    )  # fmt: skip
    return [line.split()[0] for line in done.stdout.splitlines() if line.split()[1:] == [tag]]


def engine_now() -> str:
    # The engine's clock, in the form `docker events --since` takes (seconds since the epoch).
    return docker("info", "--format", "{{.SystemTime}}", check=True).stdout.strip()
