"""A v2 actor says when the API server did not take its new Deployment (status/accepted.py).

Crossplane applies a v2 actor's Deployment itself and shows a refusal only as an event; the
function marks each Deployment it renders, keeps the mark in the XR's status, and reads a
Deployment that still carries an older mark, once Crossplane says it could not apply, as
refused, naming what changed since.
"""

from __future__ import annotations

import copy
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import runner as fn
from function.codec import structs
from function.models import pod
from tests import support

V2_XR = {
    "apiVersion": "asya.sh/v1alpha1",
    "kind": "AsyncActor",
    "metadata": {"name": "echo", "namespace": "team"},
    "spec": {"actor": "echo", "image": "echo:1", "handler": "echo.handle", "flavors": ["gpu"]},
}
GPU = {"env": [{"name": "GPU", "value": "on"}]}
RUNNING = {
    "replicas": 1,
    "readyReplicas": 1,
    "availableReplicas": 1,
    "conditions": [{"type": "Available", "status": "True"}],
}


def ask(
    flavor: dict[str, Any],
    *,
    running: dict[str, Any] | None = None,
    last: str = "",
    synced: str = "True",
    xr: dict[str, Any] | None = None,
) -> fnv1.RunFunctionResponse:
    """The function's answer for the actor with this flavor, observing what ran and what it wrote."""
    body = copy.deepcopy(xr or V2_XR)
    body["status"] = {
        "infrastructure": {"workload": {"rendered": last}} if last else {},
        "conditions": [{"type": "Synced", "status": synced, "reason": "ReconcileError"}],
    }
    req = support.request(body, input=support.struct({"transport": "rabbitmq"}))
    req.required_resources["flavor-gpu"].items.add().resource.update(
        {"metadata": {"name": "gpu"}, "data": flavor}
    )
    # No ConfigMap of that name in the actor's namespace.
    req.required_resources["namespace-flavor-gpu"].SetInParent()
    if running is not None:
        req.observed.resources["deployment"].resource.update(running | {"status": RUNNING})
    return fn.FunctionRunner().answer(req).message()


def deployment(rsp: fnv1.RunFunctionResponse) -> dict[str, Any]:
    return structs.plain(rsp.desired.resources["deployment"].resource)


def status(rsp: fnv1.RunFunctionResponse) -> dict[str, Any]:
    found: dict[str, Any] = structs.plain(rsp.desired.composite.resource)["status"]
    return found


def refused_after_a_flavor_change() -> fnv1.RunFunctionResponse:
    """The Deployment rendered with the old flavor runs; the new one was rendered and refused."""
    before = deployment(ask(GPU))
    new = deployment(ask(GPU | {"nodeSelector": {"gpu": "a100"}}))
    mark = new["metadata"]["annotations"][pod.RENDERED_ANNOTATION]
    return ask(GPU | {"nodeSelector": {"gpu": "a100"}}, running=before, last=mark, synced="False")


def test_a_v2_deployment_carries_its_mark_and_the_status_keeps_it() -> None:
    rsp = ask(GPU)
    marks = deployment(rsp)["metadata"]["annotations"]
    assert status(rsp)["infrastructure"]["workload"]["rendered"] == marks[pod.RENDERED_ANNOTATION]
    assert marks[pod.RENDERED_FROM_ANNOTATION].startswith("actor=")
    assert ",gpu=" in marks[pod.RENDERED_FROM_ANNOTATION]
    # Same input, same mark; another flavor, another.
    assert deployment(ask(GPU)) == deployment(rsp)
    other = deployment(ask({"env": [{"name": "GPU", "value": "off"}]}))["metadata"]["annotations"]
    assert other[pod.RENDERED_ANNOTATION] != marks[pod.RENDERED_ANNOTATION]


def test_the_mark_is_of_the_deployment_not_its_pods() -> None:
    template = deployment(ask(GPU))["spec"]["template"]["metadata"]
    assert pod.RENDERED_ANNOTATION not in (template.get("annotations") or {})


def test_a_refused_deployment_is_said_with_the_flavor_that_changed() -> None:
    rsp = refused_after_a_flavor_change()
    workload = status(rsp)["infrastructure"]["workload"]
    assert status(rsp)["phase"] == "Degraded"
    assert workload["message"] == (
        "the API server has not accepted the actor's new Deployment, and the one running was "
        'rendered before these changed: flavor "gpu"; `kubectl describe asyncactor echo -n '
        "team` shows Crossplane's event with the API server's words"
    )
    [condition] = [c for c in rsp.conditions if c.type == "WorkloadAvailable"]
    assert (condition.status, condition.reason) == (
        fnv1.STATUS_CONDITION_FALSE,
        "DeploymentNotAccepted",
    )


def test_nothing_is_said_before_crossplane_has_applied_the_new_mark() -> None:
    before = deployment(ask(GPU))
    changed = GPU | {"nodeSelector": {"gpu": "a100"}}
    # The first call after the change: its mark is not yet the one the status keeps.
    first = ask(
        changed,
        running=before,
        last=before["metadata"]["annotations"][pod.RENDERED_ANNOTATION],
        synced="False",
    )
    assert status(first)["phase"] != "Degraded"


def test_a_cache_behind_the_apply_is_not_taken_for_a_refusal() -> None:
    # Crossplane applied the new mark (Synced is not False): the Deployment read is older.
    refused = refused_after_a_flavor_change()
    mark = status(refused)["infrastructure"]["workload"]["rendered"]
    before = deployment(ask(GPU))
    rsp = ask(GPU | {"nodeSelector": {"gpu": "a100"}}, running=before, last=mark, synced="True")
    assert status(rsp)["phase"] != "Degraded"
    assert "not accepted" not in status(rsp)["infrastructure"]["workload"]["message"]


def test_the_v1_form_leaves_refusals_to_provider_kubernetes() -> None:
    rsp = ask(GPU, xr=support.MINIMAL_XR | {"spec": V2_XR["spec"]})
    manifest = deployment(rsp)["spec"]["forProvider"]["manifest"]
    assert pod.RENDERED_ANNOTATION not in (manifest["metadata"].get("annotations") or {})
