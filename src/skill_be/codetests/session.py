"""The code tests of one command: prepared before the first model call, run for each answer, removed after.

`CodeTestSession.open` resolves TypeScript, installs each distinct package list once, compiles the
tests and their helpers, loads each test file once to learn its test names, and starts the sandbox;
for the scenarios whose output asks for Python, it finds the Python the answers run under, builds
its harness, installs the lists' pip sections, collects the tests with pytest, and starts a sandbox
of its own (language dispatch: codetests/sandbox/languages.py). `run` takes a model's reply and gives
a result per test; `close` removes what the session made."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from skill_be.codetests import deps as deps_mod
from skill_be.codetests import harness, python_env
from skill_be.codetests.answer import extract_code, no_block
from skill_be.codetests.compiler import CompileError, Compiler, CompilerDied
from skill_be.codetests.outcome import TestResult, TestRun, all_failed, errored
from skill_be.codetests.packages import read_package_list
from skill_be.codetests.protocol import Request
from skill_be.codetests.sandbox import Pool, SandboxError, Settings, Work, create
from skill_be.codetests.sandbox.image import DEFAULT_IMAGE
from skill_be.errors import ConfigError
from skill_be.project.codetest_layout import SHARED, TEST_SUFFIX, test_file_name
from skill_be.project.loader import Project, Skill

__all__ = ["CodeTestSession", "TestResult", "TestRun"]


def choose_sandbox(configured: str) -> str:
    """`auto` is docker when an engine answers, else bwrap where it works, else process: probed once."""
    if configured != "auto":
        return configured
    from skill_be.codetests.sandbox import bwrap
    from skill_be.containers import engine_answers

    if engine_answers() is None:
        return "docker"
    return "bwrap" if bwrap.works() is None else "process"


def _compiled_test(skill: str, scenario_id: str, language: str = "typescript") -> str:
    if language == "python":
        return f"tests/{skill}/{test_file_name(scenario_id, language)}"
    return f"tests/{skill}/{scenario_id}{TEST_SUFFIX[: -len('.ts')]}.js"


def _scenarios(skill: Skill, language: str) -> list[str]:
    """The skill's scenarios with tests in `language`, in its eval file's order."""
    return [s.id for s in skill.evals.scenarios if s.id in skill.test_files and s.language == language]


class CodeTestSession:
    def __init__(
        self, project: Project, keep_deps: bool, warn: Callable[[str], None], weaken: frozenset[str] = frozenset()
    ) -> None:
        self.project = project
        self.weaken = weaken
        self.keep_deps = keep_deps
        self.warn = warn
        self.run_id = secrets.token_hex(6)
        self.names: dict[tuple[str, str], tuple[str, ...]] = {}
        self.work_of: dict[tuple[str, str], Work] = {}  # (skill, language) -> its work folder
        self.language: dict[tuple[str, str], str] = {}  # (skill, scenario) -> the language of its tests
        self.deps_folders: list[Path] = []
        self.work_folders: list[Path] = []
        self.compiler: Compiler | None = None
        self.pools: dict[str, Pool] = {}  # language -> its sandbox's pool
        self.typescript = ""
        self.python = ""
        self.python_harness: Path | None = None
        self.told: set[str] = set()  # the sandbox notes already printed (each once, whatever the languages)
        self.closed = False

    @classmethod
    async def open(
        cls, project: Project, *, keep_deps: bool, warn: Callable[[str], None], weaken: frozenset[str] = frozenset()
    ) -> CodeTestSession:
        """Everything before the first model call; a ConfigError (exit 2) when the tests cannot be made ready.

        Prints the install lines and, for the process runner, the not-a-sandbox note, through `warn`.
        `weaken` names protections to switch off: only tests use it, to show that an attack works without."""
        session = cls(project, keep_deps, warn, weaken)
        try:
            await session._open()
        except BaseException:
            await session.close()
            raise
        return session

    async def _open(self) -> None:
        skills = [s for s in self.project.skills if s.has_code_tests]
        if not skills:
            return
        for skill in skills:
            for sc in skill.evals.scenarios:
                if sc.id in skill.test_files:
                    self.language[(skill.name, sc.id)] = sc.language
        ts_skills = [s for s in skills if _scenarios(s, "typescript")]
        py_skills = [s for s in skills if _scenarios(s, "python")]
        if ts_skills:
            await self._open_typescript(ts_skills)
        if py_skills:
            await self._open_python(py_skills)

    async def _open_typescript(self, skills: list[Skill]) -> None:
        config = self.project.config
        from skill_be.checks.typescript import find_typescript

        ts = await asyncio.to_thread(find_typescript, config.root, self.warn)
        self.typescript = ts.version
        self.compiler = await Compiler.start(ts.node, ts.module_dir)
        groups: dict[Path | None, list[Skill]] = {}
        for skill in skills:
            groups.setdefault(skill.package_list, []).append(skill)
        works = [
            await self._work(i, list_path, members, ts.node) for i, (list_path, members) in enumerate(groups.items())
        ]
        await self._sandbox(
            works, Settings(node=ts.node, works=(), run_id=self.run_id, image="", memory_mb=0, cpus=0, pids=0)
        )

    async def _open_python(self, skills: list[Skill]) -> None:
        import os as os_mod

        python = await asyncio.to_thread(python_env.find_python, os_mod.name == "posix" and os_mod.geteuid() == 0)
        self.python = python
        self.python_harness = await asyncio.to_thread(python_env.build_harness)
        groups: dict[Path | None, list[Skill]] = {}
        for skill in skills:
            groups.setdefault(skill.package_list, []).append(skill)
        works = [
            await self._python_work(i, list_path, members, python)
            for i, (list_path, members) in enumerate(groups.items())
        ]
        base = Settings(node="", works=(), run_id=self.run_id, image="", memory_mb=0, cpus=0, pids=0)
        await self._sandbox(works, replace(base, language="python", python=python, harness=self.python_harness))

    async def _python_work(self, i: int, list_path: Path | None, members: list[Skill], python: str) -> Work:
        """The work folder of the skills with Python tests that share one package list: its pip section
        installed, the tests copied and collected."""
        config = self.project.config
        assert config.tests is not None and self.python_harness is not None
        plist = read_package_list(list_path) if list_path is not None else None
        self.deps_folders.append(deps_mod.folder_of(plist, config.root, "python"))
        installed = await deps_mod.install(plist, config.root, self.warn, "python")
        folder = installed.folder / f"run-{self.run_id}"
        self.work_folders.append(folder)
        await asyncio.to_thread(python_env.write_work_folder, folder, config.tests, [s.name for s in members])
        sources: dict[Path, Path] = {}
        for skill in members:
            for scenario_id in _scenarios(skill, "python"):
                sources[folder / _compiled_test(skill.name, scenario_id, "python")] = skill.test_files[scenario_id]
        listed = await python_env.list_tests(python, self.python_harness, installed.packages, sources, sources)
        work = Work(key=f"q{i}", folder=folder, packages=installed.packages, language="python")
        for skill in members:
            for scenario_id in _scenarios(skill, "python"):
                self.names[(skill.name, scenario_id)] = listed[
                    folder / _compiled_test(skill.name, scenario_id, "python")
                ]
            self.work_of[(skill.name, "python")] = work
        return work

    async def _work(self, i: int, list_path: Path | None, members: list[Skill], node: str) -> Work:
        """The work folder of the skills that share one package list: packages installed, tests
        compiled and listed."""
        config = self.project.config
        assert self.compiler is not None
        plist = read_package_list(list_path) if list_path is not None else None
        self.deps_folders.append(deps_mod.deps_root(config.root) / deps_mod.folder_name(plist.npm if plist else ()))
        installed = await deps_mod.install(plist, config.root, self.warn)
        folder = installed.folder / f"run-{self.run_id}"
        self.work_folders.append(folder)
        harness.write_work_folder(folder)
        # The compiled tests: skill-be's alone, whatever the project's folders let other users read
        # (as root, the sandboxes' runners and answers run as other users).
        folder.chmod(0o700)
        assert config.tests is not None  # a skill has code tests only with a tests folder
        await harness.compile_tree(self.compiler, config.tests / SHARED, folder / "tests" / SHARED)
        sources: dict[Path, Path] = {}
        for skill in members:
            await harness.compile_tree(self.compiler, config.tests / skill.name, folder / "tests" / skill.name)
            for scenario_id in _scenarios(skill, "typescript"):
                sources[folder / _compiled_test(skill.name, scenario_id)] = skill.test_files[scenario_id]
        listed = await harness.list_tests(node, sources, sources)
        work = Work(key=f"p{i}", folder=folder, packages=installed.packages)
        for skill in members:
            for scenario_id in _scenarios(skill, "typescript"):
                self.names[(skill.name, scenario_id)] = listed[folder / _compiled_test(skill.name, scenario_id)]
            self.work_of[(skill.name, "typescript")] = work
        return work

    async def _sandbox(self, works: list[Work], base: Settings) -> None:
        """The configured sandbox over the work folders of one language, warmed: a sandbox that cannot run
        is exit 2."""
        config = self.project.config
        ct = config.code_tests
        kind = await asyncio.to_thread(choose_sandbox, ct.sandbox)
        if ct.sandbox == "auto" and kind == "docker" and ct.image is None:  # no image: fall back
            from skill_be.codetests.sandbox_build import auto_kind

            kind = await asyncio.to_thread(auto_kind, DEFAULT_IMAGE, self._note)
        settings = replace(
            base,
            works=tuple(works),
            image=ct.image or DEFAULT_IMAGE,
            memory_mb=ct.memory_mb,
            cpus=ct.cpus,
            pids=ct.pids,
            weaken=self.weaken,
        )
        sandbox = await asyncio.to_thread(create, kind, settings, self._note)
        pool = self.pools[settings.language] = Pool(sandbox, min(config.concurrency, os.cpu_count() or 1))
        try:
            problem = await pool.warm()
        except SandboxError as e:
            raise ConfigError(f"codeTests.sandbox: {e}") from None
        if problem is not None:
            runs = "Python 3.11 or newer" if settings.language == "python" else "Node 20 or newer"
            raise ConfigError(f"codeTests.sandbox: {kind}: {problem}; check that the sandbox can run {runs}")
        self._note(f"code tests: the model's code runs in the {kind} sandbox")

    def _note(self, line: str) -> None:
        """A note of the sandboxes, printed once however many languages' sandboxes say it."""
        if line not in self.told:
            self.told.add(line)
            self.warn(line)

    def test_names(self, skill: str, scenario_id: str) -> tuple[str, ...]:
        """The tests the scenario's file registers, in registration order; () when it has none."""
        return self.names.get((skill, scenario_id), ())

    async def run(self, skill: str, scenario_id: str, answer: str) -> TestRun:
        """One answer's tests. The model's mistakes fail tests; what could not run is the TestRun's error."""
        names = self.test_names(skill, scenario_id)
        if not names:
            raise ValueError(f'no code tests for skill "{skill}" / scenario "{scenario_id}"')
        language = self.language.get((skill, scenario_id), "typescript")
        code = extract_code(answer, language)
        if code is None:
            return TestRun(results=all_failed(names, no_block(language)))
        pool = self.pools.get(language)
        if pool is None or self.closed:
            return errored(names, "the code tests were already closed")
        if language == "python":
            source = code.code
        else:
            if self.compiler is None:
                return errored(names, "the code tests were already closed")
            try:
                source = await self.compiler.transpile(code.file_name, code.code)
            except CompileError as e:
                return TestRun(results=all_failed(names, f"the answer's code does not parse: {e}"))
            except CompilerDied as e:
                return errored(names, str(e))
        ct = self.project.config.code_tests
        request = Request(
            base="",
            test=_compiled_test(skill, scenario_id, language),
            answer=source,
            names=names,
            test_timeout_s=ct.test_timeout_seconds,
            answer_timeout_s=ct.answer_timeout_seconds,
            last_result_wins="one-result" in self.weaken,
        )
        try:
            return await pool.run(self.work_of[(skill, language)], request)
        except Exception as e:  # never an exception to the engine: an error it can count
            return errored(names, f"the code tests could not run ({type(e).__name__}: {e})")

    async def close(self) -> None:
        """Stop the runners, remove containers, volumes, work folders, and deps folders unless keep_deps."""
        if self.closed:
            return
        self.closed = True
        for pool in self.pools.values():
            for line in await asyncio.to_thread(pool.close):
                self.warn(line)
        if self.compiler is not None:
            await self.compiler.close()
        if self.python_harness is not None:
            deps_mod.remove_folder(self.python_harness, self.warn)
        for folder in self.work_folders:
            deps_mod.remove_folder(folder, self.warn)
        if not self.keep_deps:
            for folder in self.deps_folders:
                deps_mod.remove_folder(folder, self.warn)

    def describe(self) -> Mapping[str, object]:
        """How the code tests ran, for summary.json."""
        out: dict[str, object] = {}
        for pool in self.pools.values():
            out.update(pool.sandbox.describe())
        if self.typescript:
            out["typescript"] = self.typescript
        return out
