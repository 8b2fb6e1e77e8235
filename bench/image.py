"""The skill-be images: their sizes, what a runner pulls, and `docker run ... verify` against `skill-be
verify` on the host.

    python bench/image.py [--reps 15] [--example durations] [--image T] [--verify-image T] [--no-start-up]

Needs the images that .ci/steps/40-docker.sh builds (skill-be:<version>, skill-be-verify:<version>,
skill-be-sandbox:<version>). Prints:
- what a runner pulls for the action: each image's size and compressed size (its layers gzipped at
  gzip's default level, as a registry stores them, from `docker save`), before (the full image, what
  a pull request's `verify` job pulled when it was the action's image) and after (the verify image),
  the ratio, and what a `run` job pulls on top of the verify image (the full image's own layers);
- the size of both images, and the installed size of the agent CLIs in the skill-be image
  (/opt/agent-clis), each CLI's package and Copilot CLI's unpacked cache; targets: the skill-be image at most the CLIs + 300 MB, the sandbox under 250 MB;
- the wall time of `verify` on a copy of examples/<example> (its demo run first writes the result
  file), interleaved so that machine load hits all alike: `skill-be verify` on the host, `docker
  run --rm --network none -v ...:/src -w /src skill-be:<version> verify` on a root-owned folder,
  and the same on a folder owned by uid 1234 (after skill-be, the launcher walks the folder to give
  root's new files to that uid). Medians, and the difference to the host; target within 1.0 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tarfile
import tempfile
import time
import zlib
from pathlib import Path

from skill_be import __version__

REPO = Path(__file__).resolve().parents[1]
IMAGE = f"skill-be:{__version__}"
VERIFY = f"skill-be-verify:{__version__}"
SANDBOX = f"skill-be-sandbox:{__version__}"
MB = 1_000_000  # docker's MB
CLI_BUDGET_MB = 300
SANDBOX_LIMIT_MB = 250
START_TARGET_S = 1.0


def docker(*args: str) -> str:
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=True).stdout.strip()


def sizes() -> None:
    image = int(docker("image", "inspect", "-f", "{{.Size}}", IMAGE)) / MB
    sandbox = int(docker("image", "inspect", "-f", "{{.Size}}", SANDBOX)) / MB
    du = docker("run", "--rm", "--network", "none", "--entrypoint", "du", IMAGE, "-sb", "/opt/agent-clis")
    clis = int(du.split()[0]) / MB
    print(
        f"{SANDBOX:32} {sandbox:8.0f} MB   target < {SANDBOX_LIMIT_MB} MB: {'met' if sandbox < SANDBOX_LIMIT_MB else 'MISSED'}"
    )
    print(f"{IMAGE:32} {image:8.0f} MB")
    print(f"{'  the agent CLIs':32} {clis:8.0f} MB")
    for name, size in per_cli():
        print(f"{'    ' + name:32} {size:8.1f} MB")
    rest = image - clis
    verdict = "met" if rest <= CLI_BUDGET_MB else "MISSED"
    print(f"{'  everything else':32} {rest:8.0f} MB   target <= {CLI_BUDGET_MB} MB: {verdict}")


# Each CLI's package in the image, and Copilot CLI's cache (unpacked at build time).
PER_CLI = (
    "cd /opt/agent-clis/lib/node_modules && for d in $(ls -d @*/* [a-z]*) /opt/agent-clis/copilot-cache; do "
    'du -sb "$d"; done'
)


def per_cli() -> list[tuple[str, float]]:
    out = docker("run", "--rm", "--network", "none", "--entrypoint", "sh", IMAGE, "-c", PER_CLI)
    rows = [line.split("\t", 1) for line in out.splitlines() if "\t" in line]
    return [(path.removeprefix("/opt/agent-clis/"), int(size) / MB) for size, path in rows]


def project(top: Path, example: str, owner: int | None) -> Path:
    root = top / example
    shutil.copytree(REPO / "examples" / example, root, ignore=shutil.ignore_patterns(".skill-be", "node_modules"))
    done = subprocess.run(
        ["skill-be", "run", "--config", "skill-be.demo.yaml"], cwd=root, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"the demo run of {example} failed:\n{done.stdout}\n{done.stderr}")
    if owner is not None:
        for folder, dirs, files in os.walk(root):
            os.chown(folder, owner, owner)
            for name in files + dirs:
                os.lchown(os.path.join(folder, name), owner, owner)
    return root


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return took


def start_up(example: str, reps: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-image-") as tmp:
        root_owned = project(Path(tmp) / "root", example, None)
        user_owned = project(Path(tmp) / "user", example, 1234)
        verify = ["verify", "--config", "skill-be.demo.yaml"]
        cases = {
            "host: skill-be verify": (["skill-be", *verify], root_owned),
            "docker run verify (root-owned)": (
                [
                    "docker",
                    "run",
                    "--rm",
                    "--network",
                    "none",
                    "-v",
                    f"{root_owned}:/src",
                    "-w",
                    "/src",
                    IMAGE,
                    *verify,
                ],
                root_owned,
            ),
            "docker run verify (uid 1234)": (
                [
                    "docker",
                    "run",
                    "--rm",
                    "--network",
                    "none",
                    "-v",
                    f"{user_owned}:/src",
                    "-w",
                    "/src",
                    IMAGE,
                    *verify,
                ],
                user_owned,
            ),
        }
        for argv, cwd in cases.values():  # warm the page cache and the engine
            timed(argv, cwd)
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(reps):
            for name, (argv, cwd) in cases.items():
                times[name].append(timed(argv, cwd))
    host = statistics.median(times["host: skill-be verify"])
    print(f"\n`verify` on examples/{example}, median of {reps}, interleaved:")
    for name, values in times.items():
        med = statistics.median(values)
        diff = med - host
        line = f"{name:34} {med:6.3f} s   +{diff:5.3f} s over the host   x{med / host:4.2f}"
        if name != "host: skill-be verify":
            line += f"   target within {START_TARGET_S:.1f} s: {'met' if diff <= START_TARGET_S else 'MISSED'}"
        print(line)


def layer_sizes(*images: str) -> dict[str, list[tuple[str, int, int]]]:
    """Each image's layers as (layer, size, gzipped size), from one `docker save` of all of them (a
    layer two images share is the same entry)."""
    with tempfile.TemporaryDirectory(prefix="bench-image-save-") as tmp:
        archive = Path(tmp) / "images.tar"
        subprocess.run(["docker", "save", "-o", str(archive), *images], check=True)
        with tarfile.open(archive) as tar:
            manifest = json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]
            sized: dict[str, tuple[int, int]] = {}
            for entry in manifest:
                for layer in entry["Layers"]:
                    if layer not in sized:
                        sized[layer] = gzipped(tar, layer)
    by_tag = {tag: entry["Layers"] for entry in manifest for tag in entry.get("RepoTags") or []}
    return {image: [(layer, *sized[layer]) for layer in by_tag[image]] for image in images}


def gzipped(tar: tarfile.TarFile, member: str) -> tuple[int, int]:
    """A layer's size and its size gzipped at level 6 (gzip's default, and a registry's)."""
    source = tar.extractfile(member)
    assert source is not None
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    raw = packed = 0
    while chunk := source.read(1 << 20):
        raw += len(chunk)
        packed += len(packer.compress(chunk))
    return raw, packed + len(packer.flush())


