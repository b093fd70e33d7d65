"""The v1 and v2 XRDs describe the same actor, and what they refuse the function refuses too.

Both are generated from the models (tests/unit/test_generated.py keeps the files so);
these tests read the committed files, as a cluster would.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from function import runner as fn
from function.models import names, pod, xrd
from function.models import spec as spec_model
from function.status.phase import Phase
from tests import schemas, support
from tests.schemas import load_all
from tests.support import ROOT

V1 = ROOT / "xrd" / "xasyncactors.asya.sh.yaml"
V2 = ROOT / "xrd" / "asyncactors.asya.sh.v2.yaml"


def version(path: Any) -> dict[str, Any]:
    found: dict[str, Any] = load_all(path)[0]
    [only] = found["spec"]["versions"]
    return only


def openapi(path: Any = V1) -> dict[str, Any]:
    schema: dict[str, Any] = version(path)["schema"]["openAPIV3Schema"]
    return schema


def test_both_forms_have_the_same_schema_and_printer_columns() -> None:
    assert version(V1) == version(V2)


def test_the_v2_form_is_namespaced_without_a_claim() -> None:
    v2 = load_all(V2)[0]
    assert v2["apiVersion"] == "apiextensions.crossplane.io/v2"
    assert v2["spec"]["scope"] == "Namespaced"
    assert "claimNames" not in v2["spec"]
    assert v2["spec"]["names"] == load_all(V1)[0]["spec"]["claimNames"]


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


def nodes(node: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every schema node under `node` (itself first), by its path."""
    found = [(path, node)]
    for key, child in node.get("properties", {}).items():
        found += nodes(child, f"{path}.{key}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            found += nodes(node[key], f"{path}[]")
    return found


def test_the_schema_is_structural() -> None:
    # What the API server asks of a CRD's schema, besides what Crossplane adds.
    for path, node in nodes(openapi()):
        assert node.get("type") in {"object", "array", "string", "integer", "number", "boolean"}, (
            path
        )
        assert not {"$ref", "anyOf", "allOf", "oneOf", "default", "nullable"} & set(node), path
        assert node["type"] != "array" or "items" in node, path
        assert not ("properties" in node and "additionalProperties" in node), path


def test_printer_columns_and_the_scale_subresource_read_declared_fields() -> None:
    declared = {path for path, _ in nodes(openapi())} | {".metadata.creationTimestamp"}
    paths = [column["jsonPath"] for column in version(V1)["additionalPrinterColumns"]]
    paths += version(V1)["subresources"]["scale"].values()
    assert [path for path in paths if path not in declared] == []


def test_required_fields_and_limits_match_the_spec() -> None:
    spec = openapi()["properties"]["spec"]
    assert spec["required"] == ["actor", "image", "handler"]
    assert spec["properties"]["flavors"]["maxItems"] == spec_model.MAX_FLAVORS
    assert spec["properties"]["actor"]["pattern"] == names.DNS_LABEL


def test_any_state_proxy_name_the_xrd_accepts_makes_a_valid_container_name() -> None:
    spec = openapi()["properties"]["spec"]
    name = spec["properties"]["stateProxy"]["items"]["properties"]["name"]
    assert name["maxLength"] == spec_model.MAX_STATE_PROXY_NAME
    assert len(pod.connector_name("x" * name["maxLength"])) == 63


def default_at(path: str) -> Any:
    """The function's default at a schema path (a list's items as `[]`)."""
    data: Any = spec_model.DEFAULTS
    lowest = {
        "stateProxy[].": spec_model.STATE_PROXY_DEFAULTS,
        "metrics.": spec_model.Metrics().model_dump(by_alias=True),
    }
    for prefix, defaults in lowest.items():
        if path.startswith(prefix):
            data, path = defaults, path.removeprefix(prefix)
    for key in path.split("."):
        data = data[key]
    return data


def test_each_default_a_description_names_is_the_functions() -> None:
    spec = openapi()["properties"]["spec"]
    said = {
        path.lstrip("."): match.group(1)
        for path, node in nodes(spec)
        if (match := re.search(r"Default: ([^ .]+)", node.get("description", "")))
    }
    assert len(said) >= 10, said
    wrong = {
        path: value
        for path, value in said.items()
        if str(default_at(path)).lower() != value.lower()
    }
    assert wrong == {}


def test_the_phase_description_names_every_phase() -> None:
    description = openapi()["properties"]["status"]["properties"]["phase"]["description"]
    assert [phase for phase in Phase if phase.value not in description] == []


def test_the_generator_builds_both_forms_around_one_version() -> None:
    assert xrd.v1()["spec"]["versions"] == xrd.v2()["spec"]["versions"] == [xrd.version()]


# What the XRD refuses that the hand-written XRDs took: each is a rule of the spec model,
# which refused it already (the actor's value is the resolved spec's: it wins every merge).
NEWLY_REFUSED = [
    ({"env": [{"name": ""}]}, "env"),
    ({"sidecars": [{"name": "", "image": "s:1"}]}, "sidecars"),
    ({"initContainers": [{"name": "", "image": "s:1"}]}, "initContainers"),
    ({"sidecar": {"env": [{"name": "", "value": "x"}]}}, "sidecar.env"),
    ({"nodeSelector": {"disk": True}}, "nodeSelector"),
    ({"nodeSelector": {"disk": "-ssd"}}, "nodeSelector"),
    ({"replicas": 2**31}, "replicas"),
    ({"scaling": {"maxReplicaCount": 2**31}}, "maxReplicaCount"),
    ({"scaling": {"pinnedReplicas": 2**31}}, "pinnedReplicas"),
    ({"tolerations": [{"operator": "Bogus"}]}, "tolerations"),
    ({"tolerations": [{"key": "a b", "operator": "Exists"}]}, "tolerations"),
    ({"tolerations": [{"operator": "Exists", "tolerationSeconds": "5"}]}, "tolerations"),
    ({"scaling": {"additionalTriggers": [{"type": "cron"}]}}, "additionalTriggers"),
    (
        {"scaling": {"additionalTriggers": [{"type": "cron", "metadata": {"start": 5}}]}},
        "additionalTriggers",
    ),
    ({"scaling": {"advanced": {"metricType": "Utilization"}}}, "metricType"),
    ({"metrics": {"custom": [{"name": "m" * 201, "type": "gauge"}]}}, "metrics.custom"),
    ({"priorityClassName": ""}, "priorityClassName"),
]


@pytest.mark.parametrize(("spec", "where"), NEWLY_REFUSED, ids=[w for _, w in NEWLY_REFUSED])
def test_what_the_xrd_newly_refuses_the_function_refused(spec: dict[str, Any], where: str) -> None:
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"] |= spec
    assert schemas.errors(
        {"spec": xr["spec"]}, schemas.crd_schema_from(load_all(V1)[0], "v1alpha1")
    )
    rsp = fn.FunctionRunner().answer(support.request(xr, input=support.struct({}))).message()
    [message] = support.fatal_messages(rsp)
    assert where in message
