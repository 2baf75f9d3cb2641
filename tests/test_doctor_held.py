"""Every ``[held]`` line of ``reading-maths doctor`` is proven: as root and as an ordinary user, each guarantee the
doctor says this machine gives is checked by its check in ``tests/hostile/held.py``, which fails when it stops
holding, and a held line with no check fails this test."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hostile.held import check_for
from hostile.ordinary import as_user, ordinary_user

from conftest import ROOT
from test_hostile import run_cli

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def held(mode) -> list[str]:
    done = run_cli(mode, "doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    sandbox = done.stdout.split("\nexchange: ")[0]  # a hub's exchange lines: tests/test_untrusted_inputs.py
    return [line.split("] ", 1)[1] for line in sandbox.splitlines() if line.startswith("  [held] ")]


def test_every_held_line_has_a_check(held):
    assert len(held) >= 8
    assert [line for line in held if check_for(line) is None] == [], "add its check to tests/hostile/held.py"


def test_every_held_guarantee_holds(mode, held):
    keys = [check_for(line) for line in held if check_for(line)]
    command = [sys.executable, "-m", "hostile.held", *keys]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
    if mode == "user":
        env["HOME"] = ordinary_user()[2]
        command = as_user(command)
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {}

