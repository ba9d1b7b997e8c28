"""CLI start-up: how long an agent waits for a ``vaultmem`` process, against bare Python.

    python ../shared/bench/gen_vault.py /tmp/v10k --notes 10000
    vaultmem init /tmp/v10k && vaultmem index --vault /tmp/v10k
    python bench/cli_bench.py /tmp/v10k --runs 30

Prints the median and p95 wall time over ``--runs`` runs of each of: a bare
``python -c "import sqlite3, json"`` (the floor every Python CLI pays), ``vaultmem
--version``, and keyword ``vaultmem search WORD --vault VAULT``, and each one's ratio to
the bare start-up; also the median CPU time (user + system) and its ratio, which a busy
neighbour disturbs far less than the wall time. The commands take turns, run after run,
so a busy neighbour on the machine slows all of them alike and the ratios stay fair.
Byte-compiled files are allowed (``PYTHONDONTWRITEBYTECODE`` is dropped), as in an
installed package; one warm-up run of each comes first. The word searched for is the
first of the vault's ``queries.txt`` (rare: few hits, so the figure is start-up);
``--word the`` shows a costly query instead. With ``--click``, the same search read by
the click command too (``vaultmem.cli:cli``: what reading a plain search without click
saves). With ``--imports``, prints the slowest imports of each command (``python -X
importtime``). With ``--baseline DIR`` (a checkout
of an older commit, e.g. ``git worktree add --detach /tmp/old COMMIT``), that checkout's
``--version`` and search take turns with the others, run as ``python -P -c`` with
``PYTHONPATH=DIR`` (the same interpreter and libraries; ``-P``: not the current folder's
``vaultmem/`` instead).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BARE = "import sqlite3, json"


def vaultmem_exe() -> str:
    beside = Path(sys.executable).parent / "vaultmem"
    return str(beside) if beside.exists() else shutil.which("vaultmem") or "vaultmem"


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    return env


# What the console script runs: ``main`` (a plain search without click), or, in a
# checkout older than it, the click group.
CLI = """import sys
try:
    from vaultmem.cli import main
except ImportError:
    from vaultmem.cli import cli as main
sys.exit(main())"""
# The click group, whatever the command line.
CLICK = "from vaultmem.cli import cli; cli()"


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def slowest_imports(argv: list[str], env: dict[str, str], top: int = 12) -> list[str]:
    """The ``top`` imports with the largest cumulative time, as ``python -X importtime``
    reports them for this command."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], capture_output=True, text=True, env=env
    )
    rows = []
    for line in run.stderr.splitlines():
        found = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if found:
            rows.append((int(found[2]), len(found[3]) // 2, found[4]))
    rows.sort(reverse=True)
    return [f"{us / 1000:7.1f} ms  {'  ' * depth}{name}" for us, depth, name in rows[:top]]


def first_query(vault: Path) -> str:
    """The first query of a generated vault's ``queries.txt`` (a rare word: the time is
    start-up, not ranking), else a common one."""
    queries = vault / "queries.txt"
    if queries.exists():
        return queries.read_text(encoding="utf-8").split("\t", 1)[0].strip()
    return "project"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--word", help="the keyword searched for (default: the first of the vault's queries.txt)"
    )
    parser.add_argument("--click", action="store_true", help="the same search read by click, too")
    parser.add_argument("--imports", action="store_true", help="show the slowest imports")
    parser.add_argument(
        "--baseline", type=Path, help="a checkout of another commit to run in turns with this one"
    )
    args = parser.parse_args()
    if (args.vault / ".vaultmem" / "vectors.db").exists():
        sys.exit("the vault has vectors: search would be hybrid; use a vault without them")
    word = args.word or first_query(args.vault)
    env = environment()
    exe = vaultmem_exe()
    search = ["search", word, "--vault", str(args.vault)]
    commands = {
        "bare python": ([sys.executable, "-c", BARE], env),
        "vaultmem --version": ([exe, "--version"], env),
        f"vaultmem search {word}": ([exe, *search], env),
    }
    if args.click:
        commands[f"search {word} by click"] = ([sys.executable, "-c", CLICK, *search], env)
    if args.baseline:
        old = {**env, "PYTHONPATH": str(args.baseline.resolve())}
        baseline = [sys.executable, "-P", "-c", CLI]
        commands["baseline --version"] = ([*baseline, "--version"], old)
        commands[f"baseline search {word}"] = ([*baseline, *search], old)
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for argv, command_env in commands.values():
        run_once(argv, command_env)  # warm-up: writes .pyc files, fills the page cache
    for _ in range(args.runs):
        for name, (argv, command_env) in commands.items():
            wall, used = run_once(argv, command_env)
            times[name].append(wall)
            cpu[name].append(used)
    bare = statistics.median(times["bare python"])
    bare_cpu = statistics.median(cpu["bare python"])
    print(f"{args.runs} runs each, taking turns; vault {args.vault}")
    for name, values in times.items():
        median, median_cpu = statistics.median(values), statistics.median(cpu[name])
        print(
            f"{name:32} p50 {median * 1000:6.1f} ms  p95 {p95(values) * 1000:6.1f} ms  "
            f"{median / bare:4.2f}x bare  (CPU p50 {median_cpu * 1000:6.1f} ms, "
            f"{median_cpu / bare_cpu:4.2f}x)"
        )
    if args.imports:
        module = [sys.executable, "-c", CLI]
        for name, (argv, _) in list(commands.items())[1:3]:
            print(f"\nslowest imports of {name} (cumulative, one run):")
            print("\n".join(slowest_imports([*module[1:], *argv[1:]], env)))


if __name__ == "__main__":
    main()
