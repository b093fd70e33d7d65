"""The bench's tests: the alternative's Go functions are built on demand (they need Go)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from bench import alternative
from tests.support import ROOT


@pytest.fixture(scope="session")
def go_functions() -> None:
    """function-go-templating, function-auto-ready and Crossplane core v2.4 in .e2e/bin/.

    Built as `make bench-tools` builds them, once per machine (cached afterwards; a
    build already made is only linked again). Without Go: a skip saying why.
    """
    if shutil.which("go"):
        subprocess.run([str(ROOT / "e2e" / "build-tools"), "bench"], check=True, timeout=1800)
    if reason := alternative.missing():
        pytest.skip(reason)
