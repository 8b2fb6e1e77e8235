"""The peers' converters (project/peer_skillgrade.py, project/peer_skilllens.py) item by item: what maps
where, and the one warning line for each item that has no equivalent. The output of each is a valid
skill-be eval file (the eval model accepts it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skill_be.errors import ConfigError
from skill_be.project import peer_skillgrade, peer_skilllens
from skill_be.project.models import EvalFileModel
from skill_be.project.peer_skillgrade import rubric_lines


def skillgrade(tmp_path: Path, yaml: str, files: dict[str, str | bytes] | None = None) -> Any:
    skill = tmp_path / "skills" / "lint"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint\ndescription: d\n---\n")
    for rel, data in (files or {}).items():
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_bytes(data if isinstance(data, bytes) else data.encode())
    (skill / "eval.yaml").write_text(yaml)
    out = tmp_path / "evals"
    c = peer_skillgrade.convert(skill / "eval.yaml", out)
    EvalFileModel.model_validate(json.loads(json.dumps(c.data)))  # always a valid eval file
    return c


TASK = "tasks:\n  - name: Fix It!\n    instruction: do it\n"


def test_workspace_entries_go_where_they_belong(tmp_path: Path) -> None:
    c = skillgrade(
        tmp_path,
        TASK + "    workspace:\n"
        "      - fixtures/a.js\n"
        "      - {src: fixtures/a.js, dest: src/app.js}\n"
        "      - {content: 'x = 1', dest: /workspace/conf.py}\n"
        "      - {src: fixtures, dest: .}\n"
        "      - {src: data/blob.bin, dest: blob.bin}\n"
        "      - {src: data/blob.bin, dest: deep/blob.bin}\n"
        "      - {src: bin/tool, dest: /opt/tool, chmod: '755'}\n"
        "    graders: [{type: llm_rubric, rubric: Good}]\n",
        {"fixtures/a.js": "var a;\n", "data/blob.bin": b"\x00\xff", "bin/tool": "#!/bin/sh\n"},
    )
    (sc,) = c.data["scenarios"]
    assert sc["id"] == "fix-it"
    assert sc["workspace"]["files"] == {"a.js": "var a;\n", "src/app.js": "var a;\n", "conf.py": "x = 1"}
    assert sc["workspace"]["from"] == ["../skills/lint/fixtures", "../skills/lint/data/blob.bin"]
    assert sc["environment"]["files"] == [{"src": "../skills/lint/bin/tool", "dest": "/opt/tool", "mode": "755"}]
    (note,) = c.notes
    assert 'tasks[0].workspace[5]: "deep/blob.bin": no equivalent' in note


def test_setups_join_the_image_and_a_task_docker_wins_over_the_defaults(tmp_path: Path) -> None:
    c = skillgrade(
        tmp_path,
        "defaults:\n  docker: {base: python:3.12, setup: apt-get install -y jq}\n"
        "tasks:\n  - name: a\n    instruction: x\n    graders: [{type: deterministic, run: 'true', setup: npm install ts-node}]\n"
        "  - name: b\n    instruction: y\n    docker: {setup: pip install pytest}\n    graders: [{type: deterministic, run: pytest}]\n",
    )
    a, b = c.data["scenarios"]
    assert a["environment"]["setup"] == ["apt-get install -y jq", "npm install ts-node"]
    assert b["environment"]["setup"] == ["pip install pytest"]
    assert any("defaults.docker.base: skill-be builds on its own image" in n and "python:3.12" in n for n in c.notes)
    assert any("graders[0].setup: setup runs in environment.setup" in n and "npm install -g" in n for n in c.notes)


def test_graders_become_checks_with_their_files_and_criteria_per_bullet(tmp_path: Path) -> None:
    c = skillgrade(
        tmp_path,
        TASK + "    graders:\n"
        "      - {type: deterministic, run: bash graders/check.sh --strict}\n"
        "      - {type: deterministic, run: graders/other.sh}\n"
        "      - {type: llm_rubric, rubric: rubrics/quality.md, model: x}\n"
        "      - {type: tool_usage, expectedTools: [{name: shell}]}\n"
        "      - {type: magic}\n",
        {
            "graders/check.sh": "echo ok\n",
            "graders/other.sh": "echo two\n",
            "rubrics/quality.md": "1. Clear\n2) Short\n",
        },
    )
    (sc,) = c.data["scenarios"]
    assert sc["checks"] == [
        {"name": "grader 1", "run": "bash $CHECKS/graders/check.sh --strict"},
        {"name": "grader 2", "run": "bash $CHECKS/other.sh"},
    ]
    assert sc["checkFiles"] == ["../skills/lint/graders", "../skills/lint/graders/other.sh"]
    assert sc["criteria"] == ["Clear", "Short"]  # the rubric file was read
    assert sc["expect"] == {"tools": {"called": ["shell"]}}
    words = "\n".join(c.notes)
    assert 'grader type "magic": no equivalent' in words and "graders[2].model: no equivalent" in words
    assert "expect.tools.called takes skill-be's tool names" in words


def test_a_task_without_a_line_runs_for_review(tmp_path: Path) -> None:
    c = skillgrade(tmp_path, TASK + "    graders: [{type: magic}]\n")
    (sc,) = c.data["scenarios"]
    assert sc["graded"] is False
    assert any("no grader converts to a line" in n for n in c.notes)


@pytest.mark.parametrize(
    ("yaml", "expected"),
    [
        ("- a\n", 'eval.yaml:1:1: must be a mapping with "tasks"'),
        ("tasks: []\n", "eval.yaml:1:8: tasks: must be a non-empty list of tasks"),
        ("tasks:\n  - name: a\n", 'eval.yaml:2:5: tasks[0]: needs "instruction"'),
        ("skill: ../nowhere\ntasks:\n  - {name: a, instruction: b}\n", 'skill: "../nowhere" is not a skill folder'),
        (
            "tasks:\n  - {name: a, instruction: b, workspace: [{src: x}]}\n",
            'tasks[0].workspace[0]: needs "dest", the dest path',
        ),
    ],
)
def test_malformed_files_are_one_line_with_their_place(tmp_path: Path, yaml: str, expected: str) -> None:
    with pytest.raises(ConfigError) as e:
        skillgrade(tmp_path, yaml)
    assert expected in str(e.value) and len(str(e.value).splitlines()) == 1, str(e.value)


def test_rubric_lines() -> None:
    assert rubric_lines("Score it:\n- One\n  * Two\n• Three\n") == ["One", "Two", "Three"]
    assert rubric_lines("Is it   clear\nand short?") == ["Is it clear and short?"]


def skilllens(tmp_path: Path, yaml: str) -> Any:
    (tmp_path / "evals").mkdir(exist_ok=True)
    (tmp_path / "SKILL.md").write_text("---\nname: r\ndescription: d\n---\n")
    path = tmp_path / "evals" / "cases.yaml"
    path.write_text(yaml)
    c = peer_skilllens.convert(path, tmp_path / "out")
    EvalFileModel.model_validate(json.loads(json.dumps(c.data)))
    return c


def test_skill_lens_cases_one_shot_and_agent(tmp_path: Path) -> None:
    c = skilllens(
        tmp_path,
        "tool_libraries: [lib.yaml]\ncases:\n"
        "  - {name: a, task: t, assertions: [{kind: equals, value: x}, {kind: json-schema, schema: {type: object}}]}\n"
        "  - {name: b, task: t, mode: offered, trajectory: {order: [x, y], call_args: {}}}\n"
        "  - {name: c, task: t}\n"
        "  - {name: d, task: t, assertions: [{kind: similar, value: x}, {kind: contains, value: y}],"
        " budget: {max_cost_usd: 0.5, tokens: 3}}\n"
        "  - {name: e, task: t, budget: {max_tokens: 9}}\n",
    )
    assert c.skill_dir == tmp_path  # an evals/ folder beside SKILL.md
    a, b, cc, d, e = c.data["scenarios"]
    assert "mode" not in a and [x["type"] for x in a["assertions"]] == ["equals", "json-schema"]
    assert b["mode"] == "agent" and b["expect"] == {"tools": {"order": ["x", "y"]}}
    assert cc["graded"] is False
    assert d["budget"] == {"maxCostUsd": 0.5}
    assert e["graded"] is False and "budget" not in e
    words = "\n".join(c.notes)
    for part in ("tool_libraries: no equivalent", "trajectory.call_args: no equivalent",
                 'assertion kind "similar"', '"tokens" is not a key of a budget', "declares no scoring",
                 "a budget alone is not converted"):  # fmt: skip
        assert part in words, part
