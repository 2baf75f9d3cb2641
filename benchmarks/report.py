"""The Markdown of ``make bench``: the issue's targets met or not, ratios and the in-process floor, the whole-batch
profile of each assignment, the scaling table."""

from __future__ import annotations

# The targets of issue 37 ("Near the floor with every wall up"), on this 2-core machine, same scores throughout:
TARGET_RATIO = 40.0
"""each of code, notation, matching, proofs: stock nbgrader's wall time over ours, a class of 100 with --jobs 2"""
TARGET_FLOOR = 2.5
"""the same runs: our core time per notebook (start-up included) over the in-process floor's"""
TARGET_SPEEDUP = 1.8
"""two jobs' speed-up over one job at 100 submissions (scaling, `code`)"""
TARGET_AT = 100
"""the class size the targets are set at"""

CHILDREN = "sandboxed children (their own CPU: set-up, student cells, calls)"
FORKED = "processes the grader forks for itself (formula checks under limits)"
"""the profile's row for the processes it forked and reaped itself, outside its own ``process_time``"""
GROUPS = (("sandboxed children", ("sandboxed",)),
          ("formula checks' forked processes", ("processes the grader forks",)),
          ("fork server (once per worker)", ("fork server",)),
          ("trusted side: reading, sanitizing, talking to the child, comparing", ("trusted:",)),
          ("recording: nbgrader's converter and gradebook", ("recording:", "gradebook:")),
          ("imports and set-up (once per run)", ("imports", "set-up:")))


def buckets(p: dict) -> list[tuple[str, float]]:
    """CPU seconds per step of one profiled batch (each step's own, nested steps subtracted), in pipeline order."""
    steps = p["steps"]
    mine = sum(v for k, v in steps.items() if k not in (CHILDREN, FORKED))
    return [("imports: reading-maths, nbgrader, NumPy, Otter (this process, once)", p["imports"]),
            *((k, v) for k, v in steps.items() if k.startswith("set-up:")),
            ("fork server: Python, NumPy and the notebook's imports (once)", p["fork_server_cpu"]),
            (CHILDREN, steps.get(CHILDREN, 0.0)),
            *([(FORKED, steps[FORKED])] if steps.get(FORKED) else []),
            *sorted(((k, v) for k, v in steps.items() if k.startswith(("trusted:", "recording:", "gradebook:"))),
                    key=lambda kv: (kv[0].split(":")[0] != "trusted", -kv[1])),
            ("not attributed (loops, logging, the pool's stand-in)", max(0.0, p["cpu"] - mine))]


def grouped(p: dict) -> dict[str, float]:
    """The profile's CPU seconds in the groups of :data:`GROUPS` (the first whose prefix matches takes a step)."""
    totals = dict.fromkeys([g for g, _ in GROUPS], 0.0)
    for name, secs in buckets(p):
        group = next((g for g, prefixes in GROUPS if name.startswith(prefixes)), None)
        if group:
            totals[group] += secs
    return totals


def summary(profiles: dict) -> list[str]:
    """One row per assignment: CPU per submission, and the share of each group in the whole batch."""
    lines = ["| assignment | CPU per submission | " + " | ".join(g for g, _ in GROUPS) + " |",
             "|---|---|" + "---|" * len(GROUPS)]
    for a, p in profiles.items():
        totals = grouped(p)
        whole = sum(totals.values()) or 1.0
        n = max(1, p["notebooks"])
        lines.append(f"| `{a}` | {whole / n * 1000:.0f} ms | "
                     + " | ".join(f"{100 * v / whole:.0f} % ({1000 * v / n:.0f} ms)" for v in totals.values()) + " |")
    return lines


