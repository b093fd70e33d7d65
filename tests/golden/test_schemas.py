"""Every rendered object of every example validates against the real schemas.

Kubernetes 1.37 strict (unknown fields are errors) and the XR's resolved spec and
status against our own XRD, for every user; KEDA 2.20, provider-upjet-aws and
Crossplane where ../shared is beside the project (one test each, skipped without).
"""

from __future__ import annotations

from typing import Any

import pytest

from function.models.observed import is_wrapped
from tests import schemas
from tests.golden.cases import CASES, Case
from tests.support import ROOT

XRD = ROOT / "xrd" / "xasyncactors.asya.sh.yaml"
XRD_V2 = ROOT / "xrd" / "asyncactors.asya.sh.v2.yaml"


def xr_schema(path: Any = XRD) -> dict[str, Any]:
    xrd = schemas.load_all(path)[0]
    return schemas.crd_schema_from(xrd, "v1alpha1")


def objects_to_validate(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for document in documents[1:]:
        if document["kind"] == "Result":
            continue
        if is_wrapped(document):
            spec = document["spec"]
            assert {"watch", "forProvider", "providerConfigRef"} <= set(spec)
            assert set(spec) <= {"watch", "forProvider", "providerConfigRef", "managementPolicies"}
            # Crossplane's management policies (provider-kubernetes Object v1alpha2).
            assert set(spec.get("managementPolicies", [])) <= {
                "Observe",
                "Create",
                "Update",
                "Delete",
                "LateInitialize",
                "*",
            }
            out.append(document["spec"]["forProvider"]["manifest"])
        else:
            out.append(document)
    return out


def problems_in(objects: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {
        f"{obj['kind']} {obj.get('metadata', {}).get('name', '')}": errors
        for obj in objects
        if (errors := schemas.errors(obj))
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_rendered_kubernetes_object_validates(case: Case) -> None:
    objects = [o for o in objects_to_validate(case.render()) if schemas.is_kubernetes(o)]
    assert objects
    assert problems_in(objects) == {}


def test_every_rendered_custom_resource_validates_against_its_crd() -> None:
    schemas.require_crds()
    problems = {}
    for case in CASES:
        objects = [o for o in objects_to_validate(case.render()) if not schemas.is_kubernetes(o)]
        if found := problems_in(objects):
            problems[case.name] = found
    assert problems == {}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_resolved_spec_and_status_validate_against_the_xrd(case: Case) -> None:
    xr = case.render()[0]
    body = {
        "apiVersion": xr["apiVersion"],
        "kind": xr["kind"],
        "spec": xr["spec"],
        "status": {k: v for k, v in xr["status"].items() if k != "conditions"},
    }
    assert schemas.errors(body, xr_schema(ROOT / case.xrd)) == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_pods_run_as_a_service_account_the_render_composes(case: Case) -> None:
    objects = objects_to_validate(case.render())
    accounts = {o["metadata"]["name"] for o in objects if o["kind"] == "ServiceAccount"}
    for deployment in (o for o in objects if o["kind"] == "Deployment"):
        name = deployment["spec"]["template"]["spec"].get("serviceAccountName")
        assert name is None or name in accounts, f"{name} is not among {sorted(accounts)}"


def test_the_xrds_validate_against_crossplanes_schema() -> None:
    schemas.require_crds()
    assert {path.name: schemas.errors(schemas.load_all(path)[0]) for path in (XRD, XRD_V2)} == {
        XRD.name: [],
        XRD_V2.name: [],
    }


def test_v2_objects_are_composed_directly_in_the_actors_namespace() -> None:
    case = next(c for c in CASES if c.name == "v2-image-enhancer-ready")
    for document in case.render()[1:]:
        assert not is_wrapped(document)
        assert document["metadata"]["namespace"] == "production"
    queue = next(d for d in case.render() if d["kind"] == "Queue")
    assert queue["apiVersion"] == "sqs.aws.m.upbound.io/v1beta1"
    assert "deletionPolicy" not in queue["spec"]


FLAVOR_FILES = sorted((ROOT / "examples" / "flavors").glob("*.yaml"))


@pytest.mark.parametrize("path", FLAVOR_FILES, ids=lambda p: p.stem)
def test_example_flavors_are_labelled_with_their_name(path: Any) -> None:
    for doc in schemas.load_all(path):
        assert doc["kind"] == "EnvironmentConfig"
        assert doc["metadata"]["labels"]["asya.sh/flavor"] == doc["metadata"]["name"]


def test_example_flavors_are_valid_environment_configs() -> None:
    schemas.require_crds()
    problems = {
        path.stem: errors
        for path in FLAVOR_FILES
        for doc in schemas.load_all(path)
        if (errors := schemas.errors(doc))
    }
    assert problems == {}


@pytest.mark.parametrize(
    "path", sorted(ROOT.glob("examples/*/claim.yaml")), ids=lambda p: p.parent.name
)
def test_example_claims_validate_against_the_xrd(path: Any) -> None:
    [claim] = schemas.load_all(path)
    assert schemas.errors({"spec": claim["spec"]}, xr_schema()) == []
