"""Side-by-side timing: ``reading-maths autograde`` vs stock ``nbgrader autograde`` vs ``otter run``.

One run builds a class of submissions of the code assignment from the released notebook (a
seeded mix of right, typically wrong and blank answers), grades the very same notebooks three
ways, checks that every path gives every student the same score on every question, profiles one
``reading-maths grade`` and writes a Markdown report.

    .venv/bin/python benchmarks/run.py                    # 100 students, otter on 10, 2 jobs
    .venv/bin/python benchmarks/run.py --students 20 --otter 4 --out /tmp/bench.md

Only public tools: ``time.perf_counter`` around subprocesses, ``python -X importtime``, cProfile.
Each path runs in its own temporary copy of the course (``nbgrader_config.py``, ``source/code``,
``graders/code``) so that nothing in the repository is touched.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ASSIGNMENT = "code"
QUESTIONS = ["softmax", "attention", "adam_step", "adam", "dpo_loss"]
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"

# -- the class: typical wrong answers, one or more per question --------------------------------------

WRONG = {
    "softmax": {
        "no-max-shift": """def softmax(z, T=1.0):
    e = np.exp(np.asarray(z, dtype=float) / T)
    return e / e.sum(axis=-1, keepdims=True)
""",
        "temperature-multiplied": """def softmax(z, T=1.0):
    z = np.asarray(z, dtype=float) * T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
