"""action.yml and the workflows, validated offline with GitHub's schemas, actionlint and zizmor; the
action's inputs and outputs are the ones its code reads and writes."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from tests.support.manual import manual

import skill_be
from skill_be.github import inputs as action_inputs

ROOT = Path(__file__).resolve().parents[3]
WORKFLOWS = [
    *sorted((ROOT / ".github" / "workflows").glob("*.yml")),
    *sorted((ROOT / "examples" / "workflows").glob("*.yml")),
]


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is not installed: pip install -e '.[dev]'"
    return path


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def test_action_yml_matches_githubs_schema() -> None:
    r = _run(_tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", "action.yml")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_matches_githubs_schema(workflow: Path) -> None:
    r = _run(_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(workflow))
    assert r.returncode == 0, r.stdout + r.stderr


def test_actionlint_finds_nothing() -> None:
    r = _run(_tool("actionlint"), *map(str, WORKFLOWS))
    assert r.returncode == 0, r.stdout + r.stderr


def test_zizmor_finds_nothing_even_as_an_auditor() -> None:
    # The auditor persona reports everything, low-confidence findings too; .github/zizmor.yml says
    # why third-party actions are pinned by tag, and action.yml why its image is.
    r = _run(
        _tool("zizmor"),
        "--offline",
        "--config",
        ".github/zizmor.yml",
        "--persona",
        "auditor",
        "--format",
        "plain",
        ".github/workflows",
        *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "examples" / "workflows").glob("*.yml"))),
        "action.yml",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No findings to report" in r.stdout + r.stderr


def test_action_yml_uses_this_versions_image_and_the_python_entrypoint() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    runs = action["runs"]
    assert runs["using"] == "docker"
    assert runs["image"] == f"docker://ghcr.io/ngwes/skill-be-verify:{skill_be.__version__}"
    assert [runs["entrypoint"], *runs["args"]] == ["/opt/skill-be/bin/python", "-m", "skill_be.github"]


def test_every_input_is_read_and_every_output_written() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert list(action["inputs"])[:4] == ["command", "args", "working-directory", "version"]  # the reference's
    source = Path(action_inputs.__file__).read_text(encoding="utf-8")
    read = set(re.findall(r'_(?:input|flag|choice)\(env, "([a-z-]+)"', source))
    assert read == set(action["inputs"])
    code = (ROOT / "src" / "skill_be" / "github" / "action.py").read_text(encoding="utf-8")
    written = set(re.findall(r'^\s+"([a-z-]+)": ', code[code.index("def outputs(") :], re.MULTILINE))
    assert set(action["outputs"]) <= written


def test_the_manual_documents_every_input_and_output() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    section = manual()
    for name in [*action["inputs"], *action["outputs"]]:
        assert f"| `{name}` |" in section, name


def test_every_command_the_action_accepts_is_documented() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    row = next(line for line in manual().splitlines() if line.startswith("| `command` | `verify` |"))
    for command in action_inputs.COMMANDS:
        assert re.search(rf"\b{command}\b", action["inputs"]["command"]["description"]), command
        assert f"`{command}`" in row, command


def test_the_manuals_matrix_workflow_is_valid(tmp_path: Path) -> None:
    text = manual().split("A GitHub Actions workflow with four shard jobs and a merge job:", 1)[1]
    text = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    merge = yaml.safe_load(text)["jobs"]["merge"]
    (step,) = [s for s in merge["steps"] if str(s.get("uses", "")).startswith("ngwes/skill-be@")]
    assert step["with"]["command"] == "merge"
    workflow = tmp_path / "matrix.yml"
    workflow.write_text(text, encoding="utf-8")
    r = _run(_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(workflow))
    assert r.returncode == 0, r.stdout + r.stderr
    r = _run(_tool("actionlint"), str(workflow))
    assert r.returncode == 0, r.stdout + r.stderr
