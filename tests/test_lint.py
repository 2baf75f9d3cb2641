"""The code is ruff-clean (rules in pyproject.toml)."""

import subprocess
import sys

from conftest import ROOT


def test_ruff_finds_nothing():
    folders = ["reading_maths", "classroom", "graders", "tests", "benchmarks", "hub"]
    done = subprocess.run([sys.executable, "-m", "ruff", "check", *folders],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
