"""How an answer becomes results, through the process runner (the same harness runs in Docker):
the contract's code block, load errors, missing fields, timeouts and uncaught errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.integration.codetests.conftest import CodeProject, Driver, ts

from skill_be.codetests.answer import NO_BLOCK
from skill_be.codetests.session import CodeTestSession, TestRun

ADD_TESTS = """\
import assert from 'node:assert/strict';
import { tests } from 'skill-be/testing';
import { two } from './helpers/numbers.js';
import { label } from '../_shared/label.js';

const test = tests<{ result: (n: number) => number; reason?: string }>();

test('adds one', ({ result }) => {
  assert.equal(result(1), two);
});

test('reason is optional', ({ reason }) => {
  assert.equal(reason, undefined, label('reason'));
});

test('adds one to zero', ({ result }) => {
  assert.equal(result(0), 1);
});
"""

TIMING_TESTS = """\
import assert from 'node:assert/strict';
import { test } from 'skill-be/testing';

test('first', async ({ result }) => { assert.equal(await result('first'), 'ok'); });
test('second', async ({ result }) => { assert.equal(await result('second'), 'ok'); });
test('third', async ({ result }) => { assert.equal(await result('third'), 'ok'); });
"""


@pytest.fixture
def session(project: CodeProject, drive: Driver) -> CodeTestSession:
    project.scenarios({"add": ADD_TESTS, "timing": TIMING_TESTS}, {"result": "the function", "reason": "why"})
    project.write("skill-tests/probe/helpers/numbers.ts", "export const two: number = 2;\n")
    project.write("skill-tests/_shared/label.ts", "export const label = (s: string): string => `field ${s}`;\n")
    config = project.save_config({"sandbox": "process", "testTimeoutSeconds": 1, "answerTimeoutSeconds": 3})
    s = drive.open(config)
    yield s
    drive(s.close())


def outcome(run: TestRun) -> list[tuple[str, bool, str | None]]:
    assert run.error is None, run.error
    return [(r.name, r.passed, r.message) for r in run.results]


def test_names_come_from_loading_each_test_file_once(session: CodeTestSession) -> None:
    assert session.test_names("probe", "add") == ("adds one", "reason is optional", "adds one to zero")
    assert session.test_names("probe", "timing") == ("first", "second", "third")
    assert session.test_names("probe", "nothing") == ()


def test_an_answer_that_does_the_task_passes_and_one_that_does_not_fails(
    session: CodeTestSession, drive: Driver
) -> None:
    good = drive(session.run("probe", "add", ts("export const result = (n: number): number => n + 1;")))
    assert [p for _, p, _ in outcome(good)] == [True, True, True]
    bad = drive(session.run("probe", "add", ts("export const result = (n: number): number => n * 2;")))
    assert outcome(bad) == [
        ("adds one", True, None),
        ("reason is optional", True, None),
        ("adds one to zero", False, "Expected values to be strictly equal:\n\n0 !== 1\n"),
    ]


def test_the_last_code_block_in_ts_typescript_js_or_javascript_is_the_answer(
    session: CodeTestSession, drive: Driver
) -> None:
    reply = (
        "First try:\n```typescript\nexport const result = (n) => n;\n```\n"
        "Not code:\n```text\nexport const result = 0\n```\n"
        "Final:\n```javascript\nexport const result = (n) => n + 1;\n```\nDone."
    )
    assert all(p for _, p, _ in outcome(drive(session.run("probe", "add", reply))))


def test_a_field_the_code_did_not_export_is_undefined_and_one_it_did_is_seen(
    session: CodeTestSession, drive: Driver
) -> None:
    run = drive(session.run("probe", "add", ts("export const result = (n) => n + 1;\nexport const reason = 'x';")))
    assert outcome(run)[1][:2] == ("reason is optional", False)
    assert "field reason" in (outcome(run)[1][2] or "")


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("No code today.", NO_BLOCK),
        ("```python\nresult = 1\n```", NO_BLOCK),
        (ts("export const result = (n: number =>"), "the answer's code does not parse: line 1"),
        (
            ts("throw new Error('boom at load');\nexport const result = 1;"),
            "the answer's code throws when loaded: boom at load",
        ),
        (ts("export const answer = (n: number) => n + 1;"), "the answer's code has no `result` export"),
        (
            ts("import { nope } from 'no-such-package';\nexport const result = nope;"),
            "the answer's code throws when loaded: Cannot find package 'no-such-package'",
        ),
    ],
)
def test_an_answer_without_a_loadable_result_fails_every_test_with_the_reason(
    session: CodeTestSession, drive: Driver, reply: str, message: str
) -> None:
    results = outcome(drive(session.run("probe", "add", reply)))
    assert [name for name, _, _ in results] == ["adds one", "reason is optional", "adds one to zero"]
    for _, passed, got in results:
        assert not passed
        assert got is not None and got.startswith(message), got


def test_a_slow_test_fails_and_the_next_one_still_runs(session: CodeTestSession, drive: Driver) -> None:
    code = "export const result = (name) => name === 'second' ? new Promise(() => {}) : 'ok';"
    assert outcome(drive(session.run("probe", "timing", ts(code)))) == [
        ("first", True, None),
        ("second", False, "timed out after 1 s"),
        ("third", True, None),
    ]


def test_code_that_blocks_the_event_loop_is_killed_and_later_tests_fail(
    session: CodeTestSession, drive: Driver
) -> None:
    code = "export const result = (name) => { if (name === 'second') { for (;;) {} } return 'ok'; };"
    assert outcome(drive(session.run("probe", "timing", ts(code)))) == [
        ("first", True, None),
        ("second", False, "timed out after 1 s"),
        ("third", False, "not run: an earlier test timed out and the test process was stopped"),
    ]


def test_all_tests_of_an_answer_share_the_answer_timeout(project: CodeProject, drive: Driver) -> None:
    project.scenarios({"timing": TIMING_TESTS})
    s = drive.open(project.save_config({"sandbox": "process", "testTimeoutSeconds": 30, "answerTimeoutSeconds": 1}))
    try:
        code = "export const result = (name) => name === 'first' ? 'ok' : new Promise(() => {});"
        assert outcome(drive(s.run("probe", "timing", ts(code)))) == [
            ("first", True, None),
            ("second", False, "stopped: an answer's tests must all finish within 1 s"),
            ("third", False, "not run: the answer's tests ran past 1 s"),
        ]
    finally:
        drive(s.close())


def test_an_uncaught_error_fails_the_test_it_happens_in(session: CodeTestSession, drive: Driver) -> None:
    code = (
        "export const result = (name) => new Promise((resolve) => {\n"
        "  if (name === 'first') setTimeout(() => { throw new Error('late throw'); }, 10);\n"
        "  else resolve('ok');\n"
        "});"
    )
    assert outcome(drive(session.run("probe", "timing", ts(code)))) == [
        ("first", False, "uncaught error: late throw"),
        ("second", True, None),
        ("third", True, None),
    ]


def test_process_exit_in_a_test_keeps_earlier_results(session: CodeTestSession, drive: Driver) -> None:
    code = "export const result = (name) => { if (name === 'second') process.exit(0); return 'ok'; };"
    assert outcome(drive(session.run("probe", "timing", ts(code)))) == [
        ("first", True, None),
        ("second", False, "the test process ended during this test (exit code 0)"),
        ("third", False, "not run: the test process ended during an earlier test (exit code 0)"),
    ]


def test_answers_run_concurrently_each_with_its_own_result(session: CodeTestSession, drive: Driver) -> None:
    import asyncio

    async def many() -> list[TestRun]:
        replies = [ts(f"export const result = (n) => n + {i % 2};") for i in range(8)]
        return await asyncio.gather(*(session.run("probe", "add", r) for r in replies))

    runs = drive(many())
    assert [r.results[0].passed for r in runs] == [i % 2 == 1 for i in range(8)]


def test_tests_json_holds_each_result_and_message(session: CodeTestSession, drive: Driver) -> None:
    run = drive(session.run("probe", "add", ts("export const result = (n) => n;")))
    data = run.to_json()
    assert data["passed"] == 1 and data["total"] == 3 and data["error"] is None
    tests = data["tests"]
    assert isinstance(tests, list)
    assert tests[0]["name"] == "adds one" and tests[0]["passed"] is False
    assert "1 !== 2" in tests[0]["message"]


def test_the_work_folders_are_removed_when_the_session_closes(project: CodeProject, drive: Driver) -> None:
    project.scenarios(
        {
            "add": ADD_TESTS.replace("import { two } from './helpers/numbers.js';\n", "const two = 2;\n").replace(
                "import { label } from '../_shared/label.js';\n", "const label = (s: string) => s;\n"
            )
        }
    )
    s = drive.open(project.save_config({"sandbox": "process"}))
    deps = Path(project.root / ".skill-be" / "deps")
    assert any(deps.iterdir())
    drive(s.close())
    assert list(deps.iterdir()) == []
