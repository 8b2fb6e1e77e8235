"""What the two images hold, and what they must not: the lint of the Dockerfile, labels, no USER or
WORKDIR, the pinned CLIs, skill-be's TypeScript without a download, and no trace of the CA
certificates the build was given."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.e2e.image.conftest import REPO, SANDBOX, Run, docker, example

from skill_be import __version__
from skill_be.checks.typescript import PINNED_VERSION


def test_hadolint_passes_on_the_dockerfile() -> None:
    done = subprocess.run(["hadolint", "Dockerfile"], cwd=REPO, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_every_ignored_hadolint_rule_says_why() -> None:
    lines = (REPO / "Dockerfile").read_text(encoding="utf-8").splitlines()
    ignores = [i for i, line in enumerate(lines) if line.startswith("# hadolint ignore=")]
    assert ignores
    for i in ignores:
        rules = lines[i].split("=", 1)[1].split(",")
        for rule in rules:
            assert rule in WHY, f"Dockerfile:{i + 1}: {rule} is ignored, and WHY in this test does not say why"
            assert f"{rule} (" in "\n".join(lines[:20]), f"the Dockerfile's header does not say why {rule} is ignored"


# Why each ignored rule does not apply (the Dockerfile's header says the same).
WHY = {
    "DL3008": "apt versions are not pinned: bookworm's point releases replace them on the mirror, and a pin breaks the build",
}


def inspect(image: str) -> dict[str, object]:
    data: list[dict[str, object]] = json.loads(docker("image", "inspect", image, check=True).stdout)
    return data[0]


def test_the_skill_be_image_has_labels_an_entrypoint_and_no_user_or_workdir(image: str) -> None:
    config = inspect(image)["Config"]
    assert isinstance(config, dict)
    assert config["User"] == ""
    assert config["WorkingDir"] == ""
    assert config["Entrypoint"] == ["/usr/local/bin/skill-be-entrypoint"]
    labels = config["Labels"]
    assert labels["org.opencontainers.image.source"] == "https://github.com/ngwes/skill-be"
    assert labels["org.opencontainers.image.version"] == __version__
    assert labels["org.opencontainers.image.description"]


def test_the_dockerfile_s_default_version_is_skill_be_s() -> None:
    # A plain `docker build .` (without CI's --build-arg) labels the image with the right version.
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert set(re.findall(r"ARG SKILL_BE_VERSION=(\S+)", text)) == {__version__}
    assert re.findall(r"ARG TYPESCRIPT_VERSION=(\S+)", text) == [PINNED_VERSION]


def test_the_sandbox_image_has_node_22_and_runs_as_nobody(image: str) -> None:
    config = inspect(SANDBOX)["Config"]
    assert isinstance(config, dict)
    assert config["User"] == "65534:65534"
    done = docker("run", "--rm", "--network", "none", "--read-only", SANDBOX, "node", "--version", check=True)
    assert done.stdout.startswith("v22.")


def test_no_argument_prints_the_help(image: str) -> None:
    done = docker("run", "--rm", "--network", "none", image)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: skill-be <command> [options]")


def pins() -> dict[str, str]:
    out = {}
    for line in (REPO / ".ci" / "agent-clis.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith(("#", "--")):
            name, version = line.rsplit("@", 1)
            out[name] = version
    return out


def test_each_agent_cli_runs_at_its_pinned_version(image: str) -> None:
    versions = pins()
    exe = {
        "@anthropic-ai/claude-code": "claude",
        "@mariozechner/pi-coding-agent": "pi",
        "opencode-ai": "opencode",
        "@openai/codex": "codex",
        "@google/gemini-cli": "gemini",
        "@github/copilot": "copilot",
    }
    assert set(versions) == set(exe)
    for package, command in exe.items():
        done = docker("run", "--rm", "--network", "none", "--entrypoint", command, image, "--version", timeout=120)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        assert versions[package] in done.stdout + done.stderr, f"{command}: {done.stdout} {done.stderr}"


def test_node_22_git_and_python_are_there(image: str) -> None:
    script = "node --version; npm --version; git --version; python3 --version"
    done = docker("run", "--rm", "--network", "none", "--entrypoint", "sh", image, "-c", script, check=True)
    node, _npm, git, python = done.stdout.splitlines()
    assert node.startswith("v22.")
    assert git.startswith("git version")
    assert python.startswith("Python 3.11")


def test_check_finds_skill_be_s_typescript_without_a_download(image: str, tmp_path: Path) -> None:
    root = example(tmp_path, "durations")
    done = Run(mount=root)(image, "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "installing TypeScript" not in done.stderr
    assert done.stdout.rstrip().endswith("Result: pass")


def extra_certificates() -> list[str]:
    """The base64 body of each CA certificate CI passes in as EXTRA_CA_CERTS."""
    bodies = []
    for crt in sorted(Path("/usr/local/share/ca-certificates").glob("*.crt")):
        for block in re.findall(r"-----BEGIN CERTIFICATE-----(.*?)-----END", crt.read_text(encoding="utf-8"), re.S):
            bodies.append("".join(block.split())[:120])
    return bodies


def test_the_build_s_ca_certificates_are_in_no_layer_and_no_history(image: str) -> None:
    bodies = extra_certificates()  # CI passes this machine's extra CA certificates, when it has any
    for name in (image, SANDBOX):
        history = docker("history", "--no-trunc", "--format", "{{.CreatedBy}}", name, check=True).stdout
        assert "BEGIN CERTIFICATE" not in history
        assert "EXTRA_CA_CERTS" not in history
    # The image's CA bundle is Debian's: none of the extra certificates was left in it.
    bundle = docker("run", "--rm", "--network", "none", "--entrypoint", "sh", image, "-c",
                    "cat /etc/ssl/certs/ca-certificates.crt; ls /usr/local/share/ca-certificates", check=True).stdout  # fmt: skip
    flat = "".join(bundle.split())
    assert [b[:40] for b in bodies if b in flat] == []
    assert "skill-be-build-extra" not in bundle


COPILOT_CACHE = "/opt/agent-clis/copilot-cache"
COPILOT_START = 'HOME=/tmp/h COPILOT_OFFLINE=true XDG_CACHE_HOME="$1" copilot --version && du -sm "$1"'


def test_copilot_starts_from_the_image_s_unpacked_cache_read_only_and_ships_its_licence(image: str) -> None:
    # As the agent container runs it: not root, a read-only root. The cache was unpacked at build
    # time, so nothing is written (a write would fail) and the start unpacks nothing.
    argv = ["run", "--rm", "--network", "none", "--read-only", "--tmpfs", "/tmp", "--user", "65534:65534",
            "--entrypoint", "sh", image, "-c"]  # fmt: skip
    done = docker(*argv, COPILOT_START, "sh", COPILOT_CACHE, timeout=120)
    assert done.returncode == 0, done.stderr
    assert pins()["@github/copilot"] in done.stdout
    # The control: with an empty cache of its own it unpacks its package again, some 235 MB.
    done = docker(*argv, COPILOT_START, "sh", "/tmp/cache", timeout=180)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-2]) > 150, done.stdout
    # Its licence (which allows redistributing unmodified copies with its licence file) is there.
    licence = docker("run", "--rm", "--network", "none", "--entrypoint", "cat", image,
                     "/opt/agent-clis/lib/node_modules/@github/copilot/LICENSE.md", check=True).stdout  # fmt: skip
    assert licence.startswith("GitHub Copilot CLI License") and "include a copy of this License" in licence
