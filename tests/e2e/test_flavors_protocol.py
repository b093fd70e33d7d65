"""The two-call requirements protocol over a real socket and through `function-asya render`."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from google.protobuf import json_format

from function.cli.render import command, files, release
from function.cli.render.inputs import RenderInputs
from tests import support

pytestmark = pytest.mark.slow

XR = support.MINIMAL_XR | {
    "spec": support.MINIMAL_XR["spec"] | {"flavors": ["gpu-a100", "scale-aggressive"]}
}
EXAMPLES = support.ROOT / "examples"


def environment_config(name: str) -> dict[str, Any]:
    [doc] = files.load(str(EXAMPLES / "flavors" / f"{name}.yaml"))
    return doc.body


@pytest.fixture(scope="module")
def stub() -> Iterator[grpcv1.FunctionRunnerServiceStub]:
    with support.serving("--insecure") as served, grpc.insecure_channel(served.address) as channel:
        yield grpcv1.FunctionRunnerServiceStub(channel)


def fatal(rsp: fnv1.RunFunctionResponse) -> list[str]:
    return support.fatal_messages(rsp)


def conditions(rsp: fnv1.RunFunctionResponse) -> dict[str, fnv1.Condition]:
    return {c.type: c for c in rsp.conditions}


def fill(req: fnv1.RunFunctionRequest, field: str, found: dict[str, list[dict[str, Any]]]) -> None:
    for key, bodies in found.items():
        resources = getattr(req, field)[key]
        for body in bodies:
            resources.items.add().resource.update(body)


def test_call_one_asks_call_two_resolves_with_identical_requirements(
    stub: grpcv1.FunctionRunnerServiceStub,
) -> None:
    first = stub.RunFunction(support.request(XR), timeout=10)
    assert fatal(first) == []
    assert len(first.desired.resources) == 0
    assert not first.desired.composite.HasField("resource")
    requirements = json_format.MessageToDict(first.requirements)
    workloads = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "matchLabels": {"labels": {"asya.sh/actor": "echo"}},
    }
    # The Deployments of the actor's name: in its namespace; everywhere on Crossplane 1.x.
    assert requirements["resources"].pop("actor-deployments") == workloads | {"namespace": "team"}
    assert requirements["extraResources"].pop("actor-deployments") == workloads
    # KEDA's HPA of the actor's name, alike.
    autoscaler = workloads | {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler"}
    assert requirements["resources"].pop("actor-hpa") == autoscaler | {"namespace": "team"}
    assert requirements["extraResources"].pop("actor-hpa") == autoscaler
    # The v1 form's Objects that wrap a Deployment of the actor's name, cluster-wide.
    wrapped = {
        "apiVersion": "kubernetes.crossplane.io/v1alpha2",
        "kind": "Object",
        "matchLabels": {
            "labels": {"asya.sh/actor": "echo", "app.kubernetes.io/component": "actor"}
        },
    }
    assert requirements["resources"].pop("actor-objects") == wrapped
    assert requirements["extraResources"].pop("actor-objects") == wrapped
    assert requirements["resources"] == {
        "flavor-gpu-a100": {
            "apiVersion": "apiextensions.crossplane.io/v1beta1",
            "kind": "EnvironmentConfig",
            "matchName": "gpu-a100",
        },
        "flavor-scale-aggressive": {
            "apiVersion": "apiextensions.crossplane.io/v1beta1",
            "kind": "EnvironmentConfig",
            "matchName": "scale-aggressive",
        },
    }
    assert requirements["extraResources"] == requirements["resources"]

    second_req = support.request(XR)
    fill(
        second_req,
        "required_resources",
        {
            "flavor-gpu-a100": [environment_config("gpu-a100")],
            "flavor-scale-aggressive": [environment_config("scale-aggressive")],
        },
    )
    second = stub.RunFunction(second_req, timeout=10)
    assert fatal(second) == []
    assert second.requirements == first.requirements
    spec = json_format.MessageToDict(second.desired.composite.resource)["spec"]
    assert spec["nodeSelector"] == {"accelerator": "nvidia-a100"}
    assert spec["scaling"]["maxReplicaCount"] == 100
    assert json_format.MessageToDict(second.context)["asya.sh/resolved-spec"] == spec
    resolved = conditions(second)["FlavorsResolved"]
    assert (resolved.status, resolved.reason, resolved.message) == (
        fnv1.STATUS_CONDITION_TRUE,
        "Resolved",
        "Applied 2 flavors: gpu-a100, scale-aggressive",
    )
    # Observed metadata never leaks into the desired XR.
    assert "metadata" not in json_format.MessageToDict(second.desired.composite.resource)


def test_a_missing_flavor_fails_closed_with_the_waiting_message(
    stub: grpcv1.FunctionRunnerServiceStub,
) -> None:
    req = support.request(XR)
    fill(req, "required_resources", {"flavor-gpu-a100": [], "flavor-scale-aggressive": []})
    req.required_resources["flavor-gpu-a100"].SetInParent()
    req.required_resources["flavor-scale-aggressive"].items.add().resource.update(
        environment_config("scale-aggressive")
    )
    req.desired.resources["from-earlier-step"].resource.update({"kind": "Kept"})
    rsp = stub.RunFunction(req, timeout=10)
    assert fatal(rsp) == ["Waiting for 1 flavor EnvironmentConfigs: gpu-a100"]
    waiting = conditions(rsp)["FlavorsResolved"]
    assert (waiting.status, waiting.reason) == (fnv1.STATUS_CONDITION_FALSE, "WaitingForFlavors")
    assert list(rsp.desired.resources) == ["from-earlier-step"]
    assert "flavor-gpu-a100" in rsp.requirements.resources


def test_extra_resources_only_as_crossplane_1_20_sends_them(
    stub: grpcv1.FunctionRunnerServiceStub,
) -> None:
    req = support.request(XR)
    fill(
        req,
        "extra_resources",
        {
            "flavor-gpu-a100": [environment_config("gpu-a100")],
            "flavor-scale-aggressive": [environment_config("scale-aggressive")],
        },
    )
    rsp = stub.RunFunction(req, timeout=10)
    assert fatal(rsp) == []
    assert (
        json_format.MessageToDict(rsp.desired.composite.resource)["spec"]["resources"]["requests"][
            "cpu"
        ]
        == 4
    )


def test_nothing_is_sticky_between_calls(stub: grpcv1.FunctionRunnerServiceStub) -> None:
    def resolve(data: dict[str, Any]) -> dict[str, Any]:
        xr = support.MINIMAL_XR | {"spec": support.MINIMAL_XR["spec"] | {"flavors": ["shape"]}}
        req = support.request(xr)
        fill(
            req,
            "required_resources",
            {"flavor-shape": [{"metadata": {"name": "shape"}, "data": data}]},
        )
        rsp = stub.RunFunction(req, timeout=10)
        return json_format.MessageToDict(rsp.desired.composite.resource)["spec"]

    assert resolve({"nodeSelector": {"zone": "a"}})["nodeSelector"] == {"zone": "a"}
    assert "nodeSelector" not in resolve({"replicas": 2})


def render(*args: str) -> subprocess.CompletedProcess[str]:
    return support.render_cli(
        *args,
        str(support.ROOT / "compositions" / "asyncactor-sqs.yaml"),
        str(EXAMPLES / "functions.yaml"),
        "--required-resources",
        str(EXAMPLES / "flavors"),
    )


def test_render_resolves_flavors_in_two_calls() -> None:
    xr = files.load_one(str(EXAMPLES / "flavored" / "gpu-checkpoints.yaml"), "XR")
    inputs = RenderInputs(
        xr,
        files.load_composition(str(support.ROOT / "compositions" / "asyncactor-sqs.yaml")),
        files.load_functions(str(EXAMPLES / "functions.yaml")),
        supplied=files.load(str(EXAMPLES / "flavors")),
        timeout=30,
        # v2.2's shape prints the resolved spec the function hands on.
        follow=release.V2_2,
    )
    documents, outcome = asyncio.run(command.render_documents(inputs))
    assert outcome.calls == {"asya": 2}
    spec = documents[0]["spec"]
    assert spec["scaling"]["minReplicaCount"] == 10
    assert [p["name"] for p in spec["stateProxy"]] == ["checkpoints"]
    assert spec["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_render_reports_the_seeds_conflict_exactly() -> None:
    result = render(str(EXAMPLES / "flavored" / "conflict.yaml"))
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        'pipeline step "asya" returned a fatal result: flavor merge conflict: '
        'flavors "flavor-a" and "flavor-b" conflict on scaling.minReplicaCount'
    )


def test_render_fails_closed_on_a_missing_flavor() -> None:
    result = render(str(EXAMPLES / "flavored" / "missing-flavor.yaml"))
    assert result.returncode == 1
    # render advertises Crossplane 2's capabilities: namespace flavors are looked for too.
    assert (
        "Waiting for 1 flavor: gpu-h200 (each an EnvironmentConfig, or a ConfigMap labelled "
        "asya.sh/flavor in namespace ml)"
    ) in result.stderr
    assert result.stdout == ""


def test_render_refuses_a_flavor_defined_in_both_places() -> None:
    result = render(
        str(EXAMPLES / "flavored" / "ambiguous.yaml"),
        "--required-resources",
        str(EXAMPLES / "team-flavors"),
    )
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        'flavor "cpu-small" is defined both as EnvironmentConfig cpu-small and as '
        "ConfigMap ml-sandbox/cpu-small; delete one of them"
    )


@pytest.mark.parametrize("actor", ["small-cpu", "gpu-checkpoints"])
def test_render_never_uses_a_configmap_of_another_namespace_or_without_the_label(
    actor: str,
) -> None:
    # team-flavors holds cpu-small for ml-sandbox and an unlabelled gpu-a100 in ml:
    # neither may change what these ml actors get.
    alone = render(str(EXAMPLES / "flavored" / f"{actor}.yaml"))
    beside = render(
        str(EXAMPLES / "flavored" / f"{actor}.yaml"),
        "--required-resources",
        str(EXAMPLES / "team-flavors"),
    )
    assert (alone.returncode, beside.returncode) == (0, 0)
    assert beside.stdout == alone.stdout


def test_a_namespaced_actor_asks_for_each_flavor_in_both_places_over_the_socket(
    stub: grpcv1.FunctionRunnerServiceStub,
) -> None:
    xr = {
        "apiVersion": "asya.sh/v1alpha1",
        "kind": "AsyncActor",
        "metadata": {"name": "rag", "namespace": "ml"},
        "spec": {
            "actor": "rag",
            "image": "r:1",
            "handler": "h.f",
            "flavors": ["gpu-a100", "team-secrets"],
        },
    }
    first = stub.RunFunction(support.request(xr), timeout=10)
    selectors = first.requirements.resources
    assert [(k, s.kind, s.match_name, s.namespace) for k, s in sorted(selectors.items())] == [
        ("actor-deployments", "Deployment", "", "ml"),
        ("actor-hpa", "HorizontalPodAutoscaler", "", "ml"),
        ("flavor-gpu-a100", "EnvironmentConfig", "gpu-a100", ""),
        ("flavor-team-secrets", "EnvironmentConfig", "team-secrets", ""),
        ("namespace-flavor-gpu-a100", "ConfigMap", "gpu-a100", "ml"),
        ("namespace-flavor-team-secrets", "ConfigMap", "team-secrets", "ml"),
    ]
    # Crossplane answers each selector; the function composes from one of each pair.
    req = support.request(xr)
    team = files.load(str(EXAMPLES / "team-flavors" / "ml-team-secrets.yaml"))[0].body
    fill(
        req,
        "required_resources",
        {
            "flavor-gpu-a100": [files.load(str(EXAMPLES / "flavors" / "gpu-a100.yaml"))[0].body],
            "flavor-team-secrets": [],
            "namespace-flavor-gpu-a100": [],
            "namespace-flavor-team-secrets": [team],
        },
    )
    second = stub.RunFunction(req, timeout=10)
    assert fatal(second) == []
    assert second.requirements.resources == first.requirements.resources
    spec = json_format.MessageToDict(second.desired.composite.resource)["spec"]
    assert [r["secretName"] for r in spec["secretRefs"]] == ["ml-api-keys"]
    assert spec["nodeSelector"] == {"accelerator": "nvidia-a100"}


def test_render_keeps_stderr_to_the_error_alone() -> None:
    # An immediate stop of the in-process server made gRPC log a GOAWAY line on
    # stderr now and then (1 run in 15); render stops it gracefully.
    for _ in range(8):
        result = render(str(EXAMPLES / "flavored" / "conflict.yaml"))
        assert result.returncode == 1
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
