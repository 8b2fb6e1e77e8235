"""opencode keeps no snapshots in skill-be's runs: its undo history (a git repository of the workspace,
indexed at the start and after every step) is work skill-be never reads, since the run's diff comes
from the workspace it copies out. The real pinned binary, against the scripted agent model; the
control turns snapshots back on and shows the repository that the setting keeps away."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_harness import SKILL, git_workspace, run_agent, setup_for, skill

SNAPSHOTS = Path("data/opencode/snapshot")  # under the private home: where opencode keeps them


def _run(server: Any, tmp_path: Path, snapshots: bool | None) -> tuple[Any, Path, Path]:
    server.reset()
    server.agent(skill=SKILL, load="offered", write={"path": "out.txt", "content": "hello"},
                 command="echo ran > ran.txt", final="DONE")  # fmt: skip
    ws, home = git_workspace(tmp_path / "ws", {"README.md": "# team\n"}), tmp_path / "home"

    def tamper(argv: list[str], env: dict[str, str]) -> None:
        if snapshots is not None:  # the control: opencode's own setting back as it would be
            env["OPENCODE_CONFIG_CONTENT"] = json.dumps({**json.loads(env["OPENCODE_CONFIG_CONTENT"]),
                                                         "snapshot": snapshots})  # fmt: skip

    s = setup_for(server, "opencode", prompt="Greet the team in a file.", skills=[skill()])
    run = run_agent(server, "opencode", s, ws, home, timeout=90, tamper=tamper)
    assert run.transcript.error is None, (run.transcript.error, run.stderr[-1500:])
    return run, ws, home


def test_an_opencode_run_keeps_no_snapshot_and_still_loads_writes_and_runs(agent_server: Any, tmp_path: Path) -> None:
    run, ws, home = _run(agent_server, tmp_path, None)
    assert run.transcript.final_message == "DONE" and SKILL in run.transcript.skills_loaded
    assert (ws / "out.txt").read_text() == "hello" and (ws / "ran.txt").read_text() == "ran\n"
    assert not (home / SNAPSHOTS).exists()


def test_the_control_snapshots_on_leave_opencodes_repository_in_the_home(agent_server: Any, tmp_path: Path) -> None:
    _, _, home = _run(agent_server, tmp_path, True)
    assert any((home / SNAPSHOTS).rglob("HEAD"))
