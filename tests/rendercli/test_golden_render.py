"""Golden files of `function-asya render`'s stdout, byte for byte, in each release's shape.

These are what a pipeline comparing golden files sees: the image-enhancer example
as crossplane render v2.3+ prints it (the default) and as v2.0-v2.2 printed it.
Regenerate with `make pytest PYTEST_ARGS="tests/rendercli --update-golden"` and
commit the diff with a message that says why it changed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import pytest

from tests import support

pytestmark = pytest.mark.slow
WANT = support.ROOT / "tests" / "rendercli" / "want"
FLAVORS = (
    "--required-resources",
    "examples/flavors",
    "--required-resources",
    "examples/platform",
)


@dataclass(frozen=True)
class GoldenRender:
    name: str
    args: tuple[str, ...]


V1 = ("examples/image-enhancer/xr.yaml", "examples/composition.yaml", "examples/functions.yaml")
V2 = (
    "examples/v2/image-enhancer/xr.yaml",
    "examples/v2/composition.yaml",
    "examples/functions.yaml",
)
READY = ("--observed-resources", "examples/image-enhancer/observed/ready.yaml")
CASES = [
    # `make render`, with the results.
    GoldenRender("image-enhancer-ready.v2.3", (*V1, *FLAVORS, *READY, "-r")),
    GoldenRender(
        "image-enhancer-ready.v2.2", (*V1, *FLAVORS, *READY, "-r", "--crossplane-version", "v2.2")
    ),
    # Nothing observed yet: composed names derived from the XR's UID.
    GoldenRender("image-enhancer-created.v2.3", (*V1, *FLAVORS, "-r")),
    GoldenRender(
        "image-enhancer-created.v2.2", (*V1, *FLAVORS, "-r", "--crossplane-version", "v2.2.4")
    ),
    # The v2 form: a namespaced XR.
    GoldenRender("v2-image-enhancer-created.v2.3", (*V2, *FLAVORS, "-r")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_render_prints_the_golden_bytes(case: GoldenRender, request: pytest.FixtureRequest) -> None:
    result = support.render_process(*case.args, cwd=support.ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    path = WANT / f"{case.name}.yaml"
    if request.config.getoption("--update-golden"):
        path.write_text(result.stdout)
    want = path.read_text()
    if result.stdout != want:
        diff = "".join(
            difflib.unified_diff(
                want.splitlines(True), result.stdout.splitlines(True), "want", "got"
            )
        )
        pytest.fail(f"{case.name} differs from its golden file (-want, +got):\n{diff}")
