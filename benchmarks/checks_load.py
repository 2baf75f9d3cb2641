"""The checks service under a class's load: the latency of one check and the throughput with 30 students at once.

    .venv/bin/python benchmarks/checks_load.py [--students 30] [--rounds 3] [--single 20] [--out FILE.md]

A real JupyterHub runs the real service on a copy of the course (hub/checks_trial.py: each student holds their
own API token), over HTTP on 127.0.0.1. First one student checks ``--single`` times in a row (the latency of
one check, the service otherwise idle); then ``--students`` students each send their own ``code`` notebook at
the same moment, ``--rounds`` times (every request's latency, and checks per second from the first request sent
to the last answer). Every answer is checked to be its sender's: a wrong one stops the benchmark.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import browser as b  # noqa: E402

from hub.checks_trial import checks_hub, variant  # noqa: E402


def timed(trial, who: str, notebook: bytes) -> float:
    started = time.perf_counter()
    status, shown = trial.ask(who, notebook)
    if status != 200 or shown.get("user") != who:
        raise SystemExit(f"{who} got {status} {str(shown)[:300]}")
    return time.perf_counter() - started


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--single", type=int, default=20)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "checks_results.md")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="rm-checks-load-"))
    course = scratch / "course"
    b.copy_course(REPO, course)
    (course / "checks.toml").write_text("[defaults]\nattempts = 100000\n")
    students = [f"s{i:02d}" for i in range(args.students)]
    notebooks = {name: variant(i % 32) for i, name in enumerate(students)}
    try:
        with checks_hub(course, students, "teacher", scratch) as trial:
            timed(trial, students[0], notebooks[students[0]])  # the first request of a worker: not counted
            single = [timed(trial, students[0], notebooks[students[0]]) for _ in range(args.single)]
            loaded, rates = [], []
            with ThreadPoolExecutor(len(students)) as pool:
                for _ in range(args.rounds):
                    started = time.perf_counter()
                    loaded += list(pool.map(lambda who: timed(trial, who, notebooks[who]), students))
                    rates.append(len(students) / (time.perf_counter() - started))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    lines = [
        "# Checks under load (benchmarks/checks_load.py)",
        "",
        f"Machine: {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at the end: other work shares it), "
        f"{platform.python_implementation()} {platform.python_version()}; "
        f"the service's workers: one per core; notebooks: `code` (5 questions, 67 points), each student's own.",
        "",
        "| what | median | p95 | checks per second |",
        "|---|---|---|---|",
        f"| one check, service idle ({len(single)} in a row) | {statistics.median(single):.2f} s | {p95(single):.2f} s "
        f"| {1 / statistics.mean(single):.2f} |",
        f"| {args.students} students at once ({args.rounds} rounds, {len(loaded)} checks) | "
        f"{statistics.median(loaded):.2f} s | {p95(loaded):.2f} s | {statistics.median(rates):.2f} |",
        "",
        f"The last answer of a burst of {args.students} came {args.students / statistics.median(rates):.1f} s after "
        "the burst was sent (median of the rounds); every answer was its sender's.",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
