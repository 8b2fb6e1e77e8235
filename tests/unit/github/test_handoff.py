"""The hand-off from the verify image to the full one: which commands go, and what of the environment
the sibling container gets (what the command needs, and no other secret)."""

from __future__ import annotations

from typing import Any

from skill_be.github import handoff

STEP_ENV = {
    "INPUT_COMMAND": "run",
    "INPUT_GITHUB-TOKEN": "ghs_token_for_the_comment",
    "GITHUB_EVENT_PATH": "/github/workflow/event.json",
    "GITHUB_OUTPUT": "/github/file_commands/set_output",
    "RUNNER_TEMP": "/home/runner/work/_temp",
    "CI": "true",
    "SKILL_BE_GITHUB_TIMEOUT": "5",
    "ANTHROPIC_API_KEY": "sk-ant-the-config-names-this",
    "DEPLOY_KEY": "a-secret-the-command-never-needs",
    "ACTIONS_RUNTIME_TOKEN": "runner-token",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-token",
    "GITHUB_TOKEN": "ghs_exported_by_the_user",
    "PATH": "/opt/skill-be/bin:/usr/bin",
    "HOME": "/github/home",
    "SKILL_BE_FULL_IMAGE": "ghcr.io/ngwes/skill-be:1.0.0",
}


def test_only_run_triage_and_regrade_go_to_the_full_image() -> None:
    env = {"SKILL_BE_FULL_IMAGE": "ghcr.io/ngwes/skill-be:1.0.0"}
    assert [
        c for c in ("verify", "check", "merge", "publish", "run", "triage", "regrade") if handoff.wanted(c, env)
    ] == [
        "run",
        "triage",
        "regrade",
    ]


def test_the_full_image_itself_and_the_sibling_never_hand_off() -> None:
    assert handoff.wanted("run", {}) is None  # the full image has no SKILL_BE_FULL_IMAGE
    assert handoff.wanted("run", {"SKILL_BE_FULL_IMAGE": "x:1", "SKILL_BE_HANDED_OFF": "1"}) is None


def test_the_sibling_gets_what_the_command_needs_and_no_other_secret() -> None:
    got = handoff.sibling_env(STEP_ENV, ["ANTHROPIC_API_KEY"])
    assert got["ANTHROPIC_API_KEY"] == "sk-ant-the-config-names-this"  # the config's apiKeyEnv
    assert got["INPUT_GITHUB-TOKEN"] == "ghs_token_for_the_comment"  # the comment and the check run
    assert {
        "INPUT_COMMAND",
        "GITHUB_EVENT_PATH",
        "GITHUB_OUTPUT",
        "RUNNER_TEMP",
        "CI",
        "SKILL_BE_GITHUB_TIMEOUT",
    } <= set(got)
    assert got["SKILL_BE_HANDED_OFF"] == "1"
    for name in ("DEPLOY_KEY", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GITHUB_TOKEN"):
        assert name not in got, name
    # The full image's own PATH (with the agent CLIs) and HOME stay; it never hands off again.
    assert "PATH" not in got and "HOME" not in got and "SKILL_BE_FULL_IMAGE" not in got
    for secret in ("a-secret-the-command-never-needs", "runner-token", "oidc-token", "ghs_exported_by_the_user"):
        assert secret not in got.values()


def test_a_key_the_config_does_not_name_stays_behind() -> None:
    # Control for the test above: the same key, not named by the config, does not go.
    assert "ANTHROPIC_API_KEY" not in handoff.sibling_env(STEP_ENV, [])


def test_outside_a_container_of_the_engine_it_says_so_in_one_line(monkeypatch: Any, capsys: Any) -> None:
    from skill_be import containers

    class Engine:
        def close(self) -> None:
            pass

    monkeypatch.setattr(containers, "client", lambda **_: Engine())
    monkeypatch.setattr(handoff, "_own_container", lambda _engine: None)
    lines: list[str] = []
    code = handoff.run("ghcr.io/ngwes/skill-be:1.0.0", STEP_ENV, [], lines.append)
    assert code == 2
    (line,) = lines
    assert line.startswith("skill-be: this command needs the full image ghcr.io/ngwes/skill-be:1.0.0")
    assert "uses: docker://ghcr.io/ngwes/skill-be:1.0.0" in line


def test_an_engine_that_does_not_answer_is_one_line(monkeypatch: Any) -> None:
    from docker.errors import DockerException

    from skill_be import containers

    def no_engine(**_: Any) -> Any:
        raise DockerException("Error while fetching server API version")

    monkeypatch.setattr(containers, "client", no_engine)
    lines: list[str] = []
    assert handoff.run("x/y:1", STEP_ENV, [], lines.append) == 2
    assert lines == [
        "skill-be: this command needs the full image x/y:1, but no Docker engine answers: "
        "Error while fetching server API version"
    ]


def test_the_full_image_is_pulled_only_when_the_engine_lacks_it() -> None:
    from docker.errors import ImageNotFound

    class Images:
        def __init__(self, have: set[str]) -> None:
            self.have = have
            self.pulled: list[str] = []

        def get(self, name: str) -> str:
            if name not in self.have:
                raise ImageNotFound(name)
            return name

        def pull(self, name: str) -> None:
            self.pulled.append(name)

    class Engine:
        def __init__(self, have: set[str]) -> None:
            self.images = Images(have)

    image = "ghcr.io/ngwes/skill-be:1.0.0"
    said: list[str] = []
    present = Engine({image})
    handoff._ensure_image(present, image, said.append)
    assert present.images.pulled == [] and said == []
    missing = Engine(set())  # control: the runner has only the verify image
    handoff._ensure_image(missing, image, said.append)
    assert missing.images.pulled == [image]
    assert said == [f"skill-be: pulling {image} (the agent CLIs) for this command"]
