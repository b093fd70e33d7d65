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
    runner = fn.FunctionRunner
    shared = runner()
    monkeypatch.setattr(fn, "FunctionRunner", lambda: shared)
    for round_ in ("cold", "warm"):
        for case in CASES:
            assert as_text(case.render()) == (WANT / f"{case.name}.yaml").read_text(), (
                round_,
                case.name,
            )
    assert shared.memo.hits > 0

    # No resolve memo, and no response cache in the server render starts.
    monkeypatch.setattr(cache.ContentCache, "enabled", property(lambda _self: False))
    uncached = runner()
    monkeypatch.setattr(fn, "FunctionRunner", lambda: uncached)
    for case in CASES:
        assert as_text(case.render()) == (WANT / f"{case.name}.yaml").read_text(), case.name
    assert len(uncached.memo) == uncached.memo.hits == 0


def test_nothing_shared_between_calls_is_ever_mutated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defaults and remembered values are shared by every actor: rendering must leave them as they were.

    Resolving shares the maps and lists it does not change with the layers they came
    from; one stage mutating such a map would change every later actor's answer.
    Each remembered value is copied the moment it is kept, and compared at the end.
    """
    kept: list[tuple[object, object]] = []
    real_put = cache.ContentCache.put

    def recording_put(self: cache.ContentCache[Any], key: bytes, value: Any) -> None:
        kept.append((value, copy.deepcopy(value)))
        real_put(self, key, value)

    monkeypatch.setattr(cache.ContentCache, "put", recording_put)
    shared = fn.FunctionRunner()
    monkeypatch.setattr(fn, "FunctionRunner", lambda: shared)
    defaults = copy.deepcopy((spec_model.DEFAULTS, spec_model.STATE_PROXY_DEFAULTS))
    for _ in range(2):
        for case in CASES:
            case.render()
    assert shared.memo.hits > 0
    assert any(isinstance(value, parse.Shared) for value, _ in kept)
    assert defaults == (spec_model.DEFAULTS, spec_model.STATE_PROXY_DEFAULTS)
    for value, when_kept in kept:
        assert value == when_kept
