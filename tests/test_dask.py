"""``reading-maths autograde --scheduler``: grading on a Dask cluster of two worker processes.

The cluster is a real ``distributed.LocalCluster`` (a scheduler and two worker processes under nannies), or one a
real Dask Gateway (``dask-gateway-server``, its local backend: ``gateway_server.py``) starts for the batch; the
course is the five-student course of ``test_autograde``. The gradebook is written by the driver only.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import dask
import pytest
from click.testing import CliRunner
from dask_gateway import Gateway
from distributed import Client, LocalCluster, Nanny, Scheduler, SpecCluster
from gateway_server import CLIENT_CONFIG, start_gateway
from nbgrader.api import Gradebook
from test_autograde import ASSIGNMENT, copy_course, hashes, make_course

from hub.site import free_port
from reading_maths.cli import main
from reading_maths.grading.engine import Settings
from reading_maths.grading.remote import ClusterUnavailable
from reading_maths.kit.reference import SECRET_FILE
from reading_maths.nbgrader.autograde import autograde
from reading_maths.sandbox.process import choose

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

RECORDER = "reading_maths.nbgrader.recording"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    return make_course(tmp_path_factory.mktemp("dask") / "course")


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings(choose())


@pytest.fixture(scope="module")
def local(course, settings, tmp_path_factory) -> tuple[Path, list]:
    """The same course graded by the local path (two processes)."""
    copy = copy_course(course, tmp_path_factory.mktemp("local") / "course")
    return copy, autograde(copy, ASSIGNMENT, settings, jobs=2, progress=False)


@pytest.fixture
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster


def gradebook_view(course: Path) -> dict:
    """Per student and cell: the scores, the manual-grading flags and the comments (no database ids)."""
    view = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for submission in gb.find_assignment(ASSIGNMENT).submissions:
            for nb in submission.notebooks:
                view[submission.student_id] = {
                    "grades": {g.name: (g.auto_score, g.manual_score, g.needs_manual_grade) for g in nb.grades},
                    "comments": {c.name: c.auto_comment for c in nb.comments},
                    "late": nb.late_submission_penalty,
                }
    return view


def untouched(copy: Path, course: Path) -> bool:
    """Nothing graded, recorded or written in ``copy`` of ``course`` (but the course secret, which the driver makes
    before it checks its workers)."""
    return {k: v for k, v in hashes(copy).items() if k != SECRET_FILE} == \
           {k: v for k, v in hashes(course).items() if k != SECRET_FILE}


def recorded(caplog) -> list[str]:
    return [r.getMessage().split()[-1] for r in caplog.records
            if r.name == RECORDER and r.getMessage().startswith("recorded ")]


def test_cluster_gives_the_local_scores_gradebook_and_files(course, settings, local, cluster, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger=RECORDER)
    local_course, local_outcomes = local
    remote = copy_course(course, tmp_path / "course")
    outcomes = autograde(remote, ASSIGNMENT, settings, scheduler=cluster.scheduler_address, progress=False)

    assert [(o.student, o.refused, o.scores) for o in outcomes] == \
           [(o.student, o.refused, o.scores) for o in local_outcomes]
    assert any(o.total > 0 for o in outcomes) and any(o.refused for o in outcomes)
    assert gradebook_view(remote) == gradebook_view(local_course)
    assert hashes(remote / "autograded") == hashes(local_course / "autograded")
    assert sorted(recorded(caplog)) == sorted(o.student for o in outcomes)


def test_a_worker_killed_mid_batch_loses_no_submission(course, settings, local, cluster, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger=RECORDER)
    _, local_outcomes = local
    remote = copy_course(course, tmp_path / "course")
    killed: dict = {}

    def kill_a_busy_worker() -> None:
        with Client(cluster.scheduler_address) as client:
            pids = client.run(os.getpid)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                busy = [w for w, keys in client.processing().items()
                        if any(str(key).startswith("reading-maths-grade-") for key in keys)]
                if busy:
                    killed.update(worker=busy[0], recorded_before=len(recorded(caplog)))
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    return
                time.sleep(0.02)

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    outcomes = autograde(remote, ASSIGNMENT, settings, scheduler=cluster.scheduler_address, progress=False)
    killer.join(timeout=130)

    assert killed, "no worker was ever busy"
    graded = sum(1 for o in local_outcomes if o.scores)
    assert killed["recorded_before"] < graded  # the kill came before the batch was done
    names = recorded(caplog)
    assert sorted(names) == sorted(set(names)) == sorted(o.student for o in local_outcomes)  # each once
    assert [(o.student, o.refused, o.scores) for o in outcomes] == \
           [(o.student, o.refused, o.scores) for o in local_outcomes]


def test_a_long_lived_worker_sees_a_grader_fixed_between_batches(settings, tmp_path):
    from reading_maths.grading.remote import grade_bytes

    root = Path(__file__).resolve().parents[1]
    course = tmp_path / "course"
    for name in ("source", "graders"):
        shutil.copytree(root / name / ASSIGNMENT, course / name / ASSIGNMENT)
    notebook = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"  # the reference solution: full marks
    shown = str(course / "submitted" / "ada" / ASSIGNMENT / notebook.name)

    before = grade_bytes(notebook.read_bytes(), shown, "submitted/ada/" + ASSIGNMENT + "/" + notebook.name, settings,
                        str(course), ASSIGNMENT)
    grader = course / "graders" / ASSIGNMENT / "softmax.py"
    grader.write_text(grader.read_text().replace('name="batch_3d", points=2', 'name="batch_3d", points=12'))
    after = grade_bytes(notebook.read_bytes(), shown, "submitted/ada/" + ASSIGNMENT + "/" + notebook.name, settings,
                        str(course), ASSIGNMENT)

    assert before.notebook == after.notebook == shown
    assert before.question("softmax").score == before.question("softmax").max_score
    assert after.question("softmax").max_score == before.question("softmax").max_score + 10
    assert after.question("softmax").score == after.question("softmax").max_score


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    address, stop = start_gateway(tmp_path_factory.mktemp("gateway"))
    yield address
    stop()


def test_a_gateway_cluster_gives_the_local_scores_and_is_shut_down_after(course, settings, local, gateway, tmp_path):
    local_course, local_outcomes = local
    remote = copy_course(course, tmp_path / "course")
    reports = []
    with dask.config.set(CLIENT_CONFIG):
        outcomes = autograde(remote, ASSIGNMENT, settings, scheduler=f"{gateway}?workers=2", progress=False,
                             on_workers=reports.extend)
        left = Gateway(gateway).list_clusters()

    assert [(o.student, o.refused, o.scores) for o in outcomes] == \
           [(o.student, o.refused, o.scores) for o in local_outcomes]
    assert gradebook_view(remote) == gradebook_view(local_course)
    assert len(reports) == 2 and all(r.mode == settings.sandbox.mode and not r.problems() for r in reports)
    assert left == []  # the cluster started for the batch is gone


def test_a_gateway_that_refuses_or_cannot_be_reached_is_said_before_grading(course, settings, gateway, tmp_path):
    remote = copy_course(course, tmp_path / "course")
    with dask.config.set({"gateway.auth.type": "basic", "gateway.auth.kwargs": {"password": "not the password"}}):
        with pytest.raises(ClusterUnavailable, match=f"the Dask Gateway at {gateway} refused: 401"):
            autograde(remote, ASSIGNMENT, settings, scheduler=f"{gateway}?workers=2", progress=False)
    nowhere = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ClusterUnavailable, match=f"cannot reach the Dask Gateway at {nowhere}"):
        autograde(remote, ASSIGNMENT, settings, scheduler=f"{nowhere}?workers=2", progress=False)
    assert untouched(remote, course)


def test_a_worker_without_bubblewrap_stops_the_batch_before_any_grading(course, tmp_path):
    remote = copy_course(course, tmp_path / "course")
    without_bwrap = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep) if not Path(d, "bwrap").exists())
    here = {"nthreads": 1, "host": "127.0.0.1"}
    workers = {"ready": {"cls": Nanny, "options": here},
               "no-bwrap": {"cls": Nanny, "options": {**here, "env": {"PATH": without_bwrap}}}}
    scheduler = {"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": None}}
    with SpecCluster(workers, scheduler=scheduler) as cluster:
        command = ["--course", str(remote), "autograde", ASSIGNMENT, "--scheduler", cluster.scheduler_address]
        done = CliRunner().invoke(main, command, env={"COLUMNS": "300"})
        untouched_after_refusal = untouched(remote, course)
        # a driver without a sandbox either may grade there with --unsafe-no-sandbox, as its tasks would anyway
        unsafe = subprocess.run([str(Path(sys.executable).parent / "reading-maths"), *command, "--unsafe-no-sandbox"],
                                env=dict(os.environ, PATH=without_bwrap, COLUMNS="300"), capture_output=True,
                                text=True, check=False)

    assert done.exit_code == 1, done.output
    table, refusal = done.output.split("Error: ")
    assert "doctor on 2 worker(s)" in table and "(ready)" in table and "(no-bwrap)" in table
    assert "1 of 2 worker(s) cannot grade, so nothing was graded" in refusal
    assert "(no-bwrap): no sandbox (bubblewrap (bwrap) is not installed); fix: install bubblewrap" in refusal
    assert "(ready)" not in refusal and "tcp://127.0.0.1:" in refusal
    assert untouched_after_refusal
    assert unsafe.returncode == 0, unsafe.stderr
    assert "REFUSED" not in unsafe.stdout and "autograde code: 6 submission(s)" in unsafe.stdout
