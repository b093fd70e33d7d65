"""Golden files: what `function-asya render` prints for every example, reviewed like code.

Regenerate with `make pytest PYTEST_ARGS="tests/golden --update-golden"` and
commit the diff with a message that says why it changed.
"""

from __future__ import annotations

import copy
import difflib
from typing import Any

import pytest
import yaml

from function import cache, parse
from function import pipeline as fn
from function.codec import structs
from function.models import spec as spec_model
from function.resolve.flavors import Merged
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


def test_protobufs_own_api_renders_every_golden_file_as_the_c_codec_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where no C compiler built the codec, structs uses protobuf's API: same answers."""
    monkeypatch.setattr(structs, "_encoder", None)
    for case in CASES:
        assert as_text(case.render()) == (WANT / f"{case.name}.yaml").read_text(), case.name


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


def test_nothing_shared_between_calls_is_ever_mutated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defaults and cached values are shared by every actor: rendering must leave them as they were.

    Resolving shares the maps and lists it does not change with the layers they came
    from; one stage mutating such a map would change every later actor's answer.
    Each cached value is copied the moment it is computed, and compared at the end.
    """
    computed: list[tuple[object, object]] = []
    real_get = cache.ContentCache.get

    def recording_get(self: cache.ContentCache[Any], content: bytes, compute: Any) -> Any:
        def recorded() -> Any:
            value = compute()
            computed.append((value, copy.deepcopy(value)))
            return value

        return real_get(self, content, recorded)

    monkeypatch.setattr(cache.ContentCache, "get", recording_get)
    shared = fn.FunctionRunner()
    monkeypatch.setattr(fn, "FunctionRunner", lambda: shared)
    defaults = copy.deepcopy((spec_model.DEFAULTS, spec_model.STATE_PROXY_DEFAULTS))
    for _ in range(2):
        for case in CASES:
            case.render()
    assert shared.caches.merges.hits > 0
    assert any(isinstance(value, Merged) for value, _ in computed)
    assert defaults == (spec_model.DEFAULTS, spec_model.STATE_PROXY_DEFAULTS)
    for value, when_computed in computed:
        assert value == when_computed
