"""``pytest --fast`` leaves out the marked tests and fails an unmarked one that is not in-process."""


TESTS = '''
import multiprocessing
import subprocess
import sys

import pytest


def test_in_process():
    assert sum(range(10)) == 45


def test_quick_tool():
    subprocess.run(["git", "--version"], check=True, capture_output=True)


def test_runs_a_program():
    subprocess.run([sys.executable, "-c", "pass"], check=False)


def test_swallows_what_it_started():
    try:
        subprocess.run(["bwrap", "--version"], check=False)
    except Exception:
        pass


def test_starts_a_process():
    multiprocessing.get_context("fork").Process(target=print).start()


def test_computes_for_long():
    import time
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass


@pytest.mark.sandbox
def test_marked():
    subprocess.run([sys.executable, "-c", "pass"], check=False)


@pytest.mark.kernel
def test_marked_quick():
    pass
'''


def test_fast_deselects_marked_tests_and_fails_the_unmarked_slow_ones(pytester):
    pytester.makepyfile(test_inner=TESTS)
    result = pytester.runpytest_inprocess("-p", "inprocess", "--fast", "--cpu-budget=0.1", "-p", "no:randomly",
                                         "-p", "no:xdist")
    outcomes = {r.nodeid.split("::")[-1]: r.outcome for r in result.reprec.getreports("pytest_runtest_logreport")
                if r.when == "teardown"}
    assert "test_marked" not in outcomes and "test_marked_quick" not in outcomes
    assert outcomes == {"test_in_process": "passed", "test_quick_tool": "passed", "test_runs_a_program": "failed",
                        "test_swallows_what_it_started": "failed", "test_starts_a_process": "failed",
                        "test_computes_for_long": "failed"}
    text = result.stdout.str()
    assert "mark the test @pytest.mark.sandbox" in text and "mark it @pytest.mark.slow" in text


def test_without_fast_nothing_is_watched_or_left_out(pytester):
    pytester.makepyfile(test_inner=TESTS)
    result = pytester.runpytest_inprocess("-p", "inprocess", "--cpu-budget=0.1", "-p", "no:randomly", "-p", "no:xdist",
                                         "-k", "in_process or computes or marked_quick")
    result.assert_outcomes(passed=3, deselected=5)
