"""Arbitrary input over a real socket: never a gRPC error, always whole or Fatal.

The in-process fuzz (tests/unit/test_fuzz.py) explores shapes quickly; this one
sends them through a served function, where protobuf's decoder and encoder, the
message limits and the server's own handler are part of what is being tried.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from function.models.observed import is_wrapped
from tests import schemas, support
from tests.unit.test_fuzz import (
    KEYS,
    METADATA,
    RESOURCE_NAMES,
    SPECS,
    TREES,
    check,
    fuzzed_request,
)

pytestmark = pytest.mark.slow


@st.composite
def extreme(draw: st.DrawFn) -> Any:
    """A random tree made deep, long, or strange: the shapes that break parsers."""
    tree = draw(TREES)
    shape = draw(st.sampled_from(["deep", "long", "strange", "plain"]))
    if shape == "deep":
        for key in draw(st.lists(KEYS, min_size=15, max_size=45)):
            tree = {key: tree}
    elif shape == "long":
        tree = [tree] * draw(st.integers(100, 2_000))
    elif shape == "strange":
        tree = draw(
            st.sampled_from(
                ["", None, "\u0000", "\U0001f600" * 50, "ä" * 5_000, -0.0, 1e308, [[[]]], {"": ""}]
            )
        )
    return tree


@pytest.fixture(scope="module")
def stub() -> Iterator[grpcv1.FunctionRunnerServiceStub]:
    with support.serving("--insecure") as served, grpc.insecure_channel(served.address) as channel:
        yield grpcv1.FunctionRunnerServiceStub(channel)


# Fields the XRD passes through as the user wrote them (Kubernetes types the
# function does not model): the API server validates what is inside them.
USER_KUBERNETES_FIELDS = re.compile(
    r"^spec\.template\.spec\.("
    r"tolerations|volumes|nodeSelector|initContainers"
    r"|containers\.\d+\.(resources|volumeMounts)"
    r"|containers\.([3-9]|\d\d+)"  # user sidecars follow the runtime, sidecar and connectors
    r")(\.|$)"
)


def function_errors(obj: dict[str, Any]) -> list[str]:
    """Schema violations in what the function itself wrote."""
    return [e for e in schemas.errors(obj) if not USER_KUBERNETES_FIELDS.match(e.split(":")[0])]


def composed_objects(rsp: fnv1.RunFunctionResponse) -> list[dict[str, Any]]:
    out = []
    for composed in rsp.desired.resources.values():
        body = json_format.MessageToDict(composed.resource)
        out.append(body["spec"]["forProvider"]["manifest"] if is_wrapped(body) else body)
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    spec=st.dictionaries(KEYS, extreme(), max_size=6),
    flavor=SPECS,
    observed=st.dictionaries(st.sampled_from(RESOURCE_NAMES), SPECS, max_size=5),
    metadata=METADATA,
)
def test_arbitrary_requests_over_the_socket(
    stub: grpcv1.FunctionRunnerServiceStub,
    spec: dict[str, Any],
    flavor: dict[str, Any],
    observed: dict[str, Any],
    metadata: dict[str, Any],
) -> None:
    req = fuzzed_request(spec, flavor, observed, tag="", metadata=metadata)
    # One server answers every example: each carries the tag Crossplane would give it.
    req.meta.tag = support.crossplane_tag(req)
    rsp = stub.RunFunction(req, timeout=60)  # raises on any gRPC error

    check(req, rsp)
    if not support.fatal_messages(rsp):
        # Whatever got through validation renders objects the cluster accepts:
        # Kubernetes kinds always, custom resources where their CRDs are here.
        for obj in composed_objects(rsp):
            if schemas.is_kubernetes(obj) or schemas.have_crds():
                assert function_errors(obj) == [], obj


def test_the_socket_fuzz_checks_custom_resources_against_their_crds() -> None:
    # Says so (as a skip with its reason) when the fuzz above can check only Kubernetes kinds.
    schemas.require_crds()
    assert schemas.errors({"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject"}) != []
