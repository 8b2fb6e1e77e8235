"""skillgrade's `eval.yaml` as a skill-be eval file (`skill-be convert --from skillgrade`).

Each task is an agent scenario: `instruction` its prompt, `workspace` entries its workspace (a
relative `dest`) or its `environment.files` (an absolute one, with `chmod` as the mode),
`docker.setup` and each grader's `setup` its `environment.setup`, a `deterministic` grader a check
(whose JSON `checks` become its lines), an `llm_rubric` its criteria (one per bullet), `timeout` its
`agent.timeoutSeconds`. File references are read. Everything else is one warning line saying what has
no equivalent and what to do instead (docs/how-to/from-skillgrade.md).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from skill_be.project.agent_models import MAX_INLINE
from skill_be.project.peer_files import (
    Conversion,
    Loc,
    PeerFile,
    file_reference,
    read_reference,
    relative,
    scenario_id,
)

TOP = ("version", "skill", "defaults", "tasks")
WORKSPACE_DIR = "/workspace"  # skillgrade's: a dest under it is a workspace file
WHY = {
    "weight": "skill-be reports each line (a check entry, a criterion) with its own pass rate and gates on "
    "the difference the skill makes, not a weighted score: the weights are dropped",
    "agent": "the agent is the config's model (claude-cli, pi-cli, opencode-cli) in skill-be.yaml",
    "provider": "agent scenarios run in a container per run; agent.sandbox: process runs one on this machine",
    "threshold": "the release gate compares the arms with and without the skill, not a pass rate with a threshold",
    "grader_model": "the judge is the grader of skill-be.yaml",
    "model": "the judge is the grader of skill-be.yaml",
    "environment": "the agent's container has skill-be's limits (2 CPUs, 2 GB); nothing of the host is mounted",
    "env": "the agent's environment holds only its CLI's settings and the provider's key",
    "trialConfig": "skill-be has no per-trial setup or cleanup: each run starts from the same workspace",
    "solution": "skill-be has no reference-solution run (skillgrade --validate)",
    "agentWorkingDir": "the agent works in the workspace's root",
}
OWN_IMAGE = "skill-be builds on its own image (Debian bookworm with Node 22 and the agent CLIs)"


def convert(path: Path, out_dir: Path, taken: set[str] | None = None) -> Conversion:
    """The skill-be eval file of skillgrade's eval.yaml at `path`, with its paths relative to `out_dir`."""
    peer = PeerFile(path, "skillgrade eval file")
    d = peer.mapping(peer.data, [], 'a mapping with "tasks" (skillgrade\'s eval.yaml)')
    for key in d:
        if key not in TOP:
            peer.note([key], f'"{key}" is not part of skillgrade\'s eval.yaml; not converted')
    defaults = peer.mapping(d.get("defaults") or {}, ["defaults"], "a mapping")
    for key in ("agent", "provider", "threshold", "grader_model", "environment", "env", "trialConfig"):
        if key in defaults and not (key == "provider" and defaults[key] == "docker"):
            peer.note(["defaults", key], f"no equivalent: {WHY[key]}", once=key)
    if "trials" in defaults:
        peer.note(["defaults", "trials"], _trials(defaults["trials"]), once="trials")
    tasks = peer.items(d.get("tasks"), ["tasks"], "tasks")
    if not tasks:
        peer.error(["tasks"], "must be a non-empty list of tasks") if "tasks" in d else peer.error(
            [], 'needs "tasks", a list of tasks'
        )
    ids = taken if taken is not None else set()
    scenarios = [_Task(peer, t, i, defaults, out_dir).scenario(ids) for i, t in enumerate(tasks)]
    data = {"$comment": f"converted from skillgrade's {path.name} by skill-be convert", "scenarios": scenarios}
    return Conversion(_skill_dir(peer, d), data, peer.notes)


def _trials(n: object) -> str:
    return f"skill-be's reps are set for the whole project: put reps: {n} in skill-be.yaml (or run --reps {n})"


