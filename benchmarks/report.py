"""The Markdown of ``make bench``: ratios, the whole-batch profile of each assignment, the scaling table."""

from __future__ import annotations

CHILDREN = "sandboxed children (their own CPU: set-up, student cells, calls)"
GROUPS = (("sandboxed children", ("sandboxed",)),
          ("fork server (once per worker)", ("fork server",)),
          ("trusted side: reading, sanitizing, talking to the child, comparing", ("trusted:",)),
          ("recording: nbgrader's converter and gradebook", ("recording:", "gradebook:")),
          ("imports and set-up (once per run)", ("imports", "set-up:")))


def buckets(p: dict) -> list[tuple[str, float]]:
    """CPU seconds per step of one profiled batch (each step's own, nested steps subtracted), in pipeline order."""
    steps = p["steps"]
    mine = sum(v for k, v in steps.items() if k != CHILDREN)
    return [("imports: reading-maths, nbgrader, NumPy, Otter (this process, once)", p["imports"]),
            *((k, v) for k, v in steps.items() if k.startswith("set-up:")),
            ("fork server: Python, NumPy and the notebook's imports (once)", p["fork_server_cpu"]),
            (CHILDREN, steps.get(CHILDREN, 0.0)),
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
                     f"**{per_job[1][1] / per_job[2][1]:.2f}×** (the once-per-run part — imports, the gradebook, "
                     f"the first children — does not shrink with more jobs)")
    runs = {r.get("runs", 1) for r in scaling}
    return [f"Straight lines through the table (each point the fastest of {max(runs)} runs):", "", *lines]


def render(data: dict) -> str:
    m = data["machine"]
    load = data["load"]
    lines = [
        "# Benchmark: reading-maths against stock nbgrader, whole-batch profile, scaling", "",
        f"Run {m['when']} on {m['platform']}, {m['cores']} cores, Python {m['python']}. Command: `{m['command']}` "
        f"(`make bench`). Load average (1 min) when each timed run started: {min(load):.1f} to {max(load):.1f}"
        + (" — **taken under load: other work shared the cores, absolute seconds are pessimistic**."
           if max(load) > 1.5 else "."),
        "", "## Throughput against stock nbgrader", "",
        "Stock nbgrader: `nbgrader autograde A --create --force` as it ships (its own kernels run the "
        "hidden test cells; `classroom/stock.py`). reading-maths: `reading-maths autograde A --jobs 2` "
        "(sandboxed, writes the same gradebook). Same submissions, every score compared.", "",
        "| assignment | submissions | reading-maths | nbgrader | per submission (ours / theirs) | ratio | scores |",
        "|---|---|---|---|---|---|---|",
    ]
    for a, r in data["ratios"].items():
        n, ours, theirs = r["students"], r["ours"]["wall"], r["nbgrader"]["wall"]
        bad = data["mismatches"][a]
        lines.append(f"| `{a}` | {n} | {ours:.1f} s | {theirs:.1f} s | {ours / n:.3f} s / {theirs / n:.3f} s | "
                     f"**{theirs / ours:.1f}×** | {'all equal' if not bad else f'{len(bad)} differ'} |")
    for a, bad in data["mismatches"].items():
        lines += [f"- `{a}`: {p}" for p in bad[:20]]
    if "otter" in data:
        o, code = data["otter"], data["ratios"]["code"]
        ours = code["ours"]["wall"] / code["students"]
        bad = o["mismatches"]
        agree = "all equal" if not bad else f"{len(bad)} differ"
        lines += ["", f"Otter: a loop of `otter run SUBMISSION -a autograder.zip` (one process per notebook, the "
                  f"zip from `otter generate` on the same graders) on the first {o['sample']} `code` submissions: "
                  f"{o['per_submission']:.2f} s per submission against reading-maths' {ours:.3f} s: reading-maths "
                  f"**{o['per_submission'] / ours:.0f}×** faster; scores {agree}.",
                  *(f"- {p}" for p in bad[:20])]
    lines += ["", "## Scaling (`code`, synthetic classes)", "",
              "| submissions | --jobs | wall (fastest run) | per submission | 2 jobs vs 1 | driver peak "
              "| largest worker peak |",
              "|---|---|---|---|---|---|---|"]
    one = {r["submissions"]: r["wall"] for r in data["scaling"] if r["jobs"] == 1}
    for r in data["scaling"]:
        speed = f"{one[r['submissions']] / r['wall']:.2f}×" if r["jobs"] == 2 and r["submissions"] in one else ""
        lines.append(f"| {r['submissions']} | {r['jobs']} | {r['wall']:.1f} s | {r['wall'] / r['submissions']:.3f} s | "
                     f"{speed} | {r['driver_mb']:.0f} MB | {r['worker_mb']:.0f} MB |")
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
