"""Shared fixtures: the course root, and the environment every test runs in."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives JupyterLab in a headless Chromium (tests/test_browser.py)")
