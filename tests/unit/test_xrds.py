"""The v1 and v2 XRDs describe the same actor, and the spec model agrees with them."""

from __future__ import annotations

from typing import Any

from function.models import names, pod
from function.models import spec as spec_model
from tests.schemas import load_all
from tests.support import ROOT

V1 = ROOT / "xrd" / "xasyncactors.asya.sh.yaml"
V2 = ROOT / "xrd" / "asyncactors.asya.sh.v2.yaml"


def version(path: Any) -> dict[str, Any]:
    xrd: dict[str, Any] = load_all(path)[0]
    [only] = xrd["spec"]["versions"]
    return only


def test_both_forms_have_the_same_schema_and_printer_columns() -> None:
    assert version(V1) == version(V2)


def test_the_v2_form_is_namespaced_without_a_claim() -> None:
    xrd = load_all(V2)[0]
    assert xrd["apiVersion"] == "apiextensions.crossplane.io/v2"
    assert xrd["spec"]["scope"] == "Namespaced"
    assert "claimNames" not in xrd["spec"]
    assert xrd["spec"]["names"]["kind"] == "AsyncActor"


def test_the_spec_model_knows_every_xrd_field_and_no_other() -> None:
    properties = version(V1)["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    model_fields = {field.alias or name for name, field in spec_model.Spec.model_fields.items()}
    assert set(properties) == model_fields


def test_no_flavor_settable_field_has_a_schema_default() -> None:
    def defaults(node: Any, path: str = "") -> list[str]:
        found = []
        if isinstance(node, dict):
            if "default" in node:
                found.append(path)
            for key, value in node.items():
                found += defaults(value, f"{path}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                found += defaults(value, f"{path}[{index}]")
        return found

    assert defaults(version(V1)["schema"]) == []


def test_required_fields_and_limits_match_the_spec() -> None:
    spec = version(V1)["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["required"] == ["actor", "image", "handler"]
    assert spec["properties"]["flavors"]["maxItems"] == spec_model.MAX_FLAVORS
    assert spec["properties"]["actor"]["pattern"] == names.DNS_LABEL


def test_any_state_proxy_name_the_xrd_accepts_makes_a_valid_container_name() -> None:
    spec = version(V1)["schema"]["openAPIV3Schema"]["properties"]["spec"]
    name = spec["properties"]["stateProxy"]["items"]["properties"]["name"]
    assert name["maxLength"] == spec_model.MAX_STATE_PROXY_NAME
    assert len(pod.connector_name("x" * name["maxLength"])) == 63
