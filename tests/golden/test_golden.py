"""Golden files: what `function-asya render` prints for every example, reviewed like code.

Regenerate with `make pytest PYTEST_ARGS="tests/golden --update-golden"` and
commit the diff with a message that says why it changed.
"""

from __future__ import annotations

import difflib

import pytest
import yaml

from tests.golden.cases import CASES, Case
from tests.support import ROOT

WANT = ROOT / "tests" / "golden" / "want"


def as_text(documents: list[dict[str, object]]) -> str:
    return "".join(
        "---\n" + yaml.safe_dump(d, sort_keys=True, default_flow_style=False) for d in documents
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_render_matches_the_golden_file(case: Case, request: pytest.FixtureRequest) -> None:
    got = as_text(case.render())
    path = WANT / f"{case.name}.yaml"
    if request.config.getoption("--update-golden"):
        path.write_text(got)
    assert path.exists(), f"no golden file {path.name}; run with --update-golden"
    want = path.read_text()
    if got != want:
        diff = "".join(
            difflib.unified_diff(want.splitlines(True), got.splitlines(True), "want", "got")
        )
        pytest.fail(f"{case.name} differs from its golden file (-want, +got):\n{diff}")
