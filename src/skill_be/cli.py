"""The command line: parse arguments, call one command function, map errors to exit codes."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from skill_be import __version__
from skill_be.errors import USAGE_EXIT, ConfigError, Interrupted, SkillBeError, UsageError, exit_code
from skill_be.paths import CONFIG_NAME

USAGE = "skill-be <command> [options]"
DESCRIPTION = "Benchmarks Agent Skills: baseline versus with-skill, LLM-graded, code-tested and gated."
EPILOG = (
    "Exit codes: 0 when every skill is READY and every blocking check passes, 1 when anything\n"
    "blocks, 2 for a usage or config error, 3 when a skill could not be measured (ERROR: a model,\n"
    "the grader or the sandbox failed), 130 on SIGINT, 143 on SIGTERM.\n"
    'Options take "--name value" or "--name=value". "skill-be <command> --help" shows a command\'s options.'
)


class Command(NamedTuple):
    name: str
    usage: str
    summary: str
    add_options: Callable[[argparse.ArgumentParser], None]
    module: str  # imported only when the command runs: `skill-be --help` stays fast


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n <= 0:
        raise argparse.ArgumentTypeError(f'must be a positive integer, not "{text}"')
    return n


def _run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("skills", nargs="*", metavar="skill", help="the skills to run (default: every skill)")
    p.add_argument("--reps", type=_positive, metavar="<n>", help="generations per arm per scenario, for this run")
    p.add_argument("--concurrency", type=_positive, metavar="<n>", help="model calls in flight at once, for this run")
    p.add_argument("--keep-deps", action="store_true", help="keep the installed test packages in .skill-be/deps")
    p.add_argument("--html", action="store_true", help="also write results.html beside summary.json, with every answer")
    p.add_argument("--top-up", action="store_true", help="evidence rule: more reps where inconclusive (gate.topUpReps)")
    p.add_argument("--cache", action="store_true", help="answer from the response cache where it holds the call")
    p.add_argument("--no-cache", action="store_true", help="call every model, store nothing (wins over --cache)")
    p.add_argument("--junit", metavar="<file>", help="also write JUnit XML there: a test suite per skill")
    p.add_argument("--dry-run", action="store_true", help="check, then print the calls, tokens and cost; call nothing")
    p.add_argument(
        "--fake",
        action="store_true",
        help="canned answers and gradings (adapter fake): the whole pipeline, no key, no cost, nothing recorded",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        metavar="auto|always|never",
        help="the summary's colour: auto (a terminal without NO_COLOR), always (also a summary in a pipe), never",
    )
    p.add_argument("--shard", metavar="<k/n>", help="run the k-th of n parts of the work; skill-be merge joins them")
    p.add_argument(
        "--against",
        metavar="<ref>",
        help="add the previous arm: each skill as it was at this git commit (compare.against)",
    )
    p.add_argument(
        "--base", metavar="<ref>", help="then compare the result file with the one at the merge base with <ref>"
    )
    p.add_argument(
        "--validate",
        action="store_true",
        help="first grade the reference answers (check --graders); stop if one disagrees",
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="send each model's generations, then its gradings, as one provider batch at the batch price (batch: true)",
    )
    p.add_argument(
        "--resume",
        metavar="<run folder>",
        help="go on with an interrupted run --batch: its submitted batches are fetched, not paid for again",
    )
    _comment_option(p)


def _verify_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--base",
        metavar="<ref>",
        help="also compare the recorded scores with the result file at the merge base with <ref> (no model call)",
    )
    _comment_option(p)


def _comment_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--comment", metavar="<file>", help="also write there the pull request comment the action would post"
    )


def _triggers_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "skills", nargs="*", metavar="skill", help="the skills to compare (default: every skill with triggers)"
    )
    p.add_argument("--description", metavar="<text>", help="the proposed description, to compare with the current one")
    p.add_argument("--description-file", metavar="<file>", help="read the proposed description from a file")
    p.add_argument("--reps", type=_positive, metavar="<n>", help="calls per query and model, for this comparison")
    p.add_argument("--concurrency", type=_positive, metavar="<n>", help="model calls in flight at once")


def _check_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the problems as JSON, with files and lines")
    p.add_argument(
        "--graders",
        action="store_true",
        help="grade each scenario's reference answers with the judge; list the lines that disagree",
    )
    p.add_argument("--dry-run", action="store_true", help="with --graders: print the calls, tokens and cost only")


def _triage_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("skills", nargs="*", metavar="skill", help="the skills to triage (default: every skill)")
    p.add_argument("--below", type=_percent, metavar="<pct>", help="also triage lines under pct%% with the skill")
    p.add_argument("--samples", type=_positive, default=2, metavar="<n>", help="fresh samples per failure (default: 2)")
    p.add_argument("--keep-deps", action="store_true", help="keep the installed test packages in .skill-be/deps")


def _regrade_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("skills", nargs="*", metavar="skill", help="the skills to regrade (default: every skill)")
    p.add_argument("--run", metavar="<dir>", help="the run folder whose answers to grade (default: the latest)")
    p.add_argument("--junit", metavar="<file>", help="also write JUnit XML there: a test suite per skill")
    p.add_argument("--keep-deps", action="store_true", help="keep the installed test packages in .skill-be/deps")


def _convert_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "skills",
        nargs="*",
        metavar="skill|file",
        help="the skills to convert (default: every one with an evals.json); with --from, the peer's files",
    )
    p.add_argument(
        "--from",
        dest="source",
        choices=("agentskills", "skillgrade", "skill-lens"),
        metavar="<format>",
        help="agentskills (evals/evals.json, the default), skillgrade (eval.yaml) or skill-lens (*.eval.yaml)",
    )
    p.add_argument("-o", "--output", metavar="<file>", help="write the eval file there (one skill)")
    p.add_argument("--force", action="store_true", help="replace the eval file if it exists")


def _merge_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("dirs", nargs="*", metavar="dir", help="the run folder of every shard (run --shard k/n)")
    p.add_argument("--junit", metavar="<file>", help="also write JUnit XML there: a test suite per skill")


def _cache_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("prune", "clear"), metavar="prune|clear", help="what to do with the cache")
    p.add_argument("--older-than", metavar="<age>", help="prune: remove entries no run used for this long (30d, 12h)")


def _schema_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("format", choices=("config", "eval", "result", "summary"), metavar="config|eval|result|summary")


def _init_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "skill_folder", nargs="?", metavar="skill-folder", help="the folder with the SKILL.md (default: ./skills/*)"
    )
    p.add_argument("--draft", action="store_true", help="the config's model drafts the scenarios from the description")


def _sandbox_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("build",), metavar="build", help="build the Docker sandbox image")
    p.add_argument("--base", metavar="<image>", help="the Debian bookworm base image (default: debian:bookworm-slim)")
    p.add_argument(
        "--ca-certs", metavar="<file>", help="PEM CA certificates of a TLS-intercepting proxy, for the build"
    )
    p.add_argument("--tag", metavar="<image>", help="the image's name (default: skill-be-sandbox:<version>)")


def _port(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f'must be a port from 0 to 65535 (0: a free one), not "{text}"')
    return n


def _open_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "folder", nargs="?", metavar="folder", help="the results folder to serve (default: the config's results)"
    )
    p.add_argument("--port", type=_port, default=0, metavar="<n>", help="the port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="print the address only; do not open a browser")


def _percent(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 100:
        raise argparse.ArgumentTypeError(f'must be a whole percentage from 0 to 100, not "{text}"')
    return n


COMMANDS: tuple[Command, ...] = (
    Command(
        "run",
        "run [skill...]",
        "Benchmark every skill that has an eval file, or the named ones: both arms, graded, gated.\n"
        "Writes the outputs, grader answers, a report per skill and summary.json under the results\n"
        "directory, updates the result file, then runs the checks.",
        _run_options,
        "skill_be.commands.run",
    ),
    Command(
        "verify",
        "verify",
        "Without a model call: checks that the result file matches the current skills, evals and\n"
        "config and records every skill READY, then runs the checks. With --base <ref>, also compares\n"
        "the recorded scores with the result file committed at <ref> (gate.previous, gate.minDelta).",
        _verify_options,
        "skill_be.commands.verify",
    ),
    Command(
        "check",
        "check",
        "Runs the typecheck and coverage checks, parses the code tests and warns about hint words.",
        _check_options,
        "skill_be.commands.check",
    ),
    Command(
        "triage",
        "triage [skill...]",
        "Proposes a classification for each failing criterion or code test of the latest run,\n"
        "from fresh with-skill samples. Never blocks.",
        _triage_options,
        "skill_be.commands.triage",
    ),
    Command(
        "regrade",
        "regrade [skill...]",
        "Grades the answers of an earlier run (the latest, or --run) again with today's criteria,\n"
        "grader and code tests, without generating anything; writes a new run folder.",
        _regrade_options,
        "skill_be.commands.regrade",
    ),
    Command(
        "merge",
        "merge <dir>...",
        "Joins the partial runs of run --shard k/n into one run folder: reports, summary.json,\n"
        "the result file and the gate, as one unsharded run would have written them.",
        _merge_options,
        "skill_be.commands.merge",
    ),
    Command(
        "triggers",
        "triggers [skill...]",
        "Runs the trigger queries with the current description and a proposed one (--description\n"
        "or --description-file) side by side: both rates with intervals and the difference.",
        _triggers_options,
        "skill_be.commands.triggers",
    ),
    Command(
        "convert",
        "convert [skill...]",
        "Writes the skill-be eval file equivalent to each skill's agentskills.io evals/evals.json\n"
        "(<evals>/<skill>.json), leaving the evals.json as it was; --from skillgrade or skill-lens\n"
        "converts a peer's eval files. Never overwrites a file without --force. Calls no model.",
        _convert_options,
        "skill_be.commands.convert",
    ),
    Command(
        "open",
        "open [folder]",
        "Serves the results folder on 127.0.0.1 until Ctrl-C and opens the browser: every run with\n"
        "its verdicts, a chart per skill over the runs, each run's results.html. Read-only.",
        _open_options,
        "skill_be.commands.open",
    ),
    Command(
        "view",
        "view [folder]",
        "Another name for open.",
        _open_options,
        "skill_be.commands.open",
    ),
    Command(
        "schema",
        "schema <format>",
        "Prints the JSON Schema of skill-be.yaml (config), an eval file (eval), the result file\n"
        "(result) or summary.json (summary), for editors and other tools.",
        _schema_options,
        "skill_be.commands.schema",
    ),
    Command(
        "init",
        "init [skill-folder]",
        "Writes a commented skill-be.yaml (when there is none) and an eval file per skill: a template\n"
        "whose placeholders refuse to run until filled, or with --draft scenarios drafted by the\n"
        "config's model from the skill's description only.",
        _init_options,
        "skill_be.commands.init",
    ),
    Command(
        "sandbox",
        "sandbox build",
        "Builds the Docker sandbox image (skill-be-sandbox:<version>) from the Dockerfile the package\n"
        "ships, for code tests in Docker after a pip install.",
        _sandbox_options,
        "skill_be.commands.sandbox",
    ),
    Command(
        "cache",
        "cache prune|clear",
        "The response cache in .skill-be/cache: `prune --older-than 30d` removes the entries no run\n"
        "has used for that long, `clear` removes them all.",
        _cache_options,
        "skill_be.commands.cache",
    ),
)


def available(commands: Sequence[Command]) -> list[Command]:
    """Only the commands whose module is installed are offered."""
    return [c for c in commands if importlib.util.find_spec(c.module) is not None]


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._optionals.title = "Options"

    def error(self, message: str) -> NoReturn:
        raise UsageError(_reword(message), self.prog.removeprefix("skill-be").strip() or None)


class _Help(argparse.RawDescriptionHelpFormatter):
    """argparse's layout with the reference's capitalised headings."""

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, "Usage: " if prefix is None else prefix)


def _reword(message: str) -> str:
    if message.startswith("unrecognized arguments: "):
        word = message.removeprefix("unrecognized arguments: ").split()[0]
        return f'unknown option "{word}"' if word.startswith("-") else f'unexpected argument "{word}"'
    if message.startswith("argument "):
        return message.removeprefix("argument ").replace("/", " or ", 1)
    return message


def build_parser(commands: Sequence[Command]) -> _Parser:
    listing = "\n".join(
        f"  {c.usage:<18} {line}" if i == 0 else f"  {'':<18} {line}"
        for c in commands
        for i, line in enumerate(c.summary.splitlines())
    )
    parser = _Parser(
        prog="skill-be",
        usage=USAGE,
        description=f"{DESCRIPTION}\n\nCommands:\n{listing}",
        epilog=EPILOG,
        formatter_class=_Help,
        allow_abbrev=False,
        add_help=False,
    )
    parser.add_argument("-h", "--help", action="help", help="show this help")
    parser.add_argument("--version", action="version", version=f"skill-be {__version__}", help="show the version")
    parser.add_argument("--config", metavar="<path>", default=None, help="the config file (default: ./skill-be.yaml)")
    sub = parser.add_subparsers(
        dest="command", metavar="<command>", parser_class=_Parser, help=argparse.SUPPRESS, prog="skill-be"
    )
    for c in commands:
        p = sub.add_parser(
            c.name,
            usage=f"skill-be {c.usage} [options]",
            description=c.summary,
            formatter_class=_Help,
            allow_abbrev=False,
            add_help=False,
        )
        p.add_argument("-h", "--help", action="help", help="show this help")
        p.add_argument(
            "--config", metavar="<path>", default=argparse.SUPPRESS, help="the config file (default: ./skill-be.yaml)"
        )
        c.add_options(p)
    return parser


STARTS_FRESH = frozenset({"init"})  # commands that write a config where they run: no search upwards


def find_config(start: Path, command: str) -> Path:
    """./skill-be.yaml, else the nearest one in a folder above, as git finds its repository; the
    plain name when there is none, so the error names the file the user would create."""
    if command not in STARTS_FRESH:
        here = start.resolve()
        for folder in (here, *here.parents):
            candidate = folder / CONFIG_NAME
            if candidate.is_file():
                return candidate if folder == here else Path(os.path.relpath(candidate, start))
    return Path(CONFIG_NAME)


def _close_options(message: str, command: str | None, commands: Sequence[Command]) -> str:
    """`unknown option "--rep"` gets the command's nearest options: (did you mean "--reps"?)."""
    import difflib  # only on this error path

    if not message.startswith('unknown option "'):
        return message
    word = message.split('"')[1].split("=")[0]
    scratch = argparse.ArgumentParser(add_help=False)
    for c in commands:
        if c.name == command:
            c.add_options(scratch)
    known = [o for a in scratch._actions for o in a.option_strings] + ["--config", "--help"]
    if command is None:
        known.append("--version")
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    return f'{message} (did you mean "{close[0]}"?)' if close else message


