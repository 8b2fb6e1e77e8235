"""Docker for every part that starts containers (the agent boxes and their egress proxy, the code-test
sandbox, `skill-be sandbox build`): one client, one hardened container, tmpfs volumes, and images
built and cached by a hash of what they are made of.

Every container skill-be starts is made by `create`: every capability dropped (the few given back are
named), no new privileges, an empty environment, limits on memory (swap included), CPU and
processes, a read-only root unless a test switches it off, and never the Docker socket. The Docker
SDK is imported inside the functions that use it, so `--help` and `verify` never pay for it.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SOCKET = "/var/run/docker.sock"
HASH_LABEL = "skill-be.image-hash"  # an image `cached_image` built: the hash of its base and steps
PING_TIMEOUT_S = 3


class BuildFailed(Exception):
    """`docker build` stopped: the engine's last words."""


class SocketRefused(ValueError):
    """A mount that would hand the Docker socket (root on the host) to the container."""


def short(e: BaseException) -> str:
    """An exception as one short line, for a message."""
    return " ".join(str(e).split())[:300] or type(e).__name__


def client(timeout: int = 60, pool_size: int = 10) -> Any:
    """A client for the engine named by the environment (DOCKER_HOST or the default socket). Raises
    what the SDK raises when there is none (DockerException)."""
    import docker

    return docker.from_env(timeout=timeout, max_pool_size=pool_size)


def engine_answers(timeout: int = PING_TIMEOUT_S) -> str | None:
    """None when a Docker engine answers a ping quickly; else why not."""
    try:
        c = client(timeout=timeout)
        try:
            c.ping()
        finally:
            c.close()
    except Exception as e:  # any failure to reach the engine means: no engine here
        return short(e)[:200]
    return None


@dataclass(frozen=True)
class Hardening:
    """What a container may do. `caps` are given back after ALL is dropped; `seccomp` is a profile's
    JSON (None: the engine's default profile); `pids` -1 is no limit (a test's control only)."""

    user: str
    memory_mb: int
    cpus: float | None  # None: no CPU limit
    pids: int
    network: str = "none"
    read_only: bool = True
    caps: tuple[str, ...] = ()
    seccomp: str | None = None
    ipc_none: bool = False
    init: bool = False
    tmpfs: Mapping[str, str] = field(default_factory=dict)

    def options(self) -> dict[str, Any]:
        """The engine's create options for these settings."""
        security = ["no-new-privileges", *([f"seccomp={self.seccomp}"] if self.seccomp is not None else [])]
        out: dict[str, Any] = {
            "user": self.user,
            "network_mode": self.network,
            "read_only": self.read_only,
            "cap_drop": ["ALL"],
            "security_opt": security,
            "pids_limit": self.pids,
            "mem_limit": f"{self.memory_mb}m",
            "memswap_limit": f"{self.memory_mb}m",
            "environment": {},  # nothing of skill-be's environment: each exec names its own
        }
        if self.cpus is not None:
            out["nano_cpus"] = int(self.cpus * 1_000_000_000)
        if self.caps:
            out["cap_add"] = list(self.caps)
        if self.ipc_none:
            out["ipc_mode"] = "none"
        if self.init:
            out["init"] = True
        if self.tmpfs:
            out["tmpfs"] = dict(self.tmpfs)
        return out


def _no_socket(volumes: Mapping[str, Mapping[str, str]], mounts: Sequence[Mapping[str, Any]]) -> None:
    paths = [*volumes, *(v.get("bind") for v in volumes.values())]
    paths += [m.get(key) for m in mounts for key in ("Source", "Target")]
    for path in paths:
        if isinstance(path, str) and Path(path).name == Path(SOCKET).name:
            raise SocketRefused(f"a container never gets the Docker socket ({path})")


def create(
    engine: Any,
    image: str,
    hardening: Hardening,
    *,
    command: Sequence[str],
    entrypoint: Sequence[str],
    labels: Mapping[str, str],
    volumes: Mapping[str, Mapping[str, str]] | None = None,
    mounts: Sequence[Mapping[str, Any]] = (),
    working_dir: str | None = None,
    name: str | None = None,
) -> Any:
    """A created (not started) container with `hardening`; SocketRefused for a mount of the socket."""
    _no_socket(volumes or {}, mounts)
    extra: dict[str, Any] = {}
    if volumes:
        extra["volumes"] = {k: dict(v) for k, v in volumes.items()}
    if mounts:
        extra["mounts"] = list(mounts)
    if working_dir is not None:
        extra["working_dir"] = working_dir
    if name is not None:
        extra["name"] = name
    return engine.containers.create(
        image, entrypoint=list(entrypoint), command=list(command), labels=dict(labels), **hardening.options(), **extra
    )


