"""Which image the Docker sandbox starts when `codeTests.image` names none.

The default is `skill-be-sandbox:<version>`, built from the `sandbox` target of skill-be's
Dockerfile. When the engine does not have it and skill-be itself runs in a container of that engine
(the skill-be image with the Docker socket mounted: `docker run`, or the GitHub Action), the sandbox
uses the image skill-be runs in: it has Node 22 and a POSIX shell too. That container is found
through the engine, by the id the container runtime leaves in /proc/self/mountinfo (the bind mounts
of /etc/hostname and friends come from `.../containers/<id>/`), else in /proc/self/cgroup, else by the
hostname, which Docker sets to the id's first 12 characters unless told otherwise."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

from skill_be import __version__
from skill_be.errors import ConfigError

DEFAULT_IMAGE = f"skill-be-sandbox:{__version__}"
_ID_IN_MOUNTS = re.compile(r"containers/([0-9a-f]{64})/")
_ID_IN_CGROUP = re.compile(r"(?:docker|libpod)[-/]([0-9a-f]{64})")
SOCKET_HINT = "-v /var/run/docker.sock:/var/run/docker.sock"


def own_container_ids(proc: Path = Path("/proc/self")) -> list[str]:
    """The ids this process's container may have, most reliable first (may be empty)."""
    found: list[str] = []
    for name, pattern in (("mountinfo", _ID_IN_MOUNTS), ("cgroup", _ID_IN_CGROUP)):
        try:
            text = (proc / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found += [m for m in pattern.findall(text) if m not in found]
    host = socket.gethostname()
    if re.fullmatch(r"[0-9a-f]{12,64}", host) and not any(i.startswith(host) for i in found):
        found.append(host)
    return found


def own_image(client: Any) -> tuple[str | None, str]:
    """The id of the image this process's container runs, or None and why not."""
    from docker.errors import DockerException

    ids = own_container_ids()
    if not ids:
        return None, "skill-be does not run in a container"
    for cid in ids:
        try:
            image: str = client.containers.get(cid).attrs["Image"]
            return image, ""
        except (DockerException, KeyError):
            continue
    return None, f"this engine has no container {ids[0][:12]} (skill-be runs in a container of another engine)"


def in_container() -> bool:
    return Path("/.dockerenv").exists() or bool(own_container_ids())


def no_engine_fix() -> str:
    """What to do when no engine answers: inside a container, mount the host's socket."""
    if in_container():
        return f"mount the Docker socket into skill-be's container ({SOCKET_HINT})"
    return "start Docker"


def missing(image: str) -> str:
    """The one line for an image the engine does not have."""
    return (
        f'codeTests.image: the Docker image "{image}" is not on this Docker engine; build it from '
        f"skill-be's source with `docker build --force-rm --target sandbox -t {image} .`, "
        "set codeTests.image to an image with Node 22 and a POSIX shell, or set codeTests.sandbox: process"
    )


def resolve(client: Any, image: str, default: str = DEFAULT_IMAGE) -> str:
    """The image to start: `image` when the engine has it; for the default, else skill-be's own image.

    ConfigError (one line) when neither is there."""
    from docker.errors import DockerException, ImageNotFound

    try:
        client.images.get(image)
        return image
    except ImageNotFound:
        pass
    except DockerException as e:
        raise ConfigError(f"codeTests.image: cannot inspect {image} ({' '.join(str(e).split())[:300]})") from None
    if image != default:
        raise ConfigError(missing(image))
    own, why_not = own_image(client)
    if own is None:
        raise ConfigError(f"{missing(image)} (the image skill-be runs in cannot stand in: {why_not})")
    return own
