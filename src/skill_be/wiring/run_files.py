"""The files a run writes, as it goes: each output, each skill's report, summary.json, results.html
and the result file. Written after every skill, so an interrupted run keeps what finished."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from skill_be.checks import CheckOutcome
from skill_be.engine.gate import FakeRun, with_rules
from skill_be.engine.health import Health, skill_health
from skill_be.engine.observations import Output
from skill_be.engine.runner import SkillRun
from skill_be.errors import UsageError
from skill_be.project.loader import Project
from skill_be.reports import fake as fake_words
from skill_be.reports.errors import error_report, health_keys
from skill_be.reports.gate import gate_reasons, recorded_reasons
from skill_be.reports.markdown import Header, skill_report
from skill_be.reports.summary import run_summary, skill_summary
from skill_be.results.result_file import ResultEntry, checked_entry, scores_of, write_result_file
from skill_be.results.run_dir import RunDir
from skill_be.results.run_pages import AgentFiles
from skill_be.results.triggers import triggers_json

if TYPE_CHECKING:
    from skill_be.engine.changes import Comparison
    from skill_be.reports.terminal import Style
    from skill_be.results.git_files import Base

Extras = Callable[[SkillRun], tuple[list[str], dict[str, object]]]  # a skill's report lines, summary keys


def base_of(project: Project, ref: str | None, shard: str | None) -> tuple[Path, Base] | None:
    """`--base REF`, resolved before any call (results/base.py); not with a shard's partial result file."""
    if ref is None:
        return None
    if shard is not None:
        raise UsageError(
            "--base and --shard cannot go together: compare after the merge (skill-be verify --base)", "run"
        )
    from skill_be.results.base import resolve_base

    return resolve_base(project, ref)


def usage_of(project: Project, run: SkillRun) -> dict[str, object] | None:
    """The result file's `usage`: tokens and cost of one answer per arm, priced as the report prices them."""
    from skill_be.adapters.registry import labels
    from skill_be.engine.pricing import answer_usage
    from skill_be.engine.prompts import BASELINE, WITH_SKILL

    config = project.config
    models = list(config.models)
    ids = {label: e.id for e, label in zip(models, labels(models), strict=True)}
    return answer_usage(run.outputs, dict(config.pricing), ids, {"baseline": BASELINE, "withSkill": WITH_SKILL})


