"""Observed ScaledObjects and HPAs as KEDA 2.18, 2.20.0, 2.20.2 and main write them, read into status.

Each file in keda_versions/ holds one version's cases: what KEDA writes for an actor
serving, napping, failing to read its metric, or paused, and the phase, autoscaler
reason and `phase.scaling` the function derives from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from function.compose import renderers
from function.status import phase
from tests import schemas
from tests.golden.test_schemas import xr_schema
from tests.support import ROOT
from tests.unit.render.plans import plan, stage

HERE = Path(__file__).parent / "keda_versions"
VERSIONS = ("2.18", "2.20.0", "2.20.2", "main")
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "keda-hpa-echo", "namespace": "team"},
}


def load(version: str) -> list[dict[str, Any]]:
    [found] = schemas.load_all(HERE / f"{version}.yaml")
    cases: list[dict[str, Any]] = found  # type: ignore[assignment]  # a YAML list of cases
    return cases


def cases() -> list[Any]:
    return [
        pytest.param(case, id=f"{version}: {case['case']}")
        for version in VERSIONS
        for case in load(version)
    ]


def derive(case: dict[str, Any]) -> phase.Report:
    observed = stage("ready")
    manifest = observed["scaledobject"]["status"]["atProvider"]["manifest"]
    manifest["status"] = case["scaledObject"]["status"]
    manifest["metadata"]["annotations"] = case["scaledObject"].get("annotations", {})
    if "triggers" in case["scaledObject"]:
        manifest["spec"]["triggers"] = case["scaledObject"]["triggers"]
    deployment = observed["deployment"]["status"]["atProvider"]["manifest"]["status"]
    deployment |= case["deployment"]
    hpas = [] if case["hpa"] is None else [HPA | {"status": case["hpa"]}]
    actor = plan(observed=observed, autoscalers=hpas)
    return phase.derive(actor, renderers.render_all(actor))


@pytest.mark.parametrize("case", cases())
def test_each_version_reads_into_the_phase_and_scaling_figures(case: dict[str, Any]) -> None:
    found = derive(case)
    want = case["want"]
    [autoscaler] = [a for a in found.aspects if a.type == "AutoscalerReady"]
    assert (found.phase.value, autoscaler.reason) == (want["phase"], want["autoscaler"])
    assert found.status["infrastructure"]["keda"]["message"] == want.get("message", "")
    assert found.status["scaling"] == want["scaling"]


def test_every_version_has_its_cases() -> None:
    assert {version: len(load(version)) for version in VERSIONS} == {
        "2.18": 3,
        "2.20.0": 3,
        "2.20.2": 4,
        "main": 3,
    }


@pytest.mark.parametrize("case", cases())
@pytest.mark.parametrize(
    "xrd", ["xrd/xasyncactors.asya.sh.yaml", "xrd/asyncactors.asya.sh.v2.yaml"]
)
def test_the_status_each_version_reads_into_is_one_the_xrds_declare(
    case: dict[str, Any], xrd: str
) -> None:
    # A field the XRD does not declare is pruned by the API server, never shown.
    body = {"apiVersion": "asya.sh/v1alpha1", "kind": "AsyncActor", "status": derive(case).status}
    assert schemas.errors(body, xr_schema(ROOT / xrd)) == []