def tmpfs_volume(
    engine: Any,
    size_mb: int,
    labels: Mapping[str, str],
    *,
    uid: int | None = None,
    mode: str | None = None,
    noexec: bool = False,
    name: str | None = None,
) -> Any:
    """A named volume in memory, counted against nothing on the host's disk: the archive API writes
    into it once a container that mounts it has started (it cannot write into a tmpfs mount)."""
    opts = [f"size={size_mb}m"]
    if uid is not None:
        opts.append(f"uid={uid},gid={uid}")
    if mode is not None:
        opts.append(f"mode={mode}")
    if noexec:
        opts.append("noexec,nosuid,nodev")
    extra = {"name": name} if name is not None else {}
    return engine.volumes.create(
        driver="local",
        driver_opts={"type": "tmpfs", "device": "tmpfs", "o": ",".join(opts)},
        labels=dict(labels),
        **extra,
    )


def build(
    engine: Any,
    context: Path | bytes,
    tag: str,
    log: Callable[[str], None],
    *,
    target: str | None = None,
    buildargs: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> None:
    """`docker build --force-rm` of a folder, or of a tar stream holding a Dockerfile; each line of the
    build's output goes to `log`. BuildFailed with the engine's words when a step fails."""
    options: dict[str, Any] = {"tag": tag, "forcerm": True, "rm": True, "decode": True}
    if isinstance(context, bytes):
        options.update(fileobj=io.BytesIO(context), custom_context=True)
    else:
        options["path"] = str(context)
    if target is not None:
        options["target"] = target
    if buildargs:
        options["buildargs"] = dict(buildargs)
    if labels:
        options["labels"] = dict(labels)
    for chunk in engine.api.build(**options):
        if "error" in chunk:
            raise BuildFailed(" ".join(str(chunk["error"]).split()))
        text = str(chunk.get("stream") or "").rstrip()
        if text:
            log(text)


def dockerfile_context(dockerfile: str, files: Mapping[str, bytes] | None = None) -> bytes:
    """A build context that is one Dockerfile (and `files`, by context path, mode 0644), as a tar stream."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in {"Dockerfile": dockerfile.encode("utf-8"), **(files or {})}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@dataclass(frozen=True)
class PlacedFile:
    """A file or folder copied into an image by `cached_image`: its content by relative path ("" for a
    single file), its absolute destination, and chmod's mode for it (a folder: for all it holds;
    None: files 0644)."""

    dest: str
    content: Mapping[str, bytes]
    mode: str | None = None


def image_hash(base_id: str, steps: Sequence[str], files: Sequence[PlacedFile] = ()) -> str:
    """What an image made by `cached_image` is: its base image's id, its files (where, what, mode) and
    its steps, in order."""
    h = hashlib.sha256(base_id.encode())
    for f in files:
        h.update(b"\0file\0" + f.dest.encode() + b"\0" + (f.mode or "").encode())
        for rel in sorted(f.content):
            h.update(b"\0" + rel.encode() + b"\0" + hashlib.sha256(f.content[rel]).digest())
    for step in steps:
        h.update(b"\0" + step.encode("utf-8"))
    return h.hexdigest()


def _dockerfile(base: str, steps: Sequence[str], files: Sequence[PlacedFile]) -> tuple[str, dict[str, bytes]]:
    import json
    import shlex

    lines, context = [f"FROM {base}", "USER root"], {}
    for i, f in enumerate(files):
        for rel, data in f.content.items():
            context[f"files/{i}" + (f"/{rel}" if rel else "")] = data
        lines.append(f"COPY {json.dumps([f'files/{i}', f.dest])}")  # the JSON form: a dest with spaces
        if f.mode:  # a folder's mode goes to everything in it
            recursive = "-R " if any(f.content) else ""
            lines.append(f"RUN chmod {recursive}{shlex.quote(f.mode)} {shlex.quote(f.dest)}")
    lines += [f"RUN {step}" for step in steps]
    return "\n".join(lines) + "\n", context


def cached_image(
    engine: Any,
    base: str,
    steps: Sequence[str],
    log: Callable[[str], None],
    repository: str = "skill-be-env",
    *,
    files: Sequence[PlacedFile] = (),
    labels: Mapping[str, str] | None = None,
) -> str:
    """An image of `base` with `files` placed (each then chmod-ed to its mode) and each of `steps` run
    in it (`RUN <step>`, as root, with the base's environment and the build machine's network), built
    once: a later call with the same base image, files and steps finds it by its hash label and builds
    nothing (nor calls `log`). Returns its tag. BuildFailed when a step fails."""
    base_id = str(engine.images.get(base).id)
    digest = image_hash(base_id, steps, files)
    tag = f"{repository}:{digest[:16]}"
    if engine.images.list(filters={"label": f"{HASH_LABEL}={digest}"}):
        return tag
    dockerfile, context = _dockerfile(base, steps, files)
    build(engine, dockerfile_context(dockerfile, context), tag, log, labels={**(labels or {}), HASH_LABEL: digest})
    return tag