class HtmlInputs:
    """What results.html shows beyond summary.json: each answer and each grading's last reply, by the
    output's file as summary.json names it."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.replies: dict[str, list[str]] = {}
        self.agents: dict[str, AgentFiles] = {}  # an agent rep's transcript and diff, by its stem

    def add(self, key: str, output: Output, stem: str) -> None:
        if output.text is not None:
            self.texts[key] = output.text
        self.replies[key] = [g.replies[-1] if g.replies else "" for g in output.gradings]
        if output.agent is not None:
            transcript = output.agent.get("transcript")
            diff = output.agent.get("diff")
            self.agents[stem] = AgentFiles(transcript if isinstance(transcript, Mapping) else None, str(diff or ""))


class RunFiles:
    def __init__(
        self,
        project: Project,
        run_dir: RunDir,
        header: Header,
        meta: Mapping[str, object],
        previous: Mapping[str, ResultEntry],
        html: bool,
        extras: Extras | None = None,
        fake: bool = False,
    ) -> None:
        self.project = project
        # A fake run (adapter fake, run --fake): every report marked, never READY, no result file written.
        self.fake = fake
        self.run_dir = run_dir
        self.header = header
        self.meta = {**meta, "fakeRun": True} if fake else dict(meta)
        self.results = dict(previous)  # the result file keeps the skills this run leaves out
        self.html = HtmlInputs() if html else None
        self.summaries: dict[str, object] = {}
        self.reports: list[Path] = []
        # wiring/scale.py: a skill's cost and cache lines for its report, and their summary.json keys
        self.extras: Extras = extras or (lambda run: ([], {}))
        self.errored: dict[str, Health] = {}  # skills whose verdict is ERROR (engine/health.py)
        self.result_written = False  # whether this run wrote the result file
        self.partial: dict[str, list[Output]] = {}  # every output so far, for Ctrl-C (interrupted.py)
        self.base: Comparison | None = None  # run --base: the page's base column (compare_with_base)
        self.terminal: Style | None = None  # run on a terminal: the verdict-first summary (reports/terminal.py)

    def _file(self, skill: str, output: Output) -> Path | None:
        return self.run_dir.output_file(skill, output) if output.text is not None else None

    def file_of(self, skill: str, output: Output) -> Path | None:
        return self._file(skill, output)

    def output(self, skill: str, output: Output) -> None:
        self.run_dir.send_output(skill, output)  # written by the run folder's thread, off the loop
        self.partial.setdefault(skill, []).append(output)
        if self.html is not None:
            file = self._file(skill, output)
            key = (
                file.relative_to(self.run_dir.path).as_posix()
                if file
                else f"{skill}/{output.scenario}/{output.model}/{output.rep}/{output.arm}"
            )
            stem = self.run_dir.output_dir(skill, output.scenario, output.model) / f"rep-{output.rep}-{output.arm}"
            self.html.add(key, output, stem.relative_to(self.run_dir.path).as_posix())

    def skill(self, run: SkillRun, fingerprint: str) -> str:
        """The skill's report (returned, to print), summary.json and the result file."""
        name = run.skill.name
        if self.fake:
            run = replace(run, gate=with_rules(run.gate, blocks=[FakeRun()]))
        extra_lines, extra_keys = self.extras(run)
        report = skill_report(run, self.header, extra_lines)
        if self.fake:
            report = fake_words.fake_report(report)
        health = skill_health(run.outputs, self.header.labels, self.project.config.gate, run.gate)
        if health.error:
            report = error_report(report, health)
        self.reports.append(self.run_dir.write_report(name, report))
        self.summaries[name] = {
            **skill_summary(
                run, list(self.header.labels), fingerprint, lambda o: self._file(name, o), self.run_dir.path
            ),
            **extra_keys,
            **health_keys(health),
        }
        if health.error:  # the result file keeps the previous entry of a skill not measured
            self.errored[name] = health
            self.summary(None)
            return report
        self.results[name] = self._entry(run, fingerprint)
        self.summary(None)
        if self.fake:  # the result file records measurements; a fake run made none
            return report
        write_result_file(self.project.config.result_file, self.results)
        self.result_written = True
        return report

    def _entry(self, run: SkillRun, fingerprint: str) -> ResultEntry:
        """The skill's entry in the result file, checked against its model once, here."""
        entry = ResultEntry(
            date=self.header.date,
            fingerprint=fingerprint,
            ready=run.gate.ready,
            reasons=list(gate_reasons(run.gate)),
            why=recorded_reasons(run.gate),
            models=list(self.header.labels),
            grader=self.header.grader,
            scores=scores_of(run),
            gate=run.gate.levels.to_json(),
            triggers=triggers_json(run.gate.trigger, calls=False) if run.gate.trigger else None,
            reps=self.header.reps,  # verify holds the run to the config's reps
            inputs=self.project.inputs(run.skill),  # verify names what changed
            usage=usage_of(self.project, run),  # tokens and cost against the base
        )
        return checked_entry(run.skill.name, entry)

    def summary(self, checks: Sequence[CheckOutcome] | None) -> Path:
        """summary.json (and results.html), with the skills in the project's order."""
        ordered = {s.name: self.summaries[s.name] for s in self.project.skills if s.name in self.summaries}
        doc = run_summary(self.meta, ordered, checks)
        if self.html is not None:
            from skill_be.reports.html import render_html

            page = render_html(doc, self.html.texts, self.html.replies, self.base, self.html.agents)
            self.run_dir.write_page("results.html", page)
        return self.run_dir.write_summary(doc)

    def compare_with_base(self, base: tuple[Path, Base] | None) -> list[str]:
        """`run --base REF`, once the result file is written: the comparison of it with the base's
        (results/base.py), kept for the page's base column; its terminal lines to print."""
        if base is None:
            return []
        from skill_be.reports.comparison_text import comparison_lines
        from skill_be.results.base import compare_project

        self.base = compare_project(self.project, *base)
        return comparison_lines(self.base)

    def written(self, summary: Path) -> list[Path]:
        """Every file the closing lines list, in order."""
        page = [self.run_dir.path / "results.html"] if self.html is not None else []
        # when every skill was ERROR the run left the result file as it was
        kept = (self.errored or self.fake) and not self.result_written
        return [*self.reports, summary, *page, *([] if kept else [self.project.config.result_file])]