def profile_table(a: str, p: dict) -> list[str]:
    n = max(1, p["notebooks"])
    rows = buckets(p)
    total = sum(v for _, v in rows)
    lines = [f"### `{a}`: {p['notebooks']} submissions, {total:.1f} core-seconds in all "
             f"({1000 * total / n:.0f} ms each)", "",
             "| step | CPU seconds | per submission | share |", "|---|---|---|---|"]
    for name, secs in rows:
        lines.append(f"| {name} | {secs:.2f} | {1000 * secs / n:.1f} ms | {100 * secs / (total or 1):.0f} % |")
    lines += ["", f"Children from the fork server: {'yes' if p['forked'] else 'no (bubblewrap started each)'}; "
              f"sandbox `{p['sandbox']}`; this process's wall time {p['wall']:.1f} s for {p['cpu']:.1f} s of its "
              f"own CPU; its peak memory {p['peak_rss_mb']:.0f} MB.", ""]
    return lines


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """The least-squares line ``wall = fixed + per * submissions`` through ``(submissions, wall)`` points."""
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    per = sum((x - mx) * (y - my) for x, y in points) / (sum((x - mx) ** 2 for x, _ in points) or 1.0)
    return my - per * mx, per


def line_through(scaling: list[dict]) -> list[str]:
    """The scaling table as straight lines, one per ``--jobs``: what a run costs once, what each submission adds."""
    lines = []
    per_job = {}
    for jobs in sorted({r["jobs"] for r in scaling}):
        points = [(r["submissions"], r["wall"]) for r in scaling if r["jobs"] == jobs]
        if len({x for x, _ in points}) < 2:
            return []
        fixed, per = per_job[jobs] = fit(points)
        worst = max(abs(y - fixed - per * x) / y for x, y in points)
        lines.append(f"- `--jobs {jobs}`: wall ≈ {fixed:.1f} s + {1000 * per:.1f} ms × submissions "
                     f"(every point within {100 * worst:.0f} % of the line)")
    if 1 in per_job and 2 in per_job:
        lines.append(f"- the cost of each further submission, one job's over two jobs': "
                     f"**{per_job[1][1] / per_job[2][1]:.2f}×**; the once-per-run part (imports, the gradebook, "
                     f"the first children: the first term) {per_job[1][0]:.1f} s with one job, {per_job[2][0]:.1f} s "
                     f"with two")
    runs = {r.get("runs", 1) for r in scaling}
    return [f"Straight lines through the table (each point the fastest of {max(runs)} runs):", "", *lines]


def verdict(value: float, target: float, at_least: bool) -> str:
    """``met`` or ``not met``, for a figure against its target."""
    return "met" if (value >= target if at_least else value <= target) else "**not met**"


def per_notebook_cpu(r: dict) -> float | None:
    """Our core time per notebook in a throughput row (None for a run measured before core time was)."""
    return r["ours"]["cpu"] / r["students"] if "cpu" in r["ours"] else None


def targets(data: dict) -> list[str]:
    """The issue's targets, each beside this run's figure and whether it is met (or why this run cannot tell)."""
    rows = []
    for a, r in data["ratios"].items():
        n, jobs = r["students"], r.get("jobs", 2)
        comparable = n == TARGET_AT and jobs == 2
        why = "" if comparable else f" (this run: {n} submissions, --jobs {jobs}; the target: {TARGET_AT}, --jobs 2)"
        ratio = r["nbgrader"]["wall"] / r["ours"]["wall"]
        rows.append(f"| `{a}`: at least {TARGET_RATIO:g}× stock nbgrader | {ratio:.1f}× | "
                    f"{verdict(ratio, TARGET_RATIO, True) if comparable else 'n/a'}{why} |")
        mine, fl = per_notebook_cpu(r), data.get("floors", {}).get(a)
        if mine is not None and fl and fl["mean"]:
            times = mine / fl["mean"]
            rows.append(f"| `{a}`: within {TARGET_FLOOR:g}× the in-process floor per notebook | {times:.1f}× "
                        f"({1000 * mine:.0f} ms against {1000 * fl['mean']:.0f} ms) | "
                        f"{verdict(times, TARGET_FLOOR, False) if comparable else 'n/a'}{why} |")
    walls = {(r["submissions"], r["jobs"]): r["wall"] for r in data["scaling"]}
    if (TARGET_AT, 1) in walls and (TARGET_AT, 2) in walls:
        speedup = walls[(TARGET_AT, 1)] / walls[(TARGET_AT, 2)]
        rows.append(f"| two jobs at least {TARGET_SPEEDUP:g}× one job at {TARGET_AT} submissions (`code`) | "
                    f"{speedup:.2f}× | {verdict(speedup, TARGET_SPEEDUP, True)} |")
    else:
        rows.append(f"| two jobs at least {TARGET_SPEEDUP:g}× one job at {TARGET_AT} submissions (`code`) | — | "
                    f"n/a (no scaling run at {TARGET_AT}) |")
    busy = max(data["load"]) > 1.5
    return ["## The targets (issue 37)", "",
            "Each figure is this run's; the targets are set for a quiet 2-core machine"
            + (" — **this run was taken under load (see above): a target not met here may be met on a quiet "
               "machine, rerun before judging**." if busy else "."), "",
            "| target | this run | |", "|---|---|---|", *rows,
            "", "Not measured here: a `build` notebook within 1.5 s and the checks service's 35 checks per second "
            "(`benchmarks/checks_load.py`).", ""]


