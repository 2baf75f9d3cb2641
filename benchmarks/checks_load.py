"""The checks service under a class's load, honest and hostile: the latency of one check, 30 and 100 students at
once, and the 100 students while a few hostile ones try to starve them.

    .venv/bin/python benchmarks/checks_load.py [--classes 30 100] [--rounds 3] [--single 20] [--out FILE.md]

A real JupyterHub runs the real service on a copy of the course (hub/checks_trial.py: each student holds their
own API token), over HTTP on 127.0.0.1, with the real sandbox.

1. One student checks ``--single`` times in a row (one check's latency, the service otherwise idle).
2. Honest only: for each size in ``--classes``, that many students each send their own ``code`` notebook at the
   same moment, ``--rounds`` times (every request's latency; checks per second from the first request sent to
   the last answer).
3. The largest class again, while hostile students send, again and again for as long as the honest rounds last: two
   slow-but-right notebooks (one sleeps 25 s in a cell, one spins the CPU for 25 s: each just under the 30 s
   cell limit), an upload announcing 64 MiB, a 20 MiB body sent in full, a 15 MiB notebook of another
   course (read, then refused), and a memory bomb (tests/hostile).  Meanwhile an honest student reloads their
   list of checks (``GET api/checks``) every 0.2 s: the latency of a page.

Every honest answer must be its sender's and carry the score ``reading-maths grade`` gives that notebook (graded
in a batch first): a wrong one stops the benchmark.

Besides latencies, each step reports the CPU the service used (its process and every descendant: the web side,
the grading workers, their fork servers and sandboxed children, read from /proc) per check, and the hub's and
its proxy's; CPU per check moves much less than latency when other work shares the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import browser as b  # noqa: E402
import nbformat  # noqa: E402
from hostile.attacks import ATTACKS  # noqa: E402

from hub.checks_trial import checks_hub, foreign, slow, variant  # noqa: E402
from reading_maths.grading.batch import grade_many  # noqa: E402
from reading_maths.grading.engine import Settings  # noqa: E402
from reading_maths.notebook import grade_id  # noqa: E402
from reading_maths.sandbox.process import Limits, choose  # noqa: E402
from test_hostile import submission  # noqa: E402

HOSTILE = ("slow", "spin", "huge", "big", "foreign", "bomb")


def spinning(seconds: float) -> bytes:
    """The reference answers, with a cell that keeps a core busy for ``seconds`` before the first answer."""
    nb = nbformat.reads(variant(0).decode("utf-8"), as_version=4)
    first = next(i for i, c in enumerate(nb.cells) if (grade_id(c) or "").endswith("-answer"))
    nb.cells.insert(first, nbformat.v4.new_code_cell(
        f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass"))
    return nbformat.writes(nb).encode("utf-8")


def expected_scores(course: Path, notebooks: dict[str, bytes], folder: Path) -> dict[str, float]:
    """What ``reading-maths grade`` gives each notebook: the score each check must answer."""
    folder.mkdir(parents=True)
    paths = []
    for name, data in notebooks.items():
        (folder / f"{name}.ipynb").write_bytes(data)
        paths.append(folder / f"{name}.ipynb")
    settings = Settings(choose(allow_unsafe=False, limits=Limits()), cell_timeout=30.0, call_timeout=30.0)
    results = grade_many(paths, settings, jobs=2, root=course, assignment="code", progress=False)
    return {p.stem: r.score for p, r in zip(paths, results, strict=True)}


def timed(trial, who: str, notebook: bytes, score: float) -> float:
    started = time.perf_counter()
    status, shown = trial.ask(who, notebook)
    if status != 200 or shown.get("user") != who or shown.get("score") != score:
        raise SystemExit(f"{who} got {status} {str(shown)[:300]} (expected the score {score:g})")
    return time.perf_counter() - started


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def announce_only(trial, who: str) -> int:
    """A POST announcing 64 MiB, of which nothing is sent."""
    import http.client

    url = urllib.parse.urlsplit(trial.service)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    conn.putrequest("POST", f"{url.path}api/checks?path=huge.ipynb")
    conn.putheader("Authorization", f"token {trial.tokens[who]}")
    conn.putheader("Content-Length", str(64 << 20))
    conn.endheaders()
    status = conn.getresponse().status
    conn.close()
    return status


def hostile(trial, who: str, kind: str, data: bytes, stop: threading.Event, outcomes: Counter) -> None:
    """``who`` sends ``kind`` again and again until ``stop``; each answer's status counted in ``outcomes``."""
    while not stop.is_set():
        try:
            status = announce_only(trial, who) if kind == "huge" else trial.ask(who, data)[0]
        except OSError:  # the service hangs up on a body past the limit, maybe before the client reads its 413
            status = "closed"
        outcomes[f"{kind} {status}"] += 1


