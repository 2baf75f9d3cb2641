"""``make bench``: reading-maths against stock nbgrader and the in-process floor on all four assignments, a
whole-batch profile of each, and a scaling table; writes ``benchmarks/results.md`` and prints it.

    .venv/bin/python benchmarks/bench.py                                   # the full run (about 40 minutes)
    .venv/bin/python benchmarks/bench.py --students 6 --sizes 10 20 --repeat 1 --otter 2 --out /tmp/bench.md
                                                                           # a quick check of every step

For each assignment: a synthetic class (:mod:`synthetic`), graded by ``reading-maths autograde A --jobs 2``
and by stock ``nbgrader autograde A --create --force`` (nbgrader as it ships: the hidden test cells run
in its own kernels, :mod:`classroom.stock`) on two copies; every score compared; for ``code``, a loop of
``otter run`` on the first ``--otter`` submissions too; the in-process floor of the same class (:mod:`floor`:
each notebook's cells and the graders in one warm process on one core, no isolation, no recording), against
which each run's core time per notebook is set; then the whole batch profiled in one process
(:mod:`profile_batch`).
Scaling: ``code`` classes of each size, ``--jobs 1`` and ``2`` taking turns ``--repeat`` times (the fastest
of each kept: this machine's noise only ever adds time), wall time, core time and peak memory, and the
straight line through them.

Core time: the user and system CPU of the command and of every process under it: ``getrusage`` of this
process's children around the run (the command, its pool workers, nbgrader's and Otter's kernels, each counted
when its parent reaps it), plus, for reading-maths, its sandboxed children and fork servers, which are reaped
inside their sandboxes and so never reach ``getrusage``: read from ``/proc`` as each is stopped
(:mod:`sandbox_cpu`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import report  # noqa: E402
import synthetic  # noqa: E402

ASSIGNMENTS = ("code", "notation", "matching", "proofs")

# The CLI's own entry point in a process that then reports its peak memory and its pool workers', and the CPU of
# its sandboxed processes, which its getrusage does not hold (sandbox_cpu.py).
MEASURED_CLI = r"""
import resource, sys
from reading_maths.cli import main
sys.path.insert(0, sys.argv.pop(1))
import sandbox_cpu
sandboxed = sandbox_cpu.counting()
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    kb = lambda who: resource.getrusage(who).ru_maxrss
    print("PEAK", kb(resource.RUSAGE_SELF), kb(resource.RUSAGE_CHILDREN), file=sys.stderr)
    print("SANDBOXED", sandboxed.value, file=sys.stderr)
"""


def core_seconds() -> float:
    """User and system CPU seconds of this process's reaped children (and theirs) so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(cmd: list[str], course: Path) -> tuple[float, float, str]:
    """Run ``cmd`` in ``course``: its wall time, its core time (it and every process under it) and its stderr."""
    start, cpu = time.perf_counter(), core_seconds()
    done = subprocess.run(cmd, cwd=course, env=synthetic.env_for(course), capture_output=True, text=True, check=False)
    elapsed, used = time.perf_counter() - start, core_seconds() - cpu
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, used, done.stderr


def ours(course: Path, assignment: str, jobs: int) -> dict:
    """``reading-maths autograde A --jobs N``: wall and core time (the sandboxed processes' included, and apart),
    peak RSS of the driver and of the largest worker."""
    wall, cpu, err = run([sys.executable, "-c", MEASURED_CLI, str(HERE), "autograde", assignment, "--jobs",
                          str(jobs)], course)
    said = {line.split()[0]: line.split()[1:] for line in err.splitlines() if line.startswith(("PEAK ", "SANDBOXED "))}
    sandboxed = float(said["SANDBOXED"][0])
    return {"wall": wall, "cpu": cpu + sandboxed, "sandboxed_cpu": sandboxed,
            "driver_mb": int(said["PEAK"][0]) / 1024, "worker_mb": int(said["PEAK"][1]) / 1024}


def stock(course: Path, assignment: str) -> dict:
    wall, cpu, _ = run([str(synthetic.BIN / "nbgrader"), "autograde", assignment, "--create", "--force"], course)
    return {"wall": wall, "cpu": cpu}


