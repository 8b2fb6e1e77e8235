"""The code tests of one command: prepared before the first model call, run for each answer, removed after.

`CodeTestSession.open` resolves TypeScript, installs each distinct package list once, compiles the
tests and their helpers, loads each test file once to learn its test names, and starts the sandbox.
`run` takes a model's reply and gives a result per test; `close` removes what the session made."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path

from skill_be.codetests import deps as deps_mod
from skill_be.codetests import harness
from skill_be.codetests.answer import NO_BLOCK, extract_code
from skill_be.codetests.compiler import CompileError, Compiler, CompilerDied
from skill_be.codetests.outcome import TestResult, TestRun, all_failed, errored
from skill_be.codetests.packages import read_package_list
from skill_be.codetests.protocol import Request
from skill_be.codetests.sandbox import Pool, SandboxError, Settings, Work, create
from skill_be.codetests.sandbox.image import DEFAULT_IMAGE
from skill_be.errors import ConfigError
from skill_be.project.codetest_layout import SHARED, TEST_SUFFIX
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


def _compiled_test(skill: str, scenario_id: str) -> str:
    return f"tests/{skill}/{scenario_id}{TEST_SUFFIX[: -len('.ts')]}.js"


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
        self.work_of: dict[str, Work] = {}  # skill -> its work folder
        self.deps_folders: list[Path] = []
        self.work_folders: list[Path] = []
        self.compiler: Compiler | None = None
        self.pool: Pool | None = None
        self.typescript = ""
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
        await self._sandbox(works, ts.node)

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
            for scenario_id, source in skill.test_files.items():
                sources[folder / _compiled_test(skill.name, scenario_id)] = source
        listed = await harness.list_tests(node, sources, sources)
        work = Work(key=f"p{i}", folder=folder, packages=installed.packages)
        for skill in members:
            for scenario_id in skill.test_files:
                self.names[(skill.name, scenario_id)] = listed[folder / _compiled_test(skill.name, scenario_id)]
            self.work_of[skill.name] = work
        return work

    async def _sandbox(self, works: list[Work], node: str) -> None:
        """The configured sandbox over the work folders, warmed: a sandbox that cannot run is exit 2."""
        config = self.project.config
        ct = config.code_tests
        kind = await asyncio.to_thread(choose_sandbox, ct.sandbox)
        if ct.sandbox == "auto" and kind == "docker" and ct.image is None:  # hook: issue 20, no image: fall back
            from skill_be.codetests.sandbox_build import auto_kind

            kind = await asyncio.to_thread(auto_kind, DEFAULT_IMAGE, self.warn)
        settings = Settings(
            node=node,
            works=tuple(works),
            run_id=self.run_id,
            image=ct.image or DEFAULT_IMAGE,
            memory_mb=ct.memory_mb,
            cpus=ct.cpus,
            pids=ct.pids,
            weaken=self.weaken,
        )
        sandbox = await asyncio.to_thread(create, kind, settings, self.warn)
        self.pool = Pool(sandbox, min(config.concurrency, os.cpu_count() or 1))
        try:
            problem = await self.pool.warm()
        except SandboxError as e:
            raise ConfigError(f"codeTests.sandbox: {e}") from None
        if problem is not None:
            raise ConfigError(f"codeTests.sandbox: {kind}: {problem}; check that the sandbox can run Node 20 or newer")
        self.warn(f"code tests: the model's code runs in the {kind} sandbox")

    def test_names(self, skill: str, scenario_id: str) -> tuple[str, ...]:
        """The tests the scenario's file registers, in registration order; () when it has none."""
        return self.names.get((skill, scenario_id), ())

    async def run(self, skill: str, scenario_id: str, answer: str) -> TestRun:
        """One answer's tests. The model's mistakes fail tests; what could not run is the TestRun's error."""
        names = self.test_names(skill, scenario_id)
        if not names:
            raise ValueError(f'no code tests for skill "{skill}" / scenario "{scenario_id}"')
        code = extract_code(answer)
        if code is None:
            return TestRun(results=all_failed(names, NO_BLOCK))
        if self.compiler is None or self.pool is None or self.closed:
            return errored(names, "the code tests were already closed")
        try:
            js = await self.compiler.transpile(code.file_name, code.code)
        except CompileError as e:
            return TestRun(results=all_failed(names, f"the answer's code does not parse: {e}"))
        except CompilerDied as e:
            return errored(names, str(e))
        ct = self.project.config.code_tests
        request = Request(
            base="",
            test=_compiled_test(skill, scenario_id),
            answer=js,
            names=names,
            test_timeout_s=ct.test_timeout_seconds,
            answer_timeout_s=ct.answer_timeout_seconds,
            last_result_wins="one-result" in self.weaken,
        )
        try:
            return await self.pool.run(self.work_of[skill], request)
        except Exception as e:  # never an exception to the engine: an error it can count
            return errored(names, f"the code tests could not run ({type(e).__name__}: {e})")

    async def close(self) -> None:
        """Stop the runners, remove containers, volumes, work folders, and deps folders unless keep_deps."""
        if self.closed:
            return
        self.closed = True
        if self.pool is not None:
            for line in await asyncio.to_thread(self.pool.close):
                self.warn(line)
        if self.compiler is not None:
            await self.compiler.close()
        for folder in self.work_folders:
            deps_mod.remove_folder(folder, self.warn)
        if not self.keep_deps:
            for folder in self.deps_folders:
                deps_mod.remove_folder(folder, self.warn)

    def describe(self) -> Mapping[str, object]:
        """How the code tests ran, for summary.json."""
        out: dict[str, object] = dict(self.pool.sandbox.describe()) if self.pool is not None else {}
        if self.typescript:
            out["typescript"] = self.typescript
        return out
