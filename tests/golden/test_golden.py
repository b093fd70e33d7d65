"""Golden files: what `function-asya render` prints for every example, reviewed like code.

Regenerate with `make pytest PYTEST_ARGS="tests/golden --update-golden"` and
commit the diff with a message that says why it changed.
"""

from __future__ import annotations

import difflib

import pytest
import yaml

from function import cache, fn, parse
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


def test_the_caches_never_change_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every golden file, byte for byte, from a cold runner, a warm one and one without caches."""
    real_bytes_cache = cache.BytesCache
    shared = fn.FunctionRunner()
    monkeypatch.setattr(fn, "FunctionRunner", lambda: shared)
    for round_ in ("cold", "warm"):
        for case in CASES:
            assert as_text(case.render()) == (WANT / f"{case.name}.yaml").read_text(), (
                round_,
                case.name,
            )
    assert shared.caches.flavors.hits > 0
    assert shared.caches.inputs.hits > 0
    assert shared.caches.merges.hits > 0

    monkeypatch.setattr(parse, "FLAVOR_CACHE_SIZE", 0)
    monkeypatch.setattr(parse, "INPUT_CACHE_SIZE", 0)
    monkeypatch.setattr(parse, "MERGED_CACHE_SIZE", 0)
    # And no response cache in the server render starts.
    monkeypatch.setattr(cache, "BytesCache", lambda _size: real_bytes_cache(0))
    uncached = parse.Caches()
    assert (uncached.flavors.size, uncached.inputs.size, uncached.merges.size) == (0, 0, 0)
    monkeypatch.setattr(shared, "caches", uncached)
    for case in CASES:
        assert as_text(case.render()) == (WANT / f"{case.name}.yaml").read_text(), case.name
    assert len(uncached.flavors) == len(uncached.merges) == 0
