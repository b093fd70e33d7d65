"""Requests shaped like each Crossplane line the README's compatibility table lists.

- 1.18-1.20: proto v1, flavors answered in `extra_resources`, no capabilities.
- 1.14-1.16 fallback: the same over proto v1beta1.
- 2.0-2.3: `required_resources`, capabilities advertised (2.2+), namespaced XRs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from crossplane.function.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossplane.function.proto.v1beta1 import run_function_pb2_grpc as grpcv1beta1
from google.protobuf import json_format

from function.resolve import requirements
from tests import support
from tests.e2e.test_flavors_protocol import environment_config, fill

pytestmark = pytest.mark.slow

FLAVORS = ["cpu-small", "scale-minimal"]
LEGACY_XR = support.MINIMAL_XR | {"spec": support.MINIMAL_XR["spec"] | {"flavors": FLAVORS}}
NAMESPACED_XR = {
    "apiVersion": "asya.sh/v1alpha1",
    "kind": "AsyncActor",
    "metadata": {"name": "echo", "namespace": "team"},
    "spec": LEGACY_XR["spec"]
    | {"crossplane": {"compositionRef": {"name": "asyncactor-sqs-namespaced"}}},
}


@pytest.fixture(scope="module")
def channel() -> Iterator[grpc.Channel]:
    with support.serving("--insecure") as served, grpc.insecure_channel(served.address) as channel:
        yield channel


def flavored(xr: dict[str, Any], field: str, **meta: Any) -> fnv1.RunFunctionRequest:
    req = support.request(xr, meta=fnv1.RequestMeta(**meta))
    fetched: dict[str, list[dict[str, Any]]] = {
        f"flavor-{name}": [environment_config(name)] for name in FLAVORS
    }
    if field == "required_resources":
        # Crossplane 2 answers the namespace-flavor ConfigMap selectors too: none exist.
        fetched |= {f"namespace-flavor-{name}": [] for name in FLAVORS}
    fill(req, field, fetched)
    return req


def resolved(rsp: Any) -> dict[str, Any]:
    assert support.fatal_messages(rsp) == []
    spec: dict[str, Any] = json_format.MessageToDict(rsp.desired.composite.resource)["spec"]
    return spec


def test_crossplane_1_20_extra_resources_over_v1(channel: grpc.Channel) -> None:
    rsp = grpcv1.FunctionRunnerServiceStub(channel).RunFunction(
        flavored(LEGACY_XR, "extra_resources", tag="1.20"), timeout=10
    )
    assert resolved(rsp)["scaling"]["maxReplicaCount"] == 3
    assert set(rsp.requirements.extra_resources) == {
        "flavor-cpu-small",
        "flavor-scale-minimal",
        requirements.WORKLOADS_KEY,
        requirements.AUTOSCALER_KEY,
        requirements.WRAPPED_WORKLOADS_KEY,
    }
    assert (
        rsp.desired.resources["deployment"].resource["apiVersion"]
        == "kubernetes.crossplane.io/v1alpha2"
    )


def test_crossplane_1_16_extra_resources_over_v1beta1(channel: grpc.Channel) -> None:
    req = fnv1beta1.RunFunctionRequest.FromString(
        flavored(LEGACY_XR, "extra_resources", tag="1.16").SerializeToString()
    )
    rsp = grpcv1beta1.FunctionRunnerServiceStub(channel).RunFunction(req, timeout=10)
    assert rsp.meta.tag == "1.16"
    assert resolved(rsp)["resources"]["requests"]["cpu"] == "250m"


def test_crossplane_2_3_required_resources_with_capabilities(channel: grpc.Channel) -> None:
    req = flavored(
        NAMESPACED_XR,
        "required_resources",
        tag="2.3",
        capabilities=[
            fnv1.CAPABILITY_CAPABILITIES,
            fnv1.CAPABILITY_REQUIRED_RESOURCES,
            fnv1.CAPABILITY_CONDITIONS,
        ],
    )
    rsp = grpcv1.FunctionRunnerServiceStub(channel).RunFunction(req, timeout=10)
    spec = resolved(rsp)
    assert "crossplane" not in spec
    queue = json_format.MessageToDict(rsp.desired.resources["sqs-queue"].resource)
    assert queue["apiVersion"] == "sqs.aws.m.upbound.io/v1beta1"
    deployment = json_format.MessageToDict(rsp.desired.resources["deployment"].resource)
    assert (deployment["kind"], deployment["metadata"]["namespace"]) == ("Deployment", "team")


def test_crossplane_2_0_first_call_asks_in_both_fields(channel: grpc.Channel) -> None:
    rsp = grpcv1.FunctionRunnerServiceStub(channel).RunFunction(
        support.request(NAMESPACED_XR), timeout=10
    )
    # Every EnvironmentConfig in both fields; the namespaced ConfigMaps only where
    # the namespace is honoured.
    legacy = {f"flavor-{name}" for name in FLAVORS}
    workloads = requirements.WORKLOADS_KEY
    own = {workloads, requirements.AUTOSCALER_KEY}
    assert set(rsp.requirements.extra_resources) == legacy | own
    assert set(rsp.requirements.resources) == legacy | own | {
        f"namespace-flavor-{n}" for n in FLAVORS
    }
    # The Deployments of the actor's name: in its namespace, or everywhere on 1.x.
    assert rsp.requirements.resources[workloads].namespace == "team"
    assert rsp.requirements.extra_resources[workloads].namespace == ""
    for key in legacy:
        assert rsp.requirements.resources[key] == rsp.requirements.extra_resources[key]
    for name in FLAVORS:
        selector = rsp.requirements.resources[f"namespace-flavor-{name}"]
        assert (selector.api_version, selector.kind, selector.match_name, selector.namespace) == (
            "v1",
            "ConfigMap",
            name,
            "team",
        )
    assert len(rsp.desired.resources) == 0