def _with_comment(name: str, argv: list[str], config: Path, module: Any, options: dict[str, Any], file: str) -> int:
    """The command, then `--comment FILE`: the pull request comment the action would post for it
    (github/local_comment.py), written once the command has run to its exit code."""
    from skill_be.github import local_comment

    before = local_comment.run_folders(config) if name == "run" else set()
    with local_comment.captured() as (out, err):
        code: int = module.main(config, **options)
    run_dir = local_comment.new_run(config, before) if name == "run" else None
    text = local_comment.comment_text(name, argv, code, out.lines(), err.lines(), run_dir, os.environ)
    try:
        Path(file).write_bytes(text.encode("utf-8"))
    except OSError as e:
        raise UsageError(
            f"--comment: cannot write {file} ({e.strerror or e}); name a file in a folder that exists", name
        ) from None
    print(f"Comment: {file} (the pull request comment the action would post)", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # an argument of bytes that are not UTF-8 still prints
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    commands = available(COMMANDS)
    try:
        parser = build_parser(commands)
        if args_in and not args_in[0].startswith("-") and args_in[0] not in {c.name for c in commands}:
            names = ", ".join(c.name for c in commands)
            raise UsageError(f'unknown command "{args_in[0]}" (commands: {names})')
        args = parser.parse_args(args_in)
        if args.command is None:
            parser.print_help()
            return USAGE_EXIT if args_in else 0
        if args.config is not None and not args.config.strip():
            raise UsageError("--config: needs a path, such as --config ./skill-be.yaml", args.command)
        config = Path(args.config) if args.config else find_config(Path.cwd(), args.command)
        command = next(c for c in commands if c.name == args.command)
        module = importlib.import_module(command.module)
        options = {k: v for k, v in vars(args).items() if k not in ("command", "config")}
        comment = options.pop("comment", None)
        if comment is not None:
            return _with_comment(
                command.name, [a for a in args_in if a != command.name], config, module, options, comment
            )
        code: int = module.main(config, **options)
        return code
    except UsageError as e:
        command_name = e.command or next((a for a in args_in if a in {c.name for c in commands}), None)
        print(f"skill-be: {_close_options(str(e), command_name, commands)}", file=sys.stderr)
        where = f"skill-be {command_name} --help" if command_name else "skill-be --help"
        usage = next((f"skill-be {c.usage} [options]" for c in commands if c.name == command_name), USAGE)
        print(f"Usage: {usage} (see {where})", file=sys.stderr)
        return exit_code(e)
    except ConfigError as e:
        print(e, file=sys.stderr)  # it starts with the file it is about: `skill-be.yaml: reps: ...`
        return exit_code(e)
    except SkillBeError as e:
        print(f"skill-be: {e}", file=sys.stderr)
        return exit_code(e)
    except (Interrupted, KeyboardInterrupt, BrokenPipeError) as e:
        return exit_code(e)
