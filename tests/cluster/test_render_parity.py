"""The real `crossplane render` (the CLI, with Crossplane core as its engine, no Docker) and
`function-asya render` print the same documents for every example and golden case."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests import support
from tests.cluster import rig
from tests.golden.cases import CASES, EXAMPLES, Case

FUNCTIONS = EXAMPLES / "functions.yaml"
# Only the tools: no CRD is installed, so this runs without ../shared too.
NEEDS_SCHEMAS = False


@pytest.fixture(scope="module")
def served() -> Iterator[support.Served]:
    """function-asya served without TLS, as the Development runtime dials it."""
    with support.serving("--insecure") as served:
        yield served


def arguments(case: Case) -> list[str]:
    """The render arguments both tools take for a case."""
    args = [case.xr, case.composition, str(FUNCTIONS), "-r", "--xrd", case.xrd]
    if case.observed:
        args += ["-o", case.observed]
    for path in case.required:
        args += ["-e", path]
    return args


def real_render(case: Case, address: str) -> subprocess.CompletedProcess[str]:
    """`crossplane render` with core as the engine and function-asya at `address`."""
    return subprocess.run(
        [
            str(rig.BIN / "crossplane"),
            "render",
            *arguments(case),
            "--crossplane-binary",
            str(rig.BIN / "crossplane-core"),
            "-a",
            "render.crossplane.io/runtime=Development",
            "-a",
            f"render.crossplane.io/runtime-development-target={address}",
        ],
        capture_output=True,
        text=True,
        cwd=support.ROOT,
        timeout=120,
        check=False,
    )


def documents(text: str) -> list[Any]:
    """The printed documents, the Results among them in a fixed order.

    Crossplane's reconciler records "not yet ready" for each composed resource in Go's
    map order, which changes from run to run; function-asya prints them by name.
    """
    printed = [d for d in yaml.safe_load_all(text) if d is not None]
    results = [d for d in printed if d.get("kind") == "Result"]
    others = [d for d in printed if d.get("kind") != "Result"]
    return others + sorted(results, key=lambda d: yaml.safe_dump(d, sort_keys=True))


PARITY_CASES = [case for case in CASES if not case.status_lost]


@pytest.mark.parametrize("case", PARITY_CASES, ids=lambda case: case.name)
def test_the_real_cli_and_ours_print_the_same_documents(case: Case, served: support.Served) -> None:
    real = real_render(case, served.address)
    ours = support.render_cli(*arguments(case), cwd=support.ROOT)
    assert ours.returncode == real.returncode, (real.stderr, ours.stderr)
    assert documents(ours.stdout) == documents(real.stdout)