def render(data: dict) -> str:
    m = data["machine"]
    load = data["load"]
    lines = [
        "# Benchmark: reading-maths against stock nbgrader, the in-process floor, whole-batch profile, scaling", "",
        f"Run {m['when']} on {m['platform']}, {m['cores']} cores, Python {m['python']}. Command: `{m['command']}` "
        f"(`make bench`). Load average (1 min) when each timed run started: {min(load):.1f} to {max(load):.1f}"
        + (" — **taken under load: other work shared the cores, absolute seconds are pessimistic**."
           if max(load) > 1.5 else "."), "",
        *targets(data),
        "## Throughput against stock nbgrader, and the in-process floor", "",
        "Stock nbgrader: `nbgrader autograde A --create --force` as it ships (its own kernels run the "
        "hidden test cells; `classroom/stock.py`). reading-maths: `reading-maths autograde A --jobs "
        f"{next(iter(data['ratios'].values()), {}).get('jobs', 2)}` "
        "(sandboxed, writes the same gradebook). Same submissions, every score compared. "
        "The floor (`benchmarks/floor.py`): the same notebooks' cells exec'd and the graders run on their names in "
        "one warm process on one core, no isolation, no recording; its CPU per notebook (the mean). Core time: the "
        "CPU of the command and of every process under it (workers, fork servers, sandboxed children; nbgrader's "
        "kernels), start-up included, per notebook; × floor: that over the floor.", "",
        "| assignment | submissions | reading-maths | nbgrader | per submission (ours / theirs) "
        f"| ratio (target ≥ {TARGET_RATIO:g}×) | floor per notebook | core time per notebook (ours / nbgrader) "
        f"| ours × floor (target ≤ {TARGET_FLOOR:g}×) | scores |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for a, r in data["ratios"].items():
        n, ours, theirs = r["students"], r["ours"]["wall"], r["nbgrader"]["wall"]
        bad = data["mismatches"][a]
        fl = data.get("floors", {}).get(a)
        mine = per_notebook_cpu(r)
        floor_ms = f"{1000 * fl['mean']:.0f} ms" if fl else "—"
        cores = (f"{1000 * mine:.0f} ms / {1000 * r['nbgrader']['cpu'] / n:.0f} ms"
                 if mine is not None and "cpu" in r["nbgrader"] else "—")
        times = f"**{mine / fl['mean']:.1f}×**" if mine is not None and fl and fl["mean"] else "—"
        lines.append(f"| `{a}` | {n} | {ours:.1f} s | {theirs:.1f} s | {ours / n:.3f} s / {theirs / n:.3f} s | "
                     f"**{theirs / ours:.1f}×** | {floor_ms} | {cores} | {times} | "
                     f"{'all equal' if not bad else f'{len(bad)} differ'} |")
    for a, bad in data["mismatches"].items():
        lines += [f"- `{a}`: {p}" for p in bad[:20]]
    for a, fl in data.get("floors", {}).items():
        if fl.get("mismatches") or fl.get("gave_up"):
            lines.append(f"- `{a}`, the floor: {len(fl.get('mismatches', []))} question score(s) differ from the "
                         "batch's (the floor grades every question after the last cell, not at its grade cell)"
                         + (f"; given up after 30 s: {', '.join(fl['gave_up'])}" if fl.get("gave_up") else "")
                         + "".join(f"\n  - {p}" for p in fl.get("mismatches", [])[:5]))
    if data.get("floors"):
        lines += ["", "Floor per notebook (mean / median / slowest notebook): "
                  + "; ".join(f"`{a}` {1000 * f['mean']:.0f} / {1000 * f['median']:.0f} / {1000 * f['max']:.0f} ms "
                              f"({f['notebooks']} notebooks)" for a, f in data["floors"].items()) + "."]
    if "otter" in data:
        o, code = data["otter"], data["ratios"]["code"]
        ours = code["ours"]["wall"] / code["students"]
        bad = o["mismatches"]
        agree = "all equal" if not bad else f"{len(bad)} differ"
        fl = data.get("floors", {}).get("code")
        against = (f" Its core time, {o['cpu_per_submission']:.2f} s per submission, is "
                   f"**{o['cpu_per_submission'] / fl['mean']:.0f}×** the floor ({1000 * fl['mean']:.0f} ms); "
                   f"reading-maths' is {per_notebook_cpu(code) / fl['mean']:.1f}×."
                   if fl and fl["mean"] and "cpu_per_submission" in o and per_notebook_cpu(code) is not None else "")
        lines += ["", f"Otter: a loop of `otter run SUBMISSION -a autograder.zip` (one process per notebook, the "
                  f"zip from `otter generate` on the same graders) on the first {o['sample']} `code` submissions: "
                  f"{o['per_submission']:.2f} s per submission against reading-maths' {ours:.3f} s: reading-maths "
                  f"**{o['per_submission'] / ours:.0f}×** faster; scores {agree}.{against}",
                  *(f"- {p}" for p in bad[:20])]
    lines += ["", "## Scaling (`code`, synthetic classes)", "",
              "| submissions | --jobs | wall (fastest run) | per submission | 2 jobs vs 1 "
              f"(target ≥ {TARGET_SPEEDUP:g}× at {TARGET_AT}) | core time per submission | driver peak "
              "| largest worker peak |",
              "|---|---|---|---|---|---|---|---|"]
    one = {r["submissions"]: r["wall"] for r in data["scaling"] if r["jobs"] == 1}
    for r in data["scaling"]:
        speed = f"{one[r['submissions']] / r['wall']:.2f}×" if r["jobs"] == 2 and r["submissions"] in one else ""
        core = f"{1000 * r['cpu'] / r['submissions']:.0f} ms" if "cpu" in r else "—"
        lines.append(f"| {r['submissions']} | {r['jobs']} | {r['wall']:.1f} s | {r['wall'] / r['submissions']:.3f} s | "
                     f"{speed} | {core} | {r['driver_mb']:.0f} MB | {r['worker_mb']:.0f} MB |")
    lines += ["", *line_through(data["scaling"]),
              "", "Peak memory is `getrusage` in the process running the CLI: its own, and the largest of its "
              "waited-for children (a pool worker; a sandboxed child is smaller).", "",
              "## Where every core-second of a batch goes", "",
              "`benchmarks/profile_batch.py`: the whole `autograde` of each class above in one process, submissions "
              "one after another on the path a pool worker takes (the fork server's children, each started a "
              "notebook ahead). CPU seconds: this process's per step (`time.process_time`, nested steps "
              "subtracted), each sandboxed child's own (read from `/proc` before it is stopped), and the fork "
              "server's. With `--jobs 2` two such workers share the cores.", "",
              *summary(data["profiles"]), ""]
    for a, p in data["profiles"].items():
        lines += profile_table(a, p)
    return "\n".join(lines)
