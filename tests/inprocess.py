"""``pytest --fast`` (``make test-fast``): the in-process tests only, and a test that is not one fails loudly.

A test that starts a sandboxed child, a kernel, a hub, a browser or another slow program, or computes for long,
carries the marker saying so (:data:`SLOW`); ``--fast`` deselects every such test. While it runs, every other
test is watched: starting a program (``subprocess``) other than the quick tools in :data:`QUICK`, or a
``multiprocessing`` process, or taking more than :data:`CPU_BUDGET` seconds of CPU (its own and its forked
children's: a measure a loaded machine does not inflate as it does the wall clock), makes that test fail with
the marker it should carry, so a new slow test cannot land in the fast run unnoticed. ``os.fork`` stays
allowed (the formula evaluator forks a copy of this process per formula).
"""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess

import pytest

SLOW = {
    "sandbox": "starts sandboxed children (bubblewrap): grading a notebook, the sandbox's own tests",
    "kernel": "starts a Jupyter kernel (nbgrader autograde or validate, nbclient)",
    "hub": "starts a JupyterHub",
    "browser": "drives JupyterLab in a headless Chromium",
    "slow": "runs other programs or pools of processes (nbgrader's commands, reading-maths, Dask, mypy), or computes "
            "for more than a few seconds or waits out a time limit",
}
"""The markers of the tests ``--fast`` leaves out, and what each says about its test."""

QUICK = {"ruff", "git", "lint-imports"}
"""Programs an in-process test may run (each answers in well under a second)."""

CPU_BUDGET = 3.0
"""Seconds of CPU an in-process test may take (set-up, call and tear-down); ``--cpu-budget`` changes it."""

_started: list[str] = []
_CPU_AT_START = pytest.StashKey[float]()


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _marker_for(argv: list[str]) -> str:
    """The marker a test that starts ``argv`` should carry."""
    text = " ".join(argv)
    for marker, words in (("sandbox", ("bwrap", "prlimit")), ("kernel", ("ipykernel", "nbgrader", "nbclient")),
                          ("hub", ("jupyterhub",)), ("browser", ("chrom", "playwright", "jupyter-lab", "jupyterlab"))):
        if any(word in text for word in words):
            return marker
    return "slow"


def _program(argv: list[str]) -> str:
    """The program ``argv`` runs: its file name, or the module of ``python -m MODULE``."""
    name = os.path.basename(argv[0]) if argv else ""
    if name.startswith("python") and "-m" in argv[1:-1]:
        return argv[argv.index("-m") + 1]
    return name


def _refuse(what: str, marker: str) -> None:
    _started.append(f"{what} (mark the test @pytest.mark.{marker}: {SLOW[marker]})")
    raise RuntimeError(f"pytest --fast runs in-process tests only, and this one started {what}")


def _watch(monkeypatch: pytest.MonkeyPatch) -> None:
    execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def guarded_execute_child(self, args, *rest, **kwargs):
        argv = [os.fspath(args)] if isinstance(args, (str, bytes, os.PathLike)) else [str(a) for a in args]
        if _program(argv) not in QUICK:
            _refuse(f"the program {' '.join(argv)[:200]!r}", _marker_for(argv))
        return execute_child(self, args, *rest, **kwargs)

    start = multiprocessing.process.BaseProcess.start

    def guarded_start(self):
        _refuse(f"a multiprocessing process ({type(self).__name__})", "slow")
        return start(self)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", guarded_execute_child)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", guarded_start)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true",
                     help="in-process tests only: leave out the tests marked " + ", ".join(SLOW)
                          + "; fail any other test that starts a program or a process")
    parser.addoption("--cpu-budget", type=float, default=CPU_BUDGET,
                     help=f"with --fast: seconds of CPU a test may take (default {CPU_BUDGET:g})")


def pytest_configure(config: pytest.Config) -> None:
    for marker, what in SLOW.items():
        config.addinivalue_line("markers", f"{marker}: {what} (left out by --fast)")
    if config.getoption("fast"):
        config.pluginmanager.register(_FastRun(config.getoption("cpu_budget")), "reading-maths-fast")


class _FastRun:
    """The ``--fast`` run: slow tests deselected, the others watched."""

    def __init__(self, budget: float):
        self.budget = budget

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        slow = [item for item in items if any(item.get_closest_marker(m) for m in SLOW)]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if item not in slow]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):
        with pytest.MonkeyPatch.context() as monkeypatch:
            _watch(monkeypatch)
            item.stash[_CPU_AT_START] = _cpu()
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        report = yield
        if call.when != "teardown":
            return report
        used = _cpu() - item.stash[_CPU_AT_START]
        if _started:
            report.outcome = "failed"
            report.longrepr = "pytest --fast: this test is not in-process: it started " + "; ".join(
                dict.fromkeys(_started))
            _started.clear()
        elif used > self.budget:
            report.outcome = "failed"
            report.longrepr = (f"pytest --fast: this test took {used:.1f} s of CPU (more than {self.budget:g}): "
                               f"make it quicker or mark it @pytest.mark.slow")
        return report