def floor(course: Path, assignment: str) -> dict:
    """The in-process floor of the class (:mod:`floor`): CPU seconds per notebook, and each notebook's scores."""
    done = subprocess.run([sys.executable, str(HERE / "floor.py"), str(course), assignment], cwd=course,
                          env=synthetic.env_for(course), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def otter(course: Path, assignment: str, sample: int, tmp: Path) -> dict:
    """A loop of ``otter run`` (one process per notebook, as from a shell) on the first ``sample`` submissions,
    with an autograder zip built as ``tests/test_otter_agreement.py`` builds it (``otter generate``, not timed):
    seconds per notebook and each notebook's scores."""
    staging = tmp / "otter" / "staging"
    for name in ("source", "graders"):
        shutil.copytree(course / name / assignment, staging / name / assignment)
    shutil.copy(course / "course-secret.key", staging)  # the same hidden random inputs as the batch drew
    zip_path = tmp / "otter" / "autograder.zip"
    subprocess.run([str(synthetic.BIN / "otter"), "generate", "-t", str(course / "graders" / assignment),
                    "-o", str(zip_path), "--no-config", "--no-requirements", "--no-environment", "source", "graders",
                    "course-secret.key"],
                   cwd=staging, env=synthetic.env_for(course), capture_output=True, check=True)
    students = sorted(p.name for p in (course / "submitted").iterdir())[:sample]
    found, walls, cpus = {}, [], []
    for student in students:
        out = tmp / "otter" / "out" / student
        out.mkdir(parents=True)
        nb = course / "submitted" / student / assignment / f"{assignment}.ipynb"
        wall, cpu, _ = run([str(synthetic.BIN / "otter"), "run", str(nb), "-a", str(zip_path), "-o", str(out),
                            "--no-logo"], out)
        walls.append(wall)
        cpus.append(cpu)
        tests = json.loads((out / "results.json").read_text())["tests"]
        found[student] = {t["name"]: t["score"] for t in tests if "score" in t}
    return {"sample": len(students), "per_submission": sum(walls) / len(walls),
            "cpu_per_submission": sum(cpus) / len(cpus), "scores": found}


def scores(course: Path, assignment: str) -> dict[str, dict[str, float | None]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {s.student_id: {g.name: g.score for nb in s.notebooks for g in nb.grades}
                for s in gb.find_assignment(assignment).submissions}


def profile(course: Path, assignment: str) -> dict:
    done = subprocess.run([sys.executable, str(HERE / "profile_batch.py"), str(course), assignment], cwd=course,
                          env=synthetic.env_for(course), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def compare(a: dict, b: dict, theirs: str = "nbgrader") -> list[str]:
    problems = []
    for student in sorted(set(a) | set(b)):
        for q in sorted(set(a.get(student, {})) | set(b.get(student, {}))):
            x, y = a.get(student, {}).get(q), b.get(student, {}).get(q)
            if x is None or y is None or abs(x - y) > 1e-6:
                problems.append(f"{student}/{q}: reading-maths {x} vs {theirs} {y}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 300, 1000])
    parser.add_argument("--assignments", nargs="*", default=list(ASSIGNMENTS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each scaling point (the fastest is kept)")
    parser.add_argument("--otter", type=int, default=10, help="code submissions also graded by `otter run` (0: none)")
    parser.add_argument("--out", type=Path, default=HERE / "results.md")
    parser.add_argument("--keep", action="store_true", help="keep the temporary courses (path printed)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="reading-maths-bench-"))
    print(f"working in {tmp}", file=sys.stderr)
    data: dict = {"ratios": {}, "floors": {}, "profiles": {}, "scaling": [], "load": [], "mismatches": {}}
    try:
        for a in args.assignments:
            print(f"{a}: class of {args.students} ...", file=sys.stderr)
            base = synthetic.make_class(tmp / a / "base", a, args.students)
            mine, theirs, prof = (synthetic.clone(base, tmp / a / name, stock=name == "nbgrader")
                                  for name in ("ours", "nbgrader", "profile"))
            data["load"].append(os.getloadavg()[0])
            r = ours(mine, a, args.jobs)
            s = stock(theirs, a)
            data["mismatches"][a] = compare(scores(mine, a), scores(theirs, a))
            data["ratios"][a] = {"students": args.students, "jobs": args.jobs, "ours": r, "nbgrader": s}
            print(f"  reading-maths {r['wall']:.1f} s, nbgrader {s['wall']:.1f} s", file=sys.stderr)
            if a == "code" and args.otter:
                o = otter(synthetic.clone(base, tmp / a / "otter"), a, args.otter, tmp / a)
                graded = scores(mine, a)
                o["mismatches"] = compare({st: graded.get(st, {}) for st in o["scores"]}, o["scores"], "otter")
                data["otter"] = o
                print(f"  otter run {o['per_submission']:.2f} s per submission", file=sys.stderr)
            data["load"].append(os.getloadavg()[0])
            f = floor(base, a)
            found = {st: qs for st, qs in f.pop("scores").items() if qs is not None}
            graded = scores(mine, a)  # the floor's scores beside the batch's: the same work was done
            f["mismatches"] = compare({st: {q: graded.get(st, {}).get(q) for q in qs} for st, qs in found.items()},
                                      found, "the floor")
            data["floors"][a] = f
            print(f"  floor {1000 * f['mean']:.0f} ms per notebook (in-process, one core); reading-maths "
                  f"{1000 * r['cpu'] / args.students:.0f} ms of core time", file=sys.stderr)
            data["profiles"][a] = profile(prof, a)
        for n in args.sizes:
            base = synthetic.make_class(tmp / f"scale{n}" / "base", "code", n)
            fastest: dict[int, dict] = {}
            for _ in range(args.repeat):  # --jobs 1 and 2 taking turns, the fastest of each kept
                for jobs in (1, 2):
                    copy = synthetic.clone(base, tmp / f"scale{n}" / f"jobs{jobs}")
                    data["load"].append(os.getloadavg()[0])
                    r = ours(copy, "code", jobs)
                    print(f"scaling: {n} x jobs {jobs}: {r['wall']:.1f} s", file=sys.stderr)
                    if jobs not in fastest or r["wall"] < fastest[jobs]["wall"]:
                        fastest[jobs] = r
                    shutil.rmtree(copy)
            data["scaling"] += [{"submissions": n, "jobs": jobs, "runs": args.repeat, **fastest[jobs]}
                                for jobs in (1, 2)]
        data["machine"] = {"platform": platform.platform(), "cores": os.cpu_count(),
                           "python": platform.python_version(), "when": time.strftime("%Y-%m-%d %H:%M"),
                           "command": " ".join(["python", "benchmarks/bench.py", *sys.argv[1:]])}
        (tmp / "bench.json").write_text(json.dumps(data, indent=1))
        text = report.render(data)
        args.out.write_text(text)
        print(text)
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
