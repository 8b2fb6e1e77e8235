"""The command line itself: help, version, option forms, usage errors, and what start-up imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skill_be import __version__


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILL_BE")}
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_help() -> None:
    for args in (("--help",), ("-h",)):
        done = cli(*args)
        assert (done.returncode, done.stderr) == (0, "")
        out = done.stdout
        assert out.startswith("Usage: skill-be <command> [options]\n")
        assert "\nCommands:\n" in out and "\n  verify " in out
        assert "--config <path>" in out and "default: ./skill-be.yaml" in out
        assert "--version" in out
        assert "Exit codes: 0 when every skill is READY" in out


def test_no_arguments_shows_the_help() -> None:
    done = cli()
    assert done.returncode == 0
    assert done.stdout.startswith("Usage: skill-be <command> [options]\n")


def test_command_help() -> None:
    done = cli("verify", "--help")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Usage: skill-be verify [options]\n")
    assert "Without a model call" in done.stdout
    assert "--config <path>" in done.stdout
    assert cli("--help", "verify").returncode == 0


def test_version() -> None:
    done = cli("--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"skill-be {__version__}\n", "")


@pytest.mark.parametrize(
    ("args", "message", "see"),
    [
        (("frobnicate",), 'skill-be: unknown command "frobnicate" (commands: ', "skill-be --help"),
        (("--frob",), 'skill-be: unknown option "--frob"', "skill-be --help"),
        (("verify", "--frob"), 'skill-be: unknown option "--frob"', "skill-be verify --help"),
        (("verify", "--frob=1"), 'skill-be: unknown option "--frob=1"', "skill-be verify --help"),
        (("verify", "money"), 'skill-be: unexpected argument "money"', "skill-be verify --help"),
        (("verify", "--config"), "skill-be: --config: expected one argument", "skill-be verify --help"),
        (
            ("verify", "--config="),
            "skill-be: --config: needs a path, such as --config ./skill-be.yaml",
            "skill-be verify --help",
        ),
        (("verify", "--conf", "x"), 'skill-be: unknown option "--conf"', "skill-be verify --help"),
        (("--config", "x.yaml"), "", ""),
    ],
)
def test_usage_errors(args: tuple[str, ...], message: str, see: str) -> None:
    done = cli(*args)
    assert done.returncode == 2
    if not message:  # options and no command: the help, and exit 2
        assert done.stdout.startswith("Usage: skill-be <command> [options]")
        return
    first, second, rest = done.stderr.split("\n", 2)
    assert first.startswith(message)
    usage = "skill-be verify [options]" if "verify" in see else "skill-be <command> [options]"
    assert second == f"Usage: {usage} (see {see})"
    assert rest == ""
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_config_option_before_or_after_the_command(tmp_path: Path) -> None:
    for args in (
        ("--config", "nope.yaml", "verify"),
        ("verify", "--config", "nope.yaml"),
        ("verify", "--config=nope.yaml"),
    ):
        done = cli(*args, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr == "nope.yaml: config file not found; create it (see the README) or pass --config <path>\n"


def test_the_console_script_is_the_same_program() -> None:
    import sysconfig

    exe = Path(sysconfig.get_path("scripts")) / "skill-be"
    done = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, f"skill-be {__version__}\n")


HEAVY = ("httpx", "jinja2", "docker", "pydantic", "asyncio")


def _imports_after(argv: list[str], cwd: Path) -> list[str]:
    code = (
        "import json, sys\n"
        "from skill_be.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60)
    return list(json.loads(done.stderr.strip().splitlines()[-1]))


def test_help_and_verify_import_nothing_heavy(tmp_path: Path) -> None:
    """`--help` and `verify` must start fast: no HTTP, template, Docker, pydantic or asyncio machinery."""
    project = tmp_path / "p"
    (project / "skills" / "money").mkdir(parents=True)
    (project / "evals").mkdir()
    (project / "skills" / "money" / "SKILL.md").write_text("# money\n")
    (project / "evals" / "money.json").write_text('{"scenarios": [{"id": "a", "prompt": "p", "criteria": ["c"]}]}')
    (project / "skill-be.yaml").write_text(
        "skills: ./skills\nevals: ./evals\nmodel: {adapter: command, id: m, run: ./m.sh}\n"
        "grader: {adapter: command, id: g, run: ./g.sh}\nchecks:\n  typecheck: false\n"
    )
    for argv in (["--help"], ["verify", "--help"], ["verify"]):
        loaded = _imports_after(argv, project)
        assert "yaml" in loaded or argv != ["verify"]  # the check can see what verify loads
        assert [m for m in HEAVY if m in loaded] == [], argv


def test_help_does_not_read_yaml(tmp_path: Path) -> None:
    assert "yaml" not in _imports_after(["--help"], tmp_path)
