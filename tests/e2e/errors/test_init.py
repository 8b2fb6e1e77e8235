"""`skill-be init` (issue 20): a commented config and an eval template that refuses to run until
filled; `--draft` asks the model with the description only, never the body of SKILL.md."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml
from tests.e2e.run.helpers import run, write

from skill_be.project.config import load_config

SECRET = "ALWAYS-USE-ALLOCATE-7f3a"  # in the body only: the draft prompt must never carry it
SKILL = f"---\nname: money\ndescription: Splitting amounts of money in cents.\n---\n# Money\n\n{SECRET}\n"

# A drafting model: records its prompt, replies with an eval file in a sentence of prose.
DRAFTER = """
import json, sys
p = sys.stdin.read()
open("draft-prompt.txt", "w").write(p)
doc = {"scenarios": [{"id": "split-bill", "prompt": "Split 100 cents three ways.", "critical": True,
        "criteria": ["The shares add up to 100"]}], "triggers": ["split this bill", "divide money"]}
print("Here you go:\\n" + json.dumps(doc))
"""


def skill(root: Path, text: str = SKILL) -> Path:
    write(root / "skills" / "money" / "SKILL.md", text)
    return root


def test_init_writes_a_commented_config_and_a_template_that_refuses_to_run(tmp_path: Path) -> None:
    root = skill(tmp_path)
    done = run(root, "init", "skills/money")
    assert done.code == 0, done.stderr
    text = (root / "skill-be.yaml").read_text()
    data = yaml.safe_load(text)
    for line in text.splitlines():  # a comment on every key
        if line.strip() and not line.lstrip().startswith("#"):
            assert "#" in line or line.rstrip().endswith(":"), line
    assert data["gate"]["rule"] == "evidence" and data["grader"]["template"] == "generic"  # no code block
    config = load_config(root / "skill-be.yaml")
    assert config.gate.rule == "evidence" and config.grader_template == "generic"
    eval_doc = json.loads((root / "evals" / "money.json").read_text())
    assert "TODO(skill-be init)" in eval_doc["scenarios"][0]["prompt"]
    for command in ("run", "verify", "check"):
        refused = run(root, command)
        assert refused.code == 2, command
        assert (
            refused.stderr.strip()
            .splitlines()[-1]
            .startswith(
                'evals/money.json:7:17: scenario "first-task": prompt is still the placeholder of skill-be init'
            )
        )
    # filled in: it runs once the key is set (the dry run calls nothing; a real run is
    # tests/e2e/run/test_fake.py's, against a scripted server)
    eval_doc["scenarios"][0].update(prompt="Split a bill.", criteria=["Uses allocate"])
    (root / "evals" / "money.json").write_text(json.dumps(eval_doc))
    assert run(root, "run", "--dry-run", env={"ANTHROPIC_API_KEY": "sk-test"}).code == 0
    assert run(root, "run", "--dry-run", env={"ANTHROPIC_API_KEY": ""}).code == 2  # the control: no key


def test_init_never_overwrites(tmp_path: Path) -> None:
    root = skill(tmp_path)
    write(root / "skill-be.yaml", "# mine\n")
    write(root / "evals" / "money.json", "{}")
    done = run(root, "init")  # every skill under ./skills
    assert (root / "skill-be.yaml").read_text() == "# mine\n"
    assert (root / "evals" / "money.json").read_text() == "{}"
    assert done.code == 2  # an empty config is still the user's mistake, named
    assert "skill-be.yaml: is empty" in done.stderr


def test_a_folder_without_a_skill_md_is_one_line(tmp_path: Path) -> None:
    done = run(tmp_path, "init", "nowhere")
    assert (done.code, done.stderr) == (
        2,
        "nowhere: does not exist; name a skill folder, the one that holds its SKILL.md\n",
    )
    assert not (tmp_path / "skill-be.yaml").exists()


def test_draft_sees_the_description_and_never_the_body(tmp_path: Path) -> None:
    root = skill(tmp_path)
    write(root / "drafter.py", DRAFTER)
    write(
        root / "skill-be.yaml",
        f"skills: ./skills\nevals: ./evals\nmodel:\n  adapter: command\n  id: drafter\n  run: {sys.executable} drafter.py\n"
        f"grader:\n  adapter: command\n  id: g\n  run: {sys.executable} drafter.py\n",
    )
    done = run(root, "init", "--draft")
    assert done.code == 0, done.stderr
    prompt = (root / "draft-prompt.txt").read_text()
    assert "Splitting amounts of money in cents." in prompt and SECRET not in prompt and "# Money" not in prompt
    doc = json.loads((root / "evals" / "money.json").read_text())
    assert doc["scenarios"] == [
        {
            "id": "split-bill",
            "prompt": "Split 100 cents three ways.",
            "critical": True,
            "criteria": ["The shares add up to 100"],
        }
    ]
    assert "split this bill | divide money" in doc["$comment"] and "never its body" in doc["$comment"]


def test_a_failed_draft_writes_the_template_with_a_warning(tmp_path: Path) -> None:
    root = skill(tmp_path)
    write(root / "broken.py", "import sys\nsys.stdin.read()\nprint('no json here')\n")
    write(
        root / "skill-be.yaml",
        f"skills: ./skills\nevals: ./evals\nmodel:\n  adapter: command\n  id: d\n  run: {sys.executable} broken.py\n"
        f"grader:\n  adapter: command\n  id: g\n  run: {sys.executable} broken.py\n",
    )
    done = run(root, "init", "--draft")
    assert done.code == 0
    assert (
        "warning: money: the draft failed (the reply holds no JSON object); wrote the template instead" in done.stderr
    )
    assert "TODO(skill-be init)" in (root / "evals" / "money.json").read_text()
