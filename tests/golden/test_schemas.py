"""Every rendered object of every example validates against the real schemas.

Kubernetes 1.37 strict (unknown fields are errors), KEDA 2.20, provider-upjet-aws
and Crossplane; the XR's resolved spec and status against our own XRD.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from function.observed import is_wrapped
from tests import schemas
from tests.golden.cases import CASES, Case
from tests.support import ROOT

XRD = ROOT / "xrd" / "xasyncactors.asya.sh.yaml"


def xr_schema() -> dict[str, Any]:
    xrd = yaml.safe_load(XRD.read_text())
    return schemas.crd_schema_from(xrd, "v1alpha1")


def objects_to_validate(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for document in documents[1:]:
        if document["kind"] == "Result":
            continue
        if is_wrapped(document):
            assert set(document["spec"]) == {"watch", "forProvider", "providerConfigRef"}
            out.append(document["spec"]["forProvider"]["manifest"])
        else:
            out.append(document)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_rendered_object_validates(case: Case) -> None:
    schemas.require_shared()
    documents = case.render()
    problems = {
        f"{obj['kind']} {obj.get('metadata', {}).get('name', '')}": errors
        for obj in objects_to_validate(documents)
        if (errors := schemas.errors(obj))
    }
    assert problems == {}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_resolved_spec_and_status_validate_against_the_xrd(case: Case) -> None:
    schemas.require_shared()
    xr = case.render()[0]
    body = {
        "apiVersion": xr["apiVersion"],
        "kind": xr["kind"],
        "spec": xr["spec"],
        "status": {k: v for k, v in xr["status"].items() if k != "conditions"},
    }
    assert schemas.errors(body, xr_schema()) == []


def test_the_xrd_validates_against_crossplanes_schema() -> None:
    schemas.require_shared()
    assert schemas.errors(yaml.safe_load(XRD.read_text())) == []


@pytest.mark.parametrize(
    "path", sorted((ROOT / "examples" / "flavors").glob("*.yaml")), ids=lambda p: p.stem
)
def test_example_flavors_are_valid_environment_configs(path: Any) -> None:
    schemas.require_shared()
    for doc in schemas.load_all(path):
        assert schemas.errors(doc) == []
        assert doc["metadata"]["labels"]["asya.sh/flavor"] == doc["metadata"]["name"]


@pytest.mark.parametrize(
    "path", sorted(ROOT.glob("examples/*/claim.yaml")), ids=lambda p: p.parent.name
)
def test_example_claims_validate_against_the_xrd(path: Any) -> None:
    schemas.require_shared()
    [claim] = schemas.load_all(path)
    assert schemas.errors({"spec": claim["spec"]}, xr_schema()) == []
