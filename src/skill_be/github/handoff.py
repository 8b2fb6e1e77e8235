"""The action's hand-off from the verify image to the full one.

The action starts the verify image (no agent CLIs: what a pull request's `verify` job pulls). The
commands that call agents or models, `run`, `triage` and `regrade`, need the full image: the action
then starts itself again in a sibling container of that image, on the same Docker engine (the runner
mounts its socket into every docker action), and exits with that container's code.

The sibling gets this container's mounts (`volumes_from`: the workspace, the runner's file-command
and workflow folders with GITHUB_OUTPUT, the job summary and the event file, the Docker socket),
its network, its working directory, and from the environment only what the command needs
(`sibling_env`): the action's inputs, the runner's GITHUB_* and RUNNER_* context, skill-be's own
settings, proxy and CA variables, and the key variables the config names in apiKeyEnv. Anything
else in the step's `env:` (another secret, the runner's tokens) stays here. The sibling does the
rest exactly as the full image did when it was the action's image: the outputs, the comment, the
check run.

Why not a composite action that picks one of two docker steps: the runner pulls every container
image a composite action names in "Set up job", before any step's `if:` is read
(actions/runner, ActionManager.PrepareActionsRecursiveAsync), so a verify job would pull both.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Callable, Iterable, Mapping
from types import FrameType
from typing import Any

from skill_be.errors import Interrupted, exit_code

FULL_COMMANDS = ("run", "triage", "regrade")
FULL_IMAGE_ENV = "SKILL_BE_FULL_IMAGE"  # set in the verify image (Dockerfile); absent in the full one
HANDED_OFF_ENV = "SKILL_BE_HANDED_OFF"  # set in the sibling: it never hands off again
LABEL = "skill-be.handoff"
ENTRYPOINT = ["/opt/skill-be/bin/python"]
COMMAND = ["-m", "skill_be.github"]

_PASS_PREFIXES = ("INPUT_", "GITHUB_", "RUNNER_", "SKILL_BE_")
_PASS = (
    "CI",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "DOCKER_HOST",
    "NO_COLOR",
)
_NEVER = ("GITHUB_TOKEN", "GH_TOKEN", FULL_IMAGE_ENV)


def wanted(command: str, env: Mapping[str, str]) -> str | None:
    """The full image to hand `command` to, or None to run it here."""
    if command not in FULL_COMMANDS or env.get(HANDED_OFF_ENV):
        return None
    return env.get(FULL_IMAGE_ENV) or None


def sibling_env(env: Mapping[str, str], key_names: Iterable[str]) -> dict[str, str]:
    """What the sibling gets from this environment: what the command needs, and no more."""
    keys = set(key_names)
    out = {
        k: v for k, v in env.items() if (k.startswith(_PASS_PREFIXES) or k in _PASS or k in keys) and k not in _NEVER
    }
    out[HANDED_OFF_ENV] = "1"
    return out


def _own_container(engine: Any) -> Any | None:
    from docker.errors import DockerException

    from skill_be.codetests.sandbox.image import own_container_ids

    for cid in own_container_ids():
        try:
            return engine.containers.get(cid)
        except DockerException:
            continue
    return None


def _ensure_image(engine: Any, image: str, say: Callable[[str], None]) -> None:
    from docker.errors import ImageNotFound

    try:
        engine.images.get(image)
        return
    except ImageNotFound:
        pass
    say(f"skill-be: pulling {image} (the agent CLIs) for this command")
    engine.images.pull(image)  # the SDK reads the tag or digest from the name (none: latest)


def _network(own: Any) -> str:
    mode = str(own.attrs.get("HostConfig", {}).get("NetworkMode") or "default")
    return "bridge" if mode == "default" else mode


def _stream(engine: Any, container: Any) -> None:
    """The sibling's output, passed through as it comes (the sibling redacts its own)."""
    for out, err in engine.api.attach(container.id, stdout=True, stderr=True, stream=True, logs=True, demux=True):
        if out:
            sys.stdout.buffer.write(out)
            sys.stdout.flush()
        if err:
            sys.stderr.buffer.write(err)
            sys.stderr.flush()


def _stop_on_sigterm() -> None:
    """`docker stop` of the action's container (a cancelled job): stop the sibling too (in `run`'s finally)."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        raise Interrupted(signum)

    signal.signal(signal.SIGTERM, handler)


def run(image: str, env: Mapping[str, str], key_names: Iterable[str], say: Callable[[str], None]) -> int:
    """Start the action again in a sibling container of `image`; its exit code. A Docker failure
    is one line and exit code 2."""
    from docker.errors import DockerException

    from skill_be import containers

    try:
        engine = containers.client(timeout=600)
    except DockerException as e:
        say(f"skill-be: this command needs the full image {image}, but no Docker engine answers: {containers.short(e)}")
        return 2
    own = _own_container(engine)
    if own is None:
        say(
            f"skill-be: this command needs the full image {image}, and the action could not find its own "
            "container on the Docker engine to start it beside; use the image directly "
            f"(uses: docker://{image})"
        )
        return 2
    sibling = None
    _stop_on_sigterm()
    try:
        _ensure_image(engine, image, say)
        sibling = engine.containers.create(
            image,
            entrypoint=ENTRYPOINT,
            command=COMMAND,
            environment=sibling_env(env, key_names),
            working_dir=str(own.attrs.get("Config", {}).get("WorkingDir") or "/github/workspace"),
            volumes_from=[own.id],
            network_mode=_network(own),
            labels={LABEL: own.id},
        )
        sibling.start()
        _stream(engine, sibling)
        return int(sibling.wait().get("StatusCode", 1))
    except DockerException as e:
        say(f"skill-be: could not run the command in the full image {image}: {containers.short(e)}")
        return 2
    except (Interrupted, KeyboardInterrupt) as e:
        return exit_code(e)
    finally:
        if sibling is not None:
            with contextlib.suppress(DockerException):
                sibling.remove(force=True)
