"""Golden files and the stages table: what `function-asya render` prints, reviewed like code.

A few cases (cases.FULL) are kept whole in want/; every case's life stage is a
row of stages.py. Regenerate the files with
`make pytest PYTEST_ARGS="tests/golden --update-golden"`; a row that no longer
holds fails with the fields that differ, and is edited by hand. Commit either
change with a message that says why it changed.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Iterable
from typing import Any, cast

import pytest
import yaml
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import cache
from function import runner as fn
from function.cli.render.pipeline import Outcome
from function.codec import structs
from function.models import spec as spec_model
from function.models.observed import is_wrapped
from tests.golden.cases import CASES, FULL, Case
from tests.golden.stages import STAGES, Stage
from tests.support import ROOT

WANT = ROOT / "tests" / "golden" / "want"


def as_text(documents: list[dict[str, object]]) -> str:
    return "".join(
        "---\n" + yaml.safe_dump(d, sort_keys=True, default_flow_style=False) for d in documents
    )


FULL_CASES = [case for case in CASES if case.name in FULL]


@pytest.fixture(scope="module")
def reference() -> dict[str, str]:
    """Every case rendered once, as served: the caches on, the C encoder where built."""
    return {case.name: as_text(case.render()) for case in CASES}


@pytest.mark.parametrize("case", FULL_CASES, ids=[c.name for c in FULL_CASES])
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


def test_every_golden_file_is_a_full_case() -> None:
    assert {path.stem for path in WANT.glob("*.yaml")} == set(FULL)


def pick(documents: list[dict[str, Any]], path: str) -> Any:
    """A rendered value: `xr.` reads the XR, `pod.` the Deployment's pod spec.

    In a list of named items (containers, env), a key picks the item of that name.
    """
    root, *keys = path.split(".")
    node: Any = documents[0] if root == "xr" else pod_spec(documents)
    for key in keys:
        node = next(i for i in node if i["name"] == key) if isinstance(node, list) else node[key]
    return node


def pod_spec(documents: list[dict[str, Any]]) -> dict[str, Any]:
    [deployment] = [
        d for d in documents[1:] if d["kind"] != "Result" and resource_name(d) == "deployment"
    ]
    manifest = (
        deployment["spec"]["forProvider"]["manifest"] if is_wrapped(deployment) else deployment
    )
    return cast(dict[str, Any], manifest["spec"]["template"]["spec"])


def resource_name(document: dict[str, Any]) -> str:
    return cast(str, document["metadata"]["annotations"]["crossplane.io/composition-resource-name"])


def stage_of(documents: list[dict[str, Any]], outcome: Outcome, shows: Iterable[str]) -> Stage:
    """What a render reports, in the shape of a row of the stages table."""
    xr, composed = documents[0], documents[1:]
    status = xr.get("status", {})
    ready: dict[str, Any] = next(
        (c for c in status.get("conditions", []) if c["type"] == "Ready"), {}
    )
    infrastructure = {
        part: (block.get("ready"), block.get("message", ""))
        for part, block in status.get("infrastructure", {}).items()
    }
    resources = outcome.desired.resources
    printed = sorted(resource_name(d) for d in composed if d.get("kind") != "Result")
    assert printed == sorted(resources), "render prints each desired resource once"
    return Stage(
        phase=status.get("phase"),
        ready=ready.get("message") or ready.get("reason", ""),
        queue=infrastructure["queue"],
        keda=infrastructure["keda"],
        workload=infrastructure["workload"],
        unready=" ".join(n for n in printed if resources[n].ready != fnv1.READY_TRUE),
        ready_resources=" ".join(n for n in printed if resources[n].ready == fnv1.READY_TRUE),
        queue_url=status.get("queueUrl", ""),
        results=tuple(d["message"] for d in composed if d.get("kind") == "Result"),
        shows={path: pick(documents, path) for path in shows},
    )


def test_the_table_has_a_row_for_every_case() -> None:
    assert set(STAGES) == {case.name for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_case_reports_its_life_stage(case: Case) -> None:
    want = STAGES[case.name]
    assert stage_of(*case.run(), want.shows) == want


def test_protobufs_own_api_renders_every_case_as_the_c_encoder_does(
    monkeypatch: pytest.MonkeyPatch, reference: dict[str, str]
) -> None:
    """Where no C compiler built the encoder, structs uses protobuf's API: same answers."""
    monkeypatch.setattr(structs, "_encoder", None)
    for case in CASES:
        assert as_text(case.render()) == reference[case.name], case.name


def test_the_caches_never_change_an_answer(
    monkeypatch: pytest.MonkeyPatch, reference: dict[str, str]
) -> None:
    """Every case, byte for byte, from a cold runner, a warm one and one without caches."""
    runner = fn.FunctionRunner
    shared = runner()
    monkeypatch.setattr(fn, "FunctionRunner", lambda: shared)
    for round_ in ("cold", "warm"):
        for case in CASES:
            assert as_text(case.render()) == reference[case.name], (round_, case.name)
    assert shared.memo.hits > 0

    # No resolve memo, and no response cache in the server render starts.
    monkeypatch.setattr(cache.ContentCache, "enabled", property(lambda _self: False))
    uncached = runner()
    monkeypatch.setattr(fn, "FunctionRunner", lambda: uncached)
    for case in CASES:
        assert as_text(case.render()) == reference[case.name], case.name
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
    assert any(isinstance(value, fn.Prepared) for value, _ in kept)
    assert defaults == (spec_model.DEFAULTS, spec_model.STATE_PROXY_DEFAULTS)
    for value, when_kept in kept:
        assert value == when_kept
