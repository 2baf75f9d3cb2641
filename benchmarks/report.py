"""The Markdown of ``make bench``: ratios, the whole-batch profile of each assignment, the scaling table."""

from __future__ import annotations

GRADE_PARTS = ("grade: read + recognise the notebook", "grade: sanitize (locked cells)",
               "grade: child start + student cells", "grade: stop child, remove scratch")
RECORD_STEPS = ("ClearOutput", "DeduplicateIds", "OverwriteKernelspec", "RestoreCells", "CheckCellMetadata",
                "InjectResults", "ClearMetadataPreprocessor", "LimitOutput", "SaveAutoGrades", "SaveFeedbackComments",
                "AssignLatePenalties")


def buckets(p: dict) -> list[tuple[str, float]]:
    """Exclusive seconds per step of one profiled batch (nested timers subtracted), largest parts first."""
    s = p["spent"]
    get = s.get
    calls = get("grade: calls into the sandbox", 0.0)
    graders = get("grade: graders (incl. calls)", 0.0) - calls
    grade_rest = get("grade: total", 0.0) - sum(get(k, 0.0) for k in GRADE_PARTS) - graders - calls
    steps = {f"record: nbgrader {k}": get(f"record: {k}", 0.0) for k in RECORD_STEPS}
    passes = get("record: converter passes (read + preprocessors)", 0.0)
    written = get("record: write autograded/ notebook", 0.0)
    record_rest = get("record: total (converter per student)", 0.0) - passes - written
    rows = [
        ("importing reading-maths, nbgrader, NumPy (once)", p["imports"]),
        ("opening the course and finding submissions (once)", get("open course (nbgrader config, gradebook)", 0)
         + get("find submissions", 0)),
        *((k, get(k, 0.0)) for k in GRADE_PARTS),
        ("grade: calls into the sandbox (RPC + student code)", calls),
        ("grade: trusted-side comparisons (graders minus calls)", graders),
        ("grade: the rest (results, pool plumbing)",
         grade_rest + get("grade: total + errors", 0.0) - get("grade: total", 0.0)),
        *steps.items(),
        ("record: converter reading the notebook, resources (2 passes)", passes - sum(steps.values())),
        ("record: writing autograded/ notebook", written),
        ("record: converter set-up, gradebook checks, copying files", record_rest),
        ("record: results JSON", get("record: save results JSON", 0.0)),
        ("gradebook: unflag mark schemes, read scores back (one session)",
         get("record: unflag 0-point tasks (gradebook)", 0.0) + get("read back scores (gradebook)", 0.0)),
    ]
    accounted = sum(v for _, v in rows[1:])
    rows.append(("not attributed (loops, logging, progress)", p["wall"] - accounted))
    return rows


GROUPS = (("sandboxed child: start, student cells, calls, stop", ("grade: child", "grade: calls", "grade: stop")),
          ("trusted side: reading, sanitizing, comparing", ("grade:",)),
          ("recording: nbgrader's converter and gradebook", ("record:", "gradebook:")),
          ("imports and set-up (once per run)", ("importing", "opening")))


def grouped(p: dict) -> dict[str, float]:
    """The profile's seconds in four groups (the first group whose prefix matches takes a step)."""
    totals = dict.fromkeys([g for g, _ in GROUPS], 0.0)
    for name, secs in buckets(p):
        group = next((g for g, prefixes in GROUPS if name.startswith(prefixes)), None)
        if group:
            totals[group] += secs
    return totals


def summary(profiles: dict) -> list[str]:
    """One row per assignment: the share of each group in the whole batch."""
    lines = ["| assignment | per submission | " + " | ".join(g for g, _ in GROUPS) + " |",
             "|---|---|" + "---|" * len(GROUPS)]
    for a, p in profiles.items():
        totals = grouped(p)
        whole = sum(totals.values()) or 1.0
        n = max(1, p["notebooks"])
        lines.append(f"| `{a}` | {whole / n:.3f} s | "
                     + " | ".join(f"{100 * v / whole:.0f} % ({1000 * v / n:.0f} ms)" for v in totals.values()) + " |")
    return lines


def profile_table(a: str, p: dict) -> list[str]:
    n = max(1, p["notebooks"])
    total = p["imports"] + p["wall"]
    lines = [f"### `{a}`: {p['notebooks']} submissions, {total:.1f} s in one process ({total / n:.3f} s each)", "",
             "| step | seconds | per submission | share |", "|---|---|---|---|"]
    for name, secs in buckets(p):
        lines.append(f"| {name} | {secs:.2f} | {1000 * secs / n:.1f} ms | {100 * secs / total:.0f} % |")
    lines += ["", f"Trusted-side CPU {p['cpu']:.1f} s of {p['wall']:.1f} s wall; CPU of the sandboxed children that "
              f"were reaped here {p['children_cpu']:.1f} s (bubblewrap's own children are not all counted); "
              f"peak memory of the process {p['peak_rss_mb']:.0f} MB.", ""]
    return lines


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
    lines += ["", "## Scaling (`code`, synthetic classes)", "",
              "| submissions | --jobs | wall | per submission | 2 jobs vs 1 | driver peak | largest worker peak |",
              "|---|---|---|---|---|---|---|"]
    one = {r["submissions"]: r["wall"] for r in data["scaling"] if r["jobs"] == 1}
    for r in data["scaling"]:
        speed = f"{one[r['submissions']] / r['wall']:.2f}×" if r["jobs"] == 2 and r["submissions"] in one else ""
        lines.append(f"| {r['submissions']} | {r['jobs']} | {r['wall']:.1f} s | {r['wall'] / r['submissions']:.3f} s | "
                     f"{speed} | {r['driver_mb']:.0f} MB | {r['worker_mb']:.0f} MB |")
    lines += ["", "Peak memory is `getrusage` in the process running the CLI: its own, and the largest of its "
              "waited-for children (a pool worker; a sandboxed child is smaller).", "",
              "## Where every second of a batch goes", "",
              "`benchmarks/profile_batch.py`: the whole `autograde` of each class above in one process, notebooks "
              "one after another, `time.perf_counter` around each step (nested timers subtracted). Wall seconds "
              "of one core; with `--jobs 2` the grading steps run in two workers while this process records.", "",
              *summary(data["profiles"]), ""]
    for a, p in data["profiles"].items():
        lines += profile_table(a, p)
    return "\n".join(lines)
