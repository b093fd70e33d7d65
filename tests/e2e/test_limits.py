"""Inputs past every limit get a clear, bounded answer from a served function."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from google.protobuf import json_format

from function.resolve import limits
from tests import support

pytestmark = pytest.mark.slow

TIMEOUT = 60  # seconds; a bound on every call, so a hang fails the test


@pytest.fixture(scope="module")
def stub() -> Iterator[grpcv1.FunctionRunnerServiceStub]:
    with (
        support.serving("--insecure") as served,  # the default 4 MiB message limit
        grpc.insecure_channel(
            served.address, options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        ) as channel,
    ):
        yield grpcv1.FunctionRunnerServiceStub(channel)


def actor(**spec: Any) -> dict[str, Any]:
    return support.MINIMAL_XR | {"spec": support.MINIMAL_XR["spec"] | spec}


def with_flavors(xr: dict[str, Any], **flavors: dict[str, Any]) -> fnv1.RunFunctionRequest:
    xr = xr | {"spec": xr["spec"] | {"flavors": list(flavors)}}
    req = support.request(xr, meta=fnv1.RequestMeta(tag="limits"))
    for name, data in flavors.items():
        req.required_resources[f"flavor-{name}"].items.add().resource.update(
            {"metadata": {"name": name}, "data": data}
        )
    return req


def fatal(rsp: fnv1.RunFunctionResponse) -> list[str]:
    return support.fatal_messages(rsp)


def still_serving(stub: grpcv1.FunctionRunnerServiceStub) -> None:
    rsp = stub.RunFunction(support.request(support.MINIMAL_XR), timeout=TIMEOUT)
    assert fatal(rsp) == []
    assert "deployment" in rsp.desired.resources


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"x": value}
    return value


def test_a_request_past_the_receive_limit_is_refused_by_grpc(
    stub: grpcv1.FunctionRunnerServiceStub,
) -> None:
    env = [{"name": f"VAR_{i}", "value": "v" * 100} for i in range(40_000)]
    with pytest.raises(grpc.RpcError) as refused:
        stub.RunFunction(support.request(actor(env=env)), timeout=TIMEOUT)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "Received message larger than max" in str(refused.value.details())
    still_serving(stub)


def test_a_response_past_the_send_limit_is_a_fatal_result(
    stub: grpcv1.FunctionRunnerServiceStub,
) -> None:
    # 2 MiB in; the spec comes back in the XR, the context and the Deployment.
    env = [{"name": f"VAR_{i}", "value": "v" * 50} for i in range(30_000)]
    req = support.request(actor(env=env), meta=fnv1.RequestMeta(tag="big"))
    assert req.ByteSize() < 4 * 1024 * 1024
    rsp = stub.RunFunction(req, timeout=TIMEOUT)
    assert rsp.meta.tag == "big"
    [message] = fatal(rsp)
    assert message.startswith("cannot compose resources: the response would be ")
    assert "more than the 4 MiB gRPC message limit (--max-send-message-size)" in message
    assert not rsp.desired.resources
    still_serving(stub)


# The deepest data Kubernetes' own types take in the fields the Deployment places
# deepest (a projected volume's sources, a sidecar's probe): data nested further is
# refused by their schemas, and past limits.MAX_NESTING before that (below).
DEEPEST_VALID = {
    "volumes": [
        {
            "name": "deep",
            "projected": {
                "sources": [
                    {
                        "downwardAPI": {
                            "items": [
                                {
                                    "path": "labels",
                                    "resourceFieldRef": {
                                        "containerName": "asya-runtime",
                                        "resource": "limits.cpu",
                                        "divisor": "1m",
                                    },
                                }
                            ]
                        }
                    }
                ]
            },
        }
    ],
    "sidecars": [
        {
            "name": "probe",
            "image": "p:1",
            "readinessProbe": {
                "httpGet": {"path": "/", "port": 80, "httpHeaders": [{"name": "a", "value": "b"}]}
            },
        }
    ],
}


@pytest.mark.parametrize("field", sorted(DEEPEST_VALID))
@pytest.mark.parametrize("where", ["actor", "flavor"])
def test_the_deepest_data_kubernetes_takes_survives_a_round_trip(
    stub: grpcv1.FunctionRunnerServiceStub, where: str, field: str
) -> None:
    spec = {field: DEEPEST_VALID[field]}
    assert limits.too_deep(spec) is None
    req = with_flavors(actor(), deep=spec) if where == "flavor" else support.request(actor(**spec))
    rsp = stub.RunFunction(req, timeout=TIMEOUT)  # this client decodes at protobuf's limit
    assert fatal(rsp) == []
    # Crossplane hands the composed objects back as observed state on the next call.
    for name, composed in rsp.desired.resources.items():
        body = json_format.MessageToDict(composed.resource)
        if body["kind"] == "Object":  # provider-kubernetes reports the manifest it applied
            body["status"] = {"atProvider": {"manifest": body["spec"]["forProvider"]["manifest"]}}
        req.observed.resources[name].resource.update(body)
    again = stub.RunFunction(req, timeout=TIMEOUT)
    assert fatal(again) == []
    assert again.desired.resources.keys() == rsp.desired.resources.keys()


def test_data_past_the_nesting_limit_is_refused_naming_where(
    stub: grpcv1.FunctionRunnerServiceStub,
) -> None:
    volumes = [{"name": "deep", "csi": nested(limits.MAX_NESTING - 1)}]
    path = "volumes[0].csi" + ".x" * (limits.MAX_NESTING - 2)
    rsp = stub.RunFunction(support.request(actor(volumes=volumes)), timeout=TIMEOUT)
    assert fatal(rsp) == [f"invalid actor spec: {path}: nests more than 20 levels deep"]
    rsp = stub.RunFunction(with_flavors(actor(), deep={"volumes": volumes}), timeout=TIMEOUT)
    assert fatal(rsp) == [
        f'invalid flavor data: {path}: nests more than 20 levels deep (from flavor "deep")'
    ]


@pytest.mark.parametrize("levels", [40, 250])
def test_a_request_past_protobufs_depth_limit_is_a_fatal_result(
    stub: grpcv1.FunctionRunnerServiceStub, levels: int
) -> None:
    req = with_flavors(actor(), deep={"nodeSelector": nested(levels)})
    req.meta.tag = "too-deep"
    rsp = stub.RunFunction(req, timeout=TIMEOUT)
    assert rsp.meta.tag == "too-deep"  # read from the meta, the rest left undecoded
    assert fatal(rsp) == [
        "cannot read the request: it nests deeper than protobuf's limit of 100 levels "
        "(about 30 levels of YAML); a flavor's data or the actor's spec is nested too deeply"
    ]
    assert not rsp.desired.resources
    still_serving(stub)


def test_more_than_eight_flavors_is_a_fatal_result(stub: grpcv1.FunctionRunnerServiceStub) -> None:
    names = [f"flavor-{i}" for i in range(9)]
    rsp = stub.RunFunction(support.request(actor(flavors=names)), timeout=TIMEOUT)
    assert fatal(rsp) == ["invalid actor spec: flavors: at most 8 flavors, got 9"]
    assert not rsp.requirements.resources  # nothing is fetched for a refused list


def test_ten_thousand_entry_lists_are_merged(stub: grpcv1.FunctionRunnerServiceStub) -> None:
    n = 10_000
    env = [{"name": f"A_{i}", "value": "a"} for i in range(n)]
    tolerations = [{"key": f"k{i}", "operator": "Exists"} for i in range(n)]
    volumes = [{"name": f"v{i}", "emptyDir": {}} for i in range(n)]
    req = with_flavors(
        actor(env=env),
        first={"tolerations": tolerations, "volumes": volumes},
        second={"tolerations": tolerations},  # exact duplicates, dropped
    )
    rsp = stub.RunFunction(req, timeout=TIMEOUT)
    assert fatal(rsp) == []
    deployment = json_format.MessageToDict(rsp.desired.resources["deployment"].resource)
    pod = deployment["spec"]["forProvider"]["manifest"]["spec"]["template"]["spec"]
    assert len(pod["tolerations"]) == n
    assert len([v for v in pod["volumes"] if v["name"].startswith("v")]) == n
    runtime = next(c for c in pod["containers"] if c["name"] == "asya-runtime")
    assert len([e for e in runtime["env"] if e["name"].startswith("A_")]) == n


def test_ten_thousand_entry_lists_that_conflict_name_the_first_conflict(
    stub: grpcv1.FunctionRunnerServiceStub,
) -> None:
    n = 10_000
    req = with_flavors(
        actor(),
        first={"env": [{"name": f"A_{i}", "value": "a"} for i in range(n)]},
        second={"env": [{"name": f"A_{i}", "value": "b"} for i in range(n)]},
    )
    rsp = stub.RunFunction(req, timeout=TIMEOUT)
    assert fatal(rsp) == [
        'flavor merge conflict: flavors "first" and "second" conflict on env[A_0]'
    ]