def burst(trial, pool, students, notebooks, scores, rounds: int) -> tuple[list[float], list[float]]:
    loaded, rates = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        loaded += list(pool.map(lambda who: timed(trial, who, notebooks[who], scores[who]), students))
        rates.append(len(students) / (time.perf_counter() - started))
    return loaded, rates


def pages(trial, who: str, stop: threading.Event, out: list[float]) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        status, _ = trial.call(who, "GET", "api/checks")
        if status != 200:
            raise SystemExit(f"{who}'s page answered {status}")
        out.append(time.perf_counter() - started)
        time.sleep(0.2)


def phase(trial, pool, students, notebooks, scores, rounds, reader, attackers=None):
    """Honest bursts (with ``attackers`` sending meanwhile, if any); latencies, rates, page latencies, outcomes."""
    stop, page_times, outcomes = threading.Event(), [], Counter()
    threads = [threading.Thread(target=pages, args=(trial, reader, stop, page_times))]
    threads += [threading.Thread(target=hostile, args=(trial, who, kind, data, stop, outcomes))
                for who, (kind, data) in (attackers or {}).items()]
    for thread in threads:
        thread.start()
    if attackers:
        time.sleep(3)  # the hostile students first: they hold what they can before the class asks
    try:
        loaded, rates = burst(trial, pool, students, notebooks, scores, rounds)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    return loaded, rates, page_times, outcomes