""",
    },
    "attention": {
        "no-sqrt-dk": """def attention(Q, K, V):
    S = np.asarray(Q, dtype=float) @ np.asarray(K, dtype=float).T
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return (W / W.sum(axis=1, keepdims=True)) @ np.asarray(V, dtype=float)
""",
        "weights-returned": """def attention(Q, K, V):
    S = np.asarray(Q, dtype=float) @ np.asarray(K, dtype=float).T / np.sqrt(np.shape(K)[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return W / W.sum(axis=1, keepdims=True)
""",
    },
    "adam_step": {
        "no-bias-correction": """def adam_step(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(x, dtype=float) for x in (theta, g, m, v))
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * g**2
    return theta - alpha * m_t / (np.sqrt(v_t) + eps), m_t, v_t
""",
        "eps-inside-root": """def adam_step(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(x, dtype=float) for x in (theta, g, m, v))
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * g**2
    m_hat, v_hat = m_t / (1 - beta1**t), v_t / (1 - beta2**t)
    return theta - alpha * m_hat / np.sqrt(v_hat + eps), m_t, v_t
""",
    },
    "adam": {
        "t-from-zero": """def adam(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(steps):
        theta, m, v = adam_step(theta, grad(theta), m, v, t + 1 if t else 1e-12, alpha, beta1, beta2, eps)
    return theta
""",
        "one-step-short": """def adam(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(1, steps):
        theta, m, v = adam_step(theta, grad(theta), m, v, t, alpha, beta1, beta2, eps)
    return theta
""",
    },
    "dpo_loss": {
        "unstable-log-sigmoid": """def dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = beta * ((np.asarray(pi_w, dtype=float) - ref_w) - (np.asarray(pi_l, dtype=float) - ref_l))
    return -np.mean(np.log(1 / (1 + np.exp(-margin))))
""",
        "chosen-rejected-swapped": """def dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = beta * ((np.asarray(pi_l, dtype=float) - ref_l) - (np.asarray(pi_w, dtype=float) - ref_w))
    return float(np.mean(np.logaddexp(0, -margin)))
""",
    },
}


def build_class(release_nb: Path, source_nb: Path, n: int, seed: int) -> dict[str, dict[str, str]]:
    """``n`` students' answers: per question right (55 %), a typical mistake (30 %) or blank (15 %)."""
    import nbformat

    from reading_maths.notebook import SOLUTION_MARKERS, grade_id

    source = nbformat.read(source_nb, as_version=4)
    right = {grade_id(c)[: -len("-answer")]: SOLUTION_MARKERS.sub("", c.source) for c in source.cells
             if (grade_id(c) or "").endswith("-answer")}
    rng = random.Random(seed)
    plan = {}
    for i in range(1, n + 1):
        answers = {}
        for q in QUESTIONS:
            r = rng.random()
            answers[q] = right[q] if r < 0.55 else rng.choice(list(WRONG[q].values())) if r < 0.85 else STUB
        plan[f"s{i:03d}"] = answers
    release = nbformat.read(release_nb, as_version=4)
    del release  # read once to fail early on a broken release notebook
    return plan


def write_submissions(course: Path, release_nb: Path, plan: dict[str, dict[str, str]]) -> None:
    import nbformat

    from classroom.builder import answered

    release = nbformat.read(release_nb, as_version=4)
    source = nbformat.read(ROOT / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for student, answers in plan.items():
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(answered(release, source, answers), folder / f"{ASSIGNMENT}.ipynb")


# -- course copies and commands -----------------------------------------------------------------------

def course_copy(where: Path) -> Path:
    where.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", where / "nbgrader_config.py")
    shutil.copytree(ROOT / "source" / ASSIGNMENT, where / "source" / ASSIGNMENT)
    shutil.copytree(ROOT / "graders" / ASSIGNMENT, where / "graders" / ASSIGNMENT,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return where


def env_for(course: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("READING_MATHS_COURSE", None)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # nbgrader runs `alembic` from the venv
    if course is not None:
        env["READING_MATHS_COURSE"] = str(course)
    return env


def timed(cmd: list[str], cwd: Path, env: dict[str, str], log: Path | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if log is not None:
        log.write_text(done.stdout + "\n--- stderr ---\n" + done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed


def gradebook_scores(course: Path, students: list[str]) -> dict[str, dict[str, float | None]]:
    """Per student, per question, the score nbgrader's gradebook holds."""
    from nbgrader.api import Gradebook, MissingEntry

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in students:
            try:
                nb = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            except MissingEntry:
                scores[student] = dict.fromkeys(QUESTIONS)
                continue
            grades = {g.name: g.score for g in nb.grades}
            scores[student] = {q: grades.get(q) for q in QUESTIONS}
    return scores


def has_autograde() -> bool:
    done = subprocess.run([str(BIN / "reading-maths"), "--help"], capture_output=True, text=True, check=False)
    return "autograde" in done.stdout


def run_reading_maths(course: Path, students: list[str], jobs: int, logs: Path) -> tuple[str, float, dict]:
    if has_autograde():
        cmd = [str(BIN / "reading-maths"), "autograde", ASSIGNMENT, "--jobs", str(jobs)]
        elapsed = timed(cmd, course, env_for(course), logs / "reading_maths.log")
        return " ".join(["reading-maths", *cmd[1:]]), elapsed, gradebook_scores(course, students)
    out = logs / "reading_maths.json"
    cmd = [str(BIN / "reading-maths"), "grade", str(course / "submitted"), "--json", "--jobs", str(jobs)]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=course, env=env_for(course), capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    out.write_text(done.stdout)
    data = json.loads(done.stdout)
    data = data if isinstance(data, list) else [data]
    scores = {Path(r["notebook"]).parts[-3]: {q["id"]: q["score"] for q in r["questions"]} for r in data}
    return f"reading-maths grade submitted/ --json --jobs {jobs}", elapsed, scores


def progress_seconds(log: Path) -> float | None:
    """The elapsed time the engine's progress bar showed when the last notebook was graded."""
    found = re.findall(r"(\d+)/(\d+) (\d+):(\d\d):(\d\d)", log.read_text(errors="replace")) if log.exists() else []
    if not found:
        return None
    h, m, sec = map(int, found[-1][2:])
    return 3600 * h + 60 * m + sec


def run_nbgrader(course: Path, students: list[str], logs: Path) -> tuple[str, float, dict]:
    cmd = [str(BIN / "nbgrader"), "autograde", ASSIGNMENT, "--create", "--force"]
    elapsed = timed(cmd, course, env_for(course), logs / "nbgrader.log")
    return "nbgrader autograde code --create --force", elapsed, gradebook_scores(course, students)


def otter_zip(course: Path, tmp: Path) -> Path:
    """As in tests/test_otter_agreement.py: the assignment's source and graders as support files."""
    staging = tmp / "otter_staging"
    (staging / "source").mkdir(parents=True)
    shutil.copytree(course / "source" / ASSIGNMENT, staging / "source" / ASSIGNMENT)
    shutil.copytree(course / "graders" / ASSIGNMENT, staging / "graders" / ASSIGNMENT)
    zip_path = tmp / "autograder.zip"
    timed([str(BIN / "otter"), "generate", "-t", str(course / "graders" / ASSIGNMENT), "-o", str(zip_path),
           "--no-config", "--no-requirements", "--no-environment", "source", "graders"], staging, env_for(None))
    return zip_path


def run_otter(course: Path, students: list[str], zip_path: Path, tmp: Path) -> tuple[float, list[float], dict]:
    """A loop of ``otter run`` (one process per notebook, as from a shell), timed per notebook."""
    times, scores = [], {}
    start = time.perf_counter()
    for student in students:
        out = tmp / "otter_out" / student
        out.mkdir(parents=True)
        nb = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        times.append(timed([str(BIN / "otter"), "run", str(nb), "-a", str(zip_path), "-o", str(out), "--no-logo"],
                           out, env_for(None)))
        tests = json.loads((out / "results.json").read_text())["tests"]
        got = {t["name"]: t["score"] for t in tests if "score" in t}
        scores[student] = {q: got.get(q) for q in QUESTIONS}
    return time.perf_counter() - start, times, scores


# -- where reading-maths spends its time ---------------------------------------------------------------

PROFILE = r"""
import cProfile, io, json, pstats, sys, time
t0 = time.perf_counter()
from reading_maths.grading import engine
from reading_maths.sandbox import process as sandbox
from reading_maths.course import Assignment
from reading_maths.kit import reference
from reading_maths.sandbox import session as session_mod
t1 = time.perf_counter()
ref_start = time.perf_counter(); reference("code", sys.argv[2]); ref = time.perf_counter() - ref_start
course = engine.Path(sys.argv[2])
a = Assignment("code", course)
g0 = time.perf_counter(); graders = a.graders; g1 = time.perf_counter()
settings = engine.Settings(sandbox.choose())
spawn = []
orig_spawn = sandbox.Sandbox.spawn
def timed_spawn(self, scratch):
    s = time.perf_counter(); p = orig_spawn(self, scratch); spawn.append(time.perf_counter() - s); return p
sandbox.Sandbox.spawn = timed_spawn
calls = []
orig_call = session_mod.StudentSession.call
def timed_call(self, name, args, kwargs):
    s = time.perf_counter()
    try:
        return orig_call(self, name, args, kwargs)
    finally:
        calls.append(time.perf_counter() - s)
session_mod.StudentSession.call = timed_call
starts = []
orig_start = session_mod.StudentSession.start
def timed_start(self):
    s = time.perf_counter(); orig_start(self); starts.append(time.perf_counter() - s)
session_mod.StudentSession.start = timed_start
runs = []
for i in range(3):
    calls.clear(); starts.clear()
    s = time.perf_counter(); r = engine.grade(engine.Path(sys.argv[1]), settings, course)
    total = time.perf_counter() - s
    runs.append({"total": total, "start": sum(starts), "calls": len(calls), "call_time": sum(calls), "score": r.score})
prof = cProfile.Profile(); prof.enable(); engine.grade(engine.Path(sys.argv[1]), settings, course); prof.disable()
buf = io.StringIO(); pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(18)
print(json.dumps({"imports": t1 - t0, "reference": ref, "graders_load": g1 - g0, "sandbox": settings.sandbox.mode,
                  "runs": runs, "cprofile": buf.getvalue()}))
"""

CHILD_START = r"""
import json, subprocess, sys, time
from reading_maths.sandbox.process import choose, remove_scratch
box = choose()
out = {}
for label, code in [("python -I -c pass", "pass"), ("python -I -c 'import numpy'", "import numpy"),
                    ("python -I child.py imports", "import json, base64, struct, numpy")]:
    for wrapped in (False, True):
        scratch = box.new_scratch()
        argv = [sys.executable, "-I", "-c", code]
        cmd = box.command(argv) if wrapped else argv
        best = []
        for _ in range(5):
            s = time.perf_counter()
            subprocess.run(cmd, env=box.environment(scratch), check=True)
            best.append(time.perf_counter() - s)
        remove_scratch(scratch)
        out[f"{label} ({'bwrap' if wrapped else 'bare'})"] = min(best)
print(json.dumps(out))
"""


def profile(course: Path, notebook: Path) -> dict:
    env = env_for(course)
    data = json.loads(subprocess.run([sys.executable, "-c", PROFILE, str(notebook), str(course)], cwd=course, env=env,
                                     capture_output=True, text=True, check=True).stdout)
    data["child_start"] = json.loads(subprocess.run([sys.executable, "-c", CHILD_START], cwd=course, env=env,
                                                    capture_output=True, text=True, check=True).stdout)
    imports = {}
    for module in ("numpy", "nbformat", "reading_maths.cli", "reading_maths.nbgrader.in_kernel", "otter"):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], cwd=course, env=env,
                              capture_output=True, text=True, check=True)
        rows = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import time:")]
        total = {r[2].strip(): int(r[1]) for r in rows if r[1].strip().isdigit()}
        imports[module] = total.get(module, 0) / 1e6
        if total.get("rfc3987_syntax", 0) > 10_000:  # jsonschema's IRI checker builds a grammar on import
            imports[f"{module}: of which rfc3987_syntax"] = total["rfc3987_syntax"] / 1e6
    data["imports_cold"] = imports
    return data


# -- the report ---------------------------------------------------------------------------------------

def compare(paths: dict[str, dict], students: list[str]) -> list[str]:
    problems = []
    names = list(paths)
    base = names[0]
    for other in names[1:]:
        for s in students:
            if s not in paths[other]:
                continue
            for q in QUESTIONS:
                a, b = paths[base].get(s, {}).get(q), paths[other][s].get(q)
                if a is None or b is None or abs(float(a) - float(b)) > 1e-6:
                    problems.append(f"{s}/{q}: {base} {a} vs {other} {b}")
    return problems


def report(args, figures: dict, problems: list[str], prof: dict, plan: dict) -> str:
    n = args.students
    ot = figures["otter"]
    mix = {"right": 0, "wrong": 0, "blank": 0}
    for answers in plan.values():
        for a in answers.values():
            mix["blank" if a == STUB else "wrong" if any(a in w.values() for w in WRONG.values()) else "right"] += 1
    per = {k: v["wall"] / v["count"] for k, v in figures.items() if "wall" in v}
    load = os.getloadavg()
    lines = [
        f"# Benchmark: {n} submissions of the `code` assignment",
        "",
        (f"Run {time.strftime('%Y-%m-%d %H:%M')} on {platform.platform()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}. "
        f"Command: `{' '.join(['python', 'benchmarks/run.py', *sys.argv[1:]])}`."),
        "",
        (f"Class: {n} students, seed {args.seed}; answers per question: {mix['right']} right, {mix['wrong']} typically "
        f"wrong, {mix['blank']} blank (of {4 * n})."),
        "",
        "| path | command | notebooks timed | wall time | per submission | throughput vs nbgrader |",
        "|---|---|---|---|---|---|",
    ]
    for key, label in (("reading_maths", "reading-maths"), ("nbgrader", "nbgrader (stock)"), ("otter", "otter run")):
        f = figures[key]
        wall = f"{f['wall']:.1f} s" + (f" (extrapolated to {n}: {per[key] * n:.0f} s)" if f["count"] != n else "")
        lines.append(f"| {label} | `{f['command']}` | {f['count']} | {wall} | {per[key]:.2f} s | "
                     f"{per['nbgrader'] / per[key]:.2f}x |")
    lines += [
        "",
        (f"**reading-maths vs nbgrader: {per['nbgrader'] / per['reading_maths']:.1f}x the throughput; "
        f"vs otter run: {per['otter'] / per['reading_maths']:.1f}x.** (Target: at least 5x nbgrader on 2 cores.)"),
        "",
        (f"Otter was timed on the first {ot['count']} submissions only (a loop of `otter run`, one process each, "
        f"as from a shell) and its per-submission cost extrapolated; per-notebook times "
        f"min {min(ot['times']):.1f} s, median {sorted(ot['times'])[len(ot['times']) // 2]:.1f} s, "
        f"max {max(ot['times']):.1f} s. `otter generate` itself: {ot['generate']:.1f} s (not counted)."),
        "",
        (f"Of stock nbgrader's {per['nbgrader']:.2f} s per notebook, about "
        f"{prof['imports_cold']['reading_maths.nbgrader.in_kernel']:.1f} s is each kernel importing "
        "`reading_maths.nbgrader.in_kernel` (through `otter.test_files`, which imports all of Otter: pandas, "
        "nbconvert, ...); were that free, nbgrader would be at "
        f"{per['nbgrader'] - prof['imports_cold']['reading_maths.nbgrader.in_kernel']:.2f} s per notebook "
        "and the ratio "
        f"{(per['nbgrader'] - prof['imports_cold']['reading_maths.nbgrader.in_kernel']) / per['reading_maths']:.1f}x."),
        "",
        *([(f"Of reading-maths' {figures['reading_maths']['wall']:.0f} s, the engine's progress bar showed "
           f"{figures['reading_maths']['grading']:.0f} s for grading all notebooks (sandboxed, 2 at a time); the rest "
           "is start-up and recording, one student at a time, through nbgrader's Autograde converter "
           "(autograded/ and the gradebook)."), ""] if figures["reading_maths"].get("grading") else []),
        (f"Setup not counted in any path: `nbgrader generate_assignment` ({figures['setup']['generate']:.1f} s), "
        "writing the submissions, copying the course."),
        "",
        "## Same scores from every path",
        "",
    ]
    if problems:
        lines += [f"{len(problems)} mismatches (bug list):", "", *(f"- {p}" for p in problems[:60])]
    else:
        lines.append(f"All {n} students x 4 questions agree between reading-maths and nbgrader, and the "
                     f"{ot['count']} otter-graded students agree with both.")
    runs = prof["runs"]
    best = min(runs, key=lambda r: r["total"])
    cs = prof["child_start"]
    imp = prof["imports_cold"]
    lines += [
        "",
        "## Where reading-maths' time goes (one notebook, the reference solution)",
        "",
        (f"Sandbox: `{prof['sandbox']}`. Measured in one process with `time.perf_counter` around the engine's "
        "steps (best of 3 after warm-up), then cProfile of one more run."),
        "",
        "| step | time |",
        "|---|---|",
        f"| importing the engine (`reading_maths.grading.engine`, once per process) | {prof['imports']:.2f} s |",
        f"| executing the reference solution (once per process, cached) | {prof['reference']:.3f} s |",
        f"| loading the 4 grader files (once per worker, cached) | {prof['graders_load']:.3f} s |",
        f"| grading one notebook, all steps | {best['total']:.3f} s |",
        f"| - of which starting the sandboxed child and running the cells | {best['start']:.3f} s |",
        (f"| - of which {best['calls']} calls into the sandbox (RPC + student code) | {best['call_time']:.3f} s "
        f"({1000 * best['call_time'] / max(1, best['calls']):.2f} ms per call) |"),
        (f"| - the rest (load, sanitize, comparing on the trusted side) | "
        f"{best['total'] - best['start'] - best['call_time']:.3f} s |"),
        "",
        "Starting a child (best of 5):",
        "",
        "| command | time |",
        "|---|---|",
        *(f"| `{k}` | {v:.3f} s |" for k, v in cs.items()),
        "",
        "Cold imports (`python -X importtime`, cumulative):",
        "",
        "| module | time |",
        "|---|---|",
        *(f"| `{k}` | {v:.2f} s |" for k, v in imp.items()),
        "",
        "<details><summary>cProfile, one notebook, by cumulative time</summary>",
        "",
        "```",
        prof["cprofile"].strip(),
        "```",
        "</details>",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--otter", type=int, default=10, help="how many of the submissions otter run grades")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results.md")
    parser.add_argument("--keep", action="store_true", help="keep the temporary courses (path printed)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    tmp = Path(tempfile.mkdtemp(prefix="reading-maths-bench-"))
    logs = tmp / "logs"
    logs.mkdir()
    try:
        print(f"working in {tmp}", file=sys.stderr)
        base = course_copy(tmp / "base")
        gen = timed([str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT, "--create", "--force",
                     "--log-level=WARN"], base, env_for(base), logs / "generate.log")
        release_nb = base / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        plan = build_class(release_nb, base / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", args.students, args.seed)
        write_submissions(base, release_nb, plan)
        students = sorted(plan)
        ours, theirs = tmp / "reading_maths", tmp / "nbgrader"
        for target in (ours, theirs):
            shutil.copytree(base, target)
        from classroom.stock import use_stock_nbgrader

        use_stock_nbgrader(theirs)  # the baseline is nbgrader as it ships: hidden cells in the kernel
        figures = {"setup": {"generate": gen}}

        print("reading-maths ...", file=sys.stderr)
        command, wall, rm_scores = run_reading_maths(ours, students, args.jobs, logs)
        figures["reading_maths"] = {"command": command, "wall": wall, "count": len(students),
                                    "grading": progress_seconds(logs / "reading_maths.log")}
        print(f"  {wall:.1f} s", file=sys.stderr)

        print("nbgrader autograde ...", file=sys.stderr)
        command, wall, nbg_scores = run_nbgrader(theirs, students, logs)
        figures["nbgrader"] = {"command": command, "wall": wall, "count": len(students)}
        print(f"  {wall:.1f} s", file=sys.stderr)

        print("otter ...", file=sys.stderr)
        g0 = time.perf_counter()
        zip_path = otter_zip(base, tmp)
        generate = time.perf_counter() - g0
        subset = students[: args.otter]
        wall, times, ot_scores = run_otter(base, subset, zip_path, tmp)
        figures["otter"] = {"command": "otter run SUBMISSION -a autograder.zip -o OUT", "wall": wall,
                            "count": len(subset), "times": times, "generate": generate}
        print(f"  {wall:.1f} s for {len(subset)}", file=sys.stderr)

        problems = compare({"reading-maths": rm_scores, "nbgrader": nbg_scores, "otter": ot_scores}, students)

        print("profiling one reading-maths grade ...", file=sys.stderr)
        right = tmp / "right.ipynb"
        shutil.copy(base / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", right)
        prof = profile(base, right)

        saved = {"reading_maths": rm_scores, "nbgrader": nbg_scores, "otter": ot_scores, "profile": prof,
                 "figures": figures}
        (logs / "scores.json").write_text(json.dumps(saved, indent=1))
        text = report(args, figures, problems, prof, plan)
        args.out.write_text(text)
        print(text)
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