def _skill_dir(peer: PeerFile, d: dict[str, Any]) -> Path:
    base = peer.path.parent
    if d.get("skill") is None:
        return base
    where = (base / peer.text(d["skill"], ["skill"], "a path to the skill's folder or SKILL.md")).resolve()
    folder = where.parent if where.name == "SKILL.md" else where
    if not (folder / "SKILL.md").is_file():
        peer.error(["skill"], f'"{d["skill"]}" is not a skill folder (no SKILL.md in it); fix the path')
    return folder


class _Task:
    """One task of the eval.yaml as one agent scenario."""

    KNOWN = (
        "name", "instruction", "workspace", "graders", "timeout", "docker", "trials",
        *(k for k in WHY if k != "weight"),
    )  # fmt: skip

    def __init__(self, peer: PeerFile, t: object, i: int, defaults: dict[str, Any], out_dir: Path) -> None:
        self.peer = peer
        self.loc: Loc = ["tasks", i]
        self.t = peer.mapping(t, self.loc, "a task: a mapping with name, instruction and graders")
        self.defaults = defaults
        self.out_dir = out_dir
        self.base = peer.path.parent
        self.setup: list[str] = []
        self.env_files: list[dict[str, str]] = []
        self.check_files: list[str] = []

    def scenario(self, taken: set[str]) -> dict[str, Any]:
        peer, t, loc = self.peer, self.t, self.loc
        name = peer.text(t.get("name"), [*loc, "name"], "the task's name")
        prompt = read_reference(peer, peer.text(t.get("instruction"), [*loc, "instruction"]), [*loc, "instruction"])
        sc: dict[str, Any] = {"id": scenario_id(name, taken), "mode": "agent", "prompt": prompt}
        self.overrides()
        self.docker()
        workspace = self.workspace()
        if workspace:
            sc["workspace"] = workspace
        lines = self.graders()  # before the environment: a grader's setup joins the image's
        environment: dict[str, Any] = {}
        if self.setup:
            environment["setup"] = self.setup
        if self.env_files:
            environment["files"] = self.env_files
        if environment:
            sc["environment"] = environment
        timeout = t.get("timeout", self.defaults.get("timeout"))
        if isinstance(timeout, int) and not isinstance(timeout, bool) and 0 < timeout <= 24 * 3600:
            sc["agent"] = {"timeoutSeconds": timeout}
        sc.update(lines)
        if self.check_files:
            sc["checkFiles"] = self.check_files
        if not any(k in sc for k in ("checks", "criteria", "expect")):
            sc["graded"] = False
            peer.note(loc, "no grader converts to a line: the scenario runs for review (graded: false)")
        return sc

    def overrides(self) -> None:
        for key in self.t:
            if key not in self.KNOWN:
                self.peer.note([*self.loc, key], f'"{key}" is not a key of a skillgrade task; not converted')
            elif key in WHY:
                if key == "provider" and self.t[key] == "docker":
                    continue
                self.peer.note([*self.loc, key], f"no equivalent: {WHY[key]}", once=key)
        if "trials" in self.t:
            self.peer.note([*self.loc, "trials"], _trials(self.t["trials"]), once="task-trials")

    def docker(self) -> None:
        """`docker.setup` (the task's over the defaults') becomes the image's setup; `base` cannot be used."""
        own = self.peer.mapping(self.t.get("docker") or {}, [*self.loc, "docker"], "a mapping with base and setup")
        merged = {**(self.defaults.get("docker") or {}), **own}

        def where(key: str) -> Loc:
            return [*self.loc, "docker", key] if key in own else ["defaults", "docker", key]

        if merged.get("setup"):
            setup = read_reference(self.peer, self.peer.text(merged["setup"], where("setup")), where("setup"))
            self.setup.append(setup)
        base = merged.get("base")
        if isinstance(base, str) and base.strip():
            fix = (
                "which has Node"
                if base.startswith("node:")
                else "install what the agent needs from it in environment.setup"
            )
            words = f"{OWN_IMAGE}: {base} is not used; {fix}"
            self.peer.note(where("base"), words, once=f"base:{base}")

    def workspace(self) -> dict[str, Any]:
        """The merged workspace entries (the task's win over the defaults' with the same dest)."""
        merged: dict[str, tuple[Loc, Any]] = {}
        sources: list[tuple[Loc, Any]] = [
            (["defaults", "workspace"], self.defaults.get("workspace")),
            ([*self.loc, "workspace"], self.t.get("workspace")),
        ]
        for where, entries in sources:
            for j, w in enumerate(self.peer.items(entries, where, "workspace entries")):
                dest = PurePosixPath(w).name if isinstance(w, str) else (w.get("dest") if isinstance(w, dict) else None)
                merged[str(dest) if dest is not None else f"#{where}{j}"] = ([*where, j], w)
        out: dict[str, Any] = {}
        for loc, w in merged.values():
            self.entry(loc, w, out)
        return out

    def entry(self, loc: Loc, w: Any, out: dict[str, Any]) -> None:
        peer = self.peer
        if isinstance(w, str):
            w = {"src": w, "dest": PurePosixPath(w).name}
        w = peer.mapping(w, loc, "a workspace entry: {src or content, dest, chmod}")
        dest = peer.text(w.get("dest"), [*loc, "dest"], "the dest path")
        if dest.startswith(WORKSPACE_DIR + "/"):
            dest = dest.removeprefix(WORKSPACE_DIR + "/")
        chmod = w.get("chmod")
        if dest.startswith("/"):
            self.image_file(loc, w, dest, chmod)
            return
        if chmod is not None:
            peer.note([*loc, "chmod"], "chmod on a workspace file: no equivalent (the workspace keeps no modes); "
                      "the agent can run it with sh, or place it with environment.files", once="ws-chmod")  # fmt: skip
        if w.get("content") is not None:
            out.setdefault("files", {})[dest] = str(w["content"])
            return
        src = self.source(loc, w)
        self.workspace_source(loc, src, dest, out)

    def source(self, loc: Loc, w: dict[str, Any]) -> Path:
        src = self.peer.text(w.get("src"), [*loc, "src"], "src (a path beside eval.yaml) or content")
        full = self.base / src
        if not full.exists():
            self.peer.error([*loc, "src"], f'"{src}" does not exist beside {self.peer.path.name}; fix the path')
        return full

    def image_file(self, loc: Loc, w: dict[str, Any], dest: str, chmod: object) -> None:
        if w.get("content") is not None:
            self.peer.note([*loc, "content"], "inline content at an absolute dest: no equivalent; write it to a file "
                           "beside the eval file and list it in environment.files")  # fmt: skip
            return
        entry = {"src": relative(self.source(loc, w), self.out_dir), "dest": dest}
        if chmod is not None:
            entry["mode"] = str(chmod)
        self.env_files.append(entry)

    def workspace_source(self, loc: Loc, src: Path, dest: str, out: dict[str, Any]) -> None:
        """A file or folder for the workspace: its text inline at `dest`, or copied with `from`."""
        clean = PurePosixPath(dest)
        if str(clean) in (".", "") and src.is_dir():
            out.setdefault("from", []).append(relative(src, self.out_dir))
            return
        texts = _texts(src, str(clean))
        if texts is not None:
            out.setdefault("files", {}).update(texts)
        elif src.is_file() and clean.name == src.name and len(clean.parts) == 1:
            out.setdefault("from", []).append(relative(src, self.out_dir))
        else:
            self.peer.note(loc, f'"{dest}": no equivalent for a file that is not small UTF-8 text at a path other '
                           "than its name; copy it into a folder laid out as the workspace and add it to workspace.from")  # fmt: skip

    def graders(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        graders = self.peer.items(self.t.get("graders"), [*self.loc, "graders"], "graders")
        runs = sum(1 for g in graders if isinstance(g, dict) and g.get("type") == "deterministic")
        for j, g in enumerate(graders):
            loc: Loc = [*self.loc, "graders", j]
            g = self.peer.mapping(g, loc, "a grader: a mapping with type")
            if "weight" in g:
                self.peer.note([*loc, "weight"], WHY["weight"], once="weight")
            if "model" in g:
                self.peer.note([*loc, "model"], f"no equivalent: {WHY['model']}", once="model")
            kind = g.get("type")
            if kind == "deterministic":
                name = "grader" if runs == 1 else f"grader {len(out.get('checks', [])) + 1}"
                out.setdefault("checks", []).append({"name": name, "run": self.check_command(g, loc)})
                if g.get("setup"):
                    self.grader_setup(g, loc)
            elif kind == "llm_rubric":
                rubric = read_reference(self.peer, self.peer.text(g.get("rubric"), [*loc, "rubric"]), [*loc, "rubric"])
                out.setdefault("criteria", []).extend(rubric_lines(rubric))
            elif kind == "tool_usage":
                self.tool_usage(g, loc, out)
            else:
                self.peer.note([*loc, "type"], f'grader type "{kind}": no equivalent; not converted')
        return out

    def check_command(self, g: dict[str, Any], loc: Loc) -> str:
        run = self.peer.text(g.get("run"), [*loc, "run"], "the grader's command (run)")
        ref = file_reference(run, self.base)
        if ref is not None:  # the script itself: run it from the check files
            self.check_files.append(relative(ref, self.out_dir))
            return f"bash $CHECKS/{ref.name}"
        words = []
        for word in run.strip().split(" ") if "\n" not in run.strip() else []:
            full = self.base / word
            top = PurePosixPath(word).parts[0] if word and not word.startswith(("/", "-", "$")) else ""
            if top and top != ".." and full.exists():
                entry = relative(self.base / top, self.out_dir)
                if entry not in self.check_files:
                    self.check_files.append(entry)
                word = f"$CHECKS/{word}"
            words.append(word)
        if words:
            return " ".join(words)
        return _heredoc(run.strip())

    def grader_setup(self, g: dict[str, Any], loc: Loc) -> None:
        setup = read_reference(self.peer, self.peer.text(g["setup"], [*loc, "setup"]), [*loc, "setup"])
        self.setup.append(setup)
        if "npm install" in setup and " -g" not in setup:
            self.peer.note([*loc, "setup"], "setup runs in environment.setup, when the image is built: a local npm "
                           "install there does not reach the workspace; install globally (npm install -g)")  # fmt: skip

    def tool_usage(self, g: dict[str, Any], loc: Loc, out: dict[str, Any]) -> None:
        names = [e.get("name") for e in self.peer.items(g.get("expectedTools"), [*loc, "expectedTools"], "tools")]
        names = [n for n in names if isinstance(n, str) and n.strip()]
        if not names:
            self.peer.note(loc, "tool_usage without expectedTools names: not converted")
            return
        called = out.setdefault("expect", {}).setdefault("tools", {}).setdefault("called", [])
        called.extend(n for n in names if n not in called)
        self.peer.note([*loc, "expectedTools"], "expect.tools.called takes skill-be's tool names (shell, read, write, "
                       "edit, skill, mcp:<server>/<tool>, or the CLI's own): check these names")  # fmt: skip


def rubric_lines(rubric: str) -> list[str]:
    """A rubric's criteria: each bullet or numbered item is one; a rubric without any is one criterion.
    Point ranges such as "(0-0.5)" go: each criterion is judged yes or no."""
    import re

    items = [m.group(1).strip() for m in re.finditer(r"^\s*(?:[-*•]|\d+[.)])\s+(.+)$", rubric, re.M)]
    return [i for i in items if i] or [" ".join(rubric.split())]


def _heredoc(script: str) -> str:
    """A multi-line grader script as one check command: bash reads it from a here-document."""
    mark = "SKILLGRADE_GRADER"
    while mark in script:
        mark += "_"
    return f"bash <<'{mark}'\n{script}\n{mark}"


def _texts(src: Path, dest: str) -> dict[str, str] | None:
    """The workspace files of `src` at `dest` as inline text, when every one is small UTF-8 text."""
    pairs = [(dest, src)] if src.is_file() else [
        (f"{dest}/{p.relative_to(src).as_posix()}" if dest not in ("", ".") else p.relative_to(src).as_posix(), p)
        for p in sorted(src.rglob("*")) if p.is_file()
    ]  # fmt: skip
    out: dict[str, str] = {}
    total = 0
    for rel, p in pairs:
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        total += len(text)
        if len(text) > MAX_INLINE or total > 4 * MAX_INLINE:
            return None
        out[rel] = text
    return out or None