def _cpu_of(pid: int) -> tuple[float, int | None, str]:
    """(CPU seconds of ``pid`` and of its children already waited for, its parent, its command line)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return 0.0, None, ""
    fields = stat[stat.rindex(")") + 2:].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK"), int(fields[1]), cmdline


def processes() -> dict[int, tuple[float, int | None, str]]:
    return {int(p.name): _cpu_of(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit()}


def tree_cpu(table: dict, root: int) -> float:
    """CPU seconds of ``root`` and of every process below it (a child that ended and was waited for is in its
    parent's count; a living one is counted itself)."""
    children: dict[int, list[int]] = {}
    for pid, (_, parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += table.get(pid, (0.0, None, ""))[0]
        todo += children.get(pid, [])
    return total


@dataclass
class Meter:
    """The CPU of the checks service (``service``'s tree) and of the hub with its proxy (``hub``'s tree, the
    service's left out)."""

    service: int
    hub: int

    @classmethod
    def find(cls, scratch: Path) -> Meter:
        table = processes()
        program = str(scratch / "site" / "checks" / "checks.py")
        service = {p for p, (_, _, cmd) in table.items() if program in cmd}
        service = [p for p in service if table[p][1] not in service]  # its workers are forks of it, same command
        hub = [p for p, (_, _, cmd) in table.items() if "jupyterhub" in cmd and str(scratch) in cmd]
        if len(service) != 1 or len(hub) != 1:
            raise SystemExit(f"cannot tell the service's and the hub's processes apart ({service}, {hub})")
        return cls(service[0], hub[0])

    def read(self) -> tuple[float, float, float]:
        """CPU seconds so far: the service's processes, its own process (the web side and the desk's event loop,
        its reader threads included), the hub's and its proxy's."""
        table = processes()
        service = tree_cpu(table, self.service)
        own = Path(f"/proc/{self.service}/stat").read_text()
        own = sum(int(x) for x in own[own.rindex(")") + 2:].split()[11:13]) / os.sysconf("SC_CLK_TCK")
        return service, own, tree_cpu(table, self.hub) - service


def metered(meter: Meter, step):
    """``step()``'s value, the CPU seconds (:meth:`Meter.read`) it took, and the load averages before and after."""
    load, before = os.getloadavg()[0], meter.read()
    value = step()
    after = meter.read()
    return value, tuple(a - b for a, b in zip(after, before, strict=True)), (load, os.getloadavg()[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, nargs="+", default=[30, 100],
                        help="class sizes checked honest only; the largest is checked again with the hostile students")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--single", type=int, default=20)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "checks_results.md")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="rm-checks-load-"))
    course = scratch / "course"
    b.copy_course(REPO, course)
    (course / "checks.toml").write_text("[defaults]\nattempts = 100000\n")
    largest = max(args.classes)
    students = [f"s{i:03d}" for i in range(largest)]
    notebooks = {name: variant(i % 32) for i, name in enumerate(students)}
    scores = expected_scores(course, {f"v{i}": variant(i) for i in range(min(32, largest))}, scratch / "batch")
    scores = {name: scores[f"v{i % 32}"] for i, name in enumerate(students)}
    bomb = submission(scratch, "bomb", ATTACKS["memory_bomb_list"], 9).read_bytes()
    attackers = {"h-slow": ("slow", slow(0, 25)), "h-spin": ("spin", spinning(25)), "h-huge": ("huge", b""),
                 "h-big": ("big", b"x" * (20 << 20)), "h-foreign": ("foreign", foreign(15)), "h-bomb": ("bomb", bomb)}
    reader = "reader"
    steps = []  # (what, latencies, rates, cpu, loads, checks)
    try:
        with checks_hub(course, [*students, *attackers, reader], "teacher", scratch) as trial:
            meter = Meter.find(scratch)
            workers = len(trial.call("teacher", "GET", "api/workers")[1]["workers"])
            first = students[0]
            for who in students:  # each student's first request (the hub asked who the token is): not counted
                trial.call(who, "GET", "api/checks")
            timed(trial, first, notebooks[first], scores[first])  # the first request of a worker: not counted
            single, cpu, loads = metered(meter, lambda: [timed(trial, first, notebooks[first], scores[first])
                                                         for _ in range(args.single)])
            steps.append((f"one check, service idle ({len(single)} in a row)", single,
                          [1 / statistics.mean(single)], cpu, loads, len(single)))
            with ThreadPoolExecutor(largest) as pool:
                for size in sorted(args.classes):
                    (loaded, rates, page_times, _), cpu, loads = metered(meter, lambda size=size: phase(
                        trial, pool, students[:size], notebooks, scores, args.rounds, reader))
                    steps.append((f"{size} honest students at once ({args.rounds} rounds, {len(loaded)} checks)",
                                  loaded, rates, cpu, loads, len(loaded)))
                    honest_pages = page_times
                (loaded, rates, attacked_pages, outcomes), cpu, loads = metered(meter, lambda: phase(
                    trial, pool, students, notebooks, scores, args.rounds, reader, attackers))
                steps.append((f"the same {largest}, with {len(attackers)} hostile students ({len(loaded)} checks)",
                              loaded, rates, cpu, loads, len(loaded)))
            replaced = trial.call("teacher", "GET", "api/workers")[1]["replaced"]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    def row(what: str, times: list[float], rates: list[float] | None = None, cpu=None, loads=None,
            checks: int = 0) -> str:
        rate = f"{statistics.median(rates):.1f}" if rates else ""
        used = " | ".join(f"{1000 * c / checks:.0f} ms" for c in cpu) if cpu else " | | "
        load = f"{loads[0]:.1f} → {loads[1]:.1f}" if loads else ""
        return (f"| {what} | {statistics.median(times):.2f} s | {p95(times):.2f} s | {max(times):.2f} s | {rate} | "
                f"{used} | {load} |")

    honest_p95, attacked_p95 = p95(steps[-2][1]), p95(steps[-1][1])
    lines = [
        "# Checks under load (benchmarks/checks_load.py)",
        "",
        f"Machine: {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at the end: other work may share "
        f"it), {platform.python_implementation()} {platform.python_version()}; the service's workers: {workers}; "
        "notebooks: `code` (5 questions, 67 points), each student's own; a check's budget: 30 s.",
        "",
        "| what | median | p95 | max | checks per second | service CPU per check | of which its web side and desk "
        "| hub + proxy CPU per check | load average (1 min) before → after |",
        "|---|---|---|---|---|---|---|---|---|",
        *(row(*step) for step in steps),
        row(f"a student's page (GET api/checks), honest only ({len(honest_pages)} loads)", honest_pages),
        row(f"a student's page, with the hostile students ({len(attacked_pages)} loads)", attacked_pages),
        "",
        f"Honest p95 with the hostile students over honest only ({largest} students): "
        f"{attacked_p95:.2f} s / {honest_p95:.2f} s = {attacked_p95 / honest_p95:.2f}. CPU per check is the "
        "service's processes' CPU over the step (the hostile students' included, in the last step) divided by the "
        "honest checks answered: its workers, their fork servers and sandboxed children, and its own process (the "
        "web side, the desk's event loop and its reader threads).",
        "",
        "Every honest answer was its sender's, with the score `reading-maths grade` gives that notebook. "
        "What the hostile students got meanwhile (kind, HTTP status: count): "
        + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())) + f"; workers replaced: {replaced}.",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