def pulled(full: str, verify: str) -> None:
    layers = layer_sizes(full, verify)
    mine = {layer for layer, _, _ in layers[verify]}
    total = {image: (sum(s for _, s, _ in rows), sum(z for _, _, z in rows)) for image, rows in layers.items()}
    extra = [(s, z) for layer, s, z in layers[full] if layer not in mine]
    print("\nWhat a runner pulls for the action (layers gzipped as a registry stores them):")
    print(f"{'before: ' + full:44} {total[full][0] / MB:7.0f} MB   {total[full][1] / MB:7.0f} MB compressed")
    print(f"{'after:  ' + verify:44} {total[verify][0] / MB:7.0f} MB   {total[verify][1] / MB:7.0f} MB compressed")
    print(
        f"{'  verify job, after / before':44} x{total[verify][0] / total[full][0]:6.3f}"
        f"      x{total[verify][1] / total[full][1]:6.3f} compressed"
    )
    shared = sum(z for layer, _, z in layers[full] if layer in mine)
    print(
        f"{'  run job: the full image on top of verify':44} {sum(s for s, _ in extra) / MB:7.0f} MB   "
        f"{sum(z for _, z in extra) / MB:7.0f} MB compressed ({shared / MB:.0f} MB compressed shared)"
    )


def main() -> None:
    global IMAGE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--example", default="durations")
    parser.add_argument("--image", default=IMAGE, help="the full image")
    parser.add_argument("--verify-image", default=VERIFY)
    parser.add_argument("--no-start-up", action="store_true", help="sizes only")
    args = parser.parse_args()
    IMAGE = args.image
    sizes()
    pulled(args.image, args.verify_image)
    if not args.no_start_up:
        start_up(args.example, args.reps)


if __name__ == "__main__":
    main()
