"""Times `skill-be check` on a skill with 30 TypeScript blocks against one `tsc --noEmit` run over
the same code written to files, in the same run. Prints both medians and the ratio (target <= 1.5).

    python bench/check_typecheck.py [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from skill_be.checks.typescript import find_typescript

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "checks" / "tiny-money"
BLOCKS = 30


def block(i: int) -> str:
    return (
        "import { Money, sum, type Currency } from 'tiny-money';\n\n"
        f"function total{i}(prices: number[], currency: Currency): string {{\n"
        f"  const lines = prices.map((p) => Money.of(p, currency).multiply({i % 5 + 1}));\n"
        "  const [a, b] = sum(lines, currency).allocate([1, 1]);\n"
        "  return a.add(b).format('en-GB');\n"
        "}\n"
    )


def build(root: Path) -> None:
    shutil.copytree(FIXTURE, root)
    config = root / "skill-be.yaml"
    head = config.read_text().split("checks:")[0]
    config.write_text(head + "checks:\n  typecheck:\n    library: ./lib/index.ts\n")
    parts = ["---\nname: money\ndescription: Thirty examples.\n---\n\n# Many examples\n"]
    parts += [f"\n## Example {i}\n\n```ts\n{block(i)}```\n" for i in range(BLOCKS)]
    (root / "skills" / "money" / "SKILL.md").write_text("".join(parts))
    files = root / "tsc"
    files.mkdir()
    for i in range(BLOCKS):
        (files / f"block{i}.ts").write_text(block(i) + "export {};\n")
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",'
        ' "lib": ["es2023"], "strict": true, "noImplicitAny": false, "skipLibCheck": true, "noEmit": true,'
        ' "types": [], "paths": {"tiny-money": ["./lib/index.ts"]}}, "include": ["tsc/*.ts", "lib/*.ts"]}\n'
    )


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "bench"
        build(root)
        ts = find_typescript(root, lambda line: print(line, file=sys.stderr))
        tsc = [ts.node, str(ts.module_dir / "lib" / "tsc.js"), "-p", "tsconfig.json"]
        check = [sys.executable, "-m", "skill_be", "check"]
        timed(check, root)  # warm the file cache for both
        timed(tsc, root)
        ours, theirs = [], []
        for _ in range(runs):  # interleaved, so load on the machine hits both alike
            ours.append(timed(check, root))
            theirs.append(timed(tsc, root))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"TypeScript {ts.version}, {BLOCKS} blocks, median of {runs} runs each")
    print(f"skill-be check:  {a:.2f} s")
    print(f"tsc --noEmit:    {b:.2f} s")
    print(f"ratio:           {a / b:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
