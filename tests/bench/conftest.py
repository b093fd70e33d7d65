"""The bench's tests: the alternative's Go functions are built on demand (they need Go)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from bench import alternative
from tests.support import ROOT


@pytest.fixture(scope="session")
def go_functions() -> None:
    """function-go-templating and function-auto-ready in .e2e/bin/, or a skip saying why.

    Built as `make bench-tools` builds them, once per machine (cached afterwards).
    """
    if alternative.missing() and shutil.which("go"):
        subprocess.run([str(ROOT / "e2e" / "build-tools"), "bench"], check=True, timeout=1800)
    if reason := alternative.missing():
        pytest.skip(reason)
