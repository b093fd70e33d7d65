"""The instruction count's measured program runs as callgrind would run it, with each stage left out."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench import instructions
from tests.support import ROOT

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("without", [None, *instructions.STAGES, *instructions.DROPPED])
def test_the_measured_program_answers_without_each_stage(without: str | None) -> None:
    command = [sys.executable, "-m", "bench.instructions", "--run", "2"]
    done = subprocess.run(
        [*command, *(["--without", without] if without else [])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
