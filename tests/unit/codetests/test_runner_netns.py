"""The process runner as root: the runner's launcher starts in a network namespace of its own."""

from __future__ import annotations

import os
import subprocess

from skill_be.codetests.sandbox import separate


def netns(preexec: object = None) -> str:
    done = subprocess.run(
        ["readlink", "/proc/self/ns/net"], preexec_fn=preexec, capture_output=True, text=True, check=True
    )  # type: ignore[arg-type]
    return done.stdout.strip()


def test_the_runner_s_launcher_gets_a_network_namespace_of_its_own_and_the_runner_s_uid() -> None:
    assert os.geteuid() == 0, "the runner's namespace is made as root; run the tests as root, as CI does"
    assert separate.can_own_network()
    assert netns(separate.become_runner(None, True)) != netns()
    done = subprocess.run(["id", "-u"], preexec_fn=separate.become_runner(65534, True), capture_output=True, text=True)
    assert done.stdout.strip() == "65534"


def test_control_without_it_the_runner_shares_skill_be_s_network() -> None:
    assert netns(separate.become_runner(None, False)) == netns()
