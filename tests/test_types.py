"""The package type-checks (mypy, configured in pyproject.toml: missing stubs and the modules left to their owners
are listed there)."""

import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


def test_mypy_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
