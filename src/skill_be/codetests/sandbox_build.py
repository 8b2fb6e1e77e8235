"""The sandbox image from a pip install: `skill-be sandbox build` builds it from the
Dockerfile the package ships (the node and sandbox stages of skill-be's own Dockerfile), and
`codeTests.sandbox: auto` falls back to bwrap or the process runner, with a note saying how to get
Docker's isolation, when an engine answers but has no sandbox image."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skill_be import __version__
from skill_be.errors import ConfigError, SkillBeError

HERE = Path(__file__).resolve().parent / "sandbox_image"
DEFAULT_BASE = "debian:bookworm-slim"


def fallback_kind() -> str:
    from skill_be.codetests.sandbox import bwrap

    return "bwrap" if bwrap.works() is None else "process"


def auto_kind(image: str, warn: Callable[[str], None]) -> str:
    """`auto` with an engine that answers: docker when it has the default image (or skill-be runs in
    its own image there), else the fallback, with the note."""
    from skill_be import containers
    from skill_be.codetests.sandbox.image import resolve

    client = containers.client()
    try:
        resolve(client, image)
        return "docker"
    except ConfigError:
        kind = fallback_kind()
        warn(
            f"note: codeTests.sandbox: auto: this Docker engine has no sandbox image {image}, so the code tests "
            f"run in the {kind} sandbox; for Docker's isolation build it once with: skill-be sandbox build"
        )
        return kind
    finally:
        client.close()


def context(folder: Path) -> None:
    """The build context: the shipped Dockerfile and docker/with-ca.sh, under their real names."""
    (folder / "docker").mkdir()
    (folder / "Dockerfile").write_text((HERE / "Dockerfile.txt").read_text(encoding="utf-8"), encoding="utf-8")
    script = folder / "docker" / "with-ca.sh"
    script.write_text((HERE / "with-ca.sh.txt").read_text(encoding="utf-8"), encoding="utf-8")
    script.chmod(0o755)


def build_args(base: str, ca_certs: str) -> dict[str, str]:
    return {"BASE": base, "EXTRA_CA_CERTS": ca_certs, "SKILL_BE_VERSION": __version__}


def build(tag: str, base: str, ca_certs: str, log: Callable[[str], None], client: Any = None) -> None:
    """docker build --force-rm --target sandbox -t <tag> over the shipped context; SkillBeError with
    the engine's last words when it fails."""
    from docker.errors import DockerException

    from skill_be import containers

    own = client is None
    try:
        client = client or containers.client(timeout=600)
        with tempfile.TemporaryDirectory(prefix="skill-be-sandbox-") as folder:
            context(Path(folder))
            containers.build(client, Path(folder), tag, log, target="sandbox", buildargs=build_args(base, ca_certs))
    except containers.BuildFailed as e:
        raise SkillBeError(f"sandbox build: docker build failed: {e}") from None
    except DockerException as e:
        raise SkillBeError(
            f"sandbox build: no Docker engine answers ({containers.short(e)[:200]}); start Docker"
        ) from None
    finally:
        if own and client is not None:
            client.close()


def ca_text(path: str | None) -> str:
    if path is None:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise SkillBeError(f"--ca-certs: {path} cannot be read ({e.strerror or e})") from None
