"""Walk an actor through its life against a served function; nothing is ever lost.

A small stand-in for Crossplane drives each reconcile: it runs the requirements loop,
applies desired state only when no Fatal result came back, and deletes every composed
resource that desired state omits, exactly as Crossplane does. Providers' status
changes are applied between reconciles. After every step the test checks that each
resource that should exist still exists.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
import yaml
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from google.protobuf import json_format

from tests import support

pytestmark = pytest.mark.slow

QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/asya-production-image-enhancer"
ALWAYS = {"sqs-queue", "serviceaccount", "triggerauthentication", "deployment"}
READY = {"type": "Ready", "status": "True", "reason": "Available"}

FORMS = {
    "v1": ("examples/image-enhancer/xr.yaml", "examples/composition.yaml"),
    "v2": ("examples/v2/image-enhancer/xr.yaml", "examples/v2/composition.yaml"),
}


def environment_config(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": str(id(data))},
        "data": data,
    }


TUNING = {"scaling": {"pollingInterval": 15, "cooldownPeriod": 300}}
TEAM_ENV = {"env": [{"name": "TEAM", "value": "vision"}], "nodeSelector": {"pool": "gpu"}}
CLASHING_TUNING = TUNING | {"nodeSelector": {"pool": "cpu"}}  # the same leaf as TEAM_ENV


@dataclass
class Reconcile:
    """What one reconcile returned: the last response and how many calls it took."""

    response: fnv1.RunFunctionResponse
    calls: int

    @property
    def fatal(self) -> list[str]:
        return support.fatal_messages(self.response)

    @property
    def desired(self) -> set[str]:
        return set(self.response.desired.resources)

    @property
    def phase(self) -> Any:
        composite = json_format.MessageToDict(self.response.desired.composite.resource)
        return composite.get("status", {}).get("phase")


@dataclass
class Cluster:
    """Crossplane's part: observed state, flavors, and the apply/delete that follows a call."""

    stub: grpcv1.FunctionRunnerServiceStub
    form: str
    xr: dict[str, Any]
    step_input: dict[str, Any]
    flavors: dict[str, dict[str, Any]] = field(default_factory=dict)
    observed: dict[str, dict[str, Any]] = field(default_factory=dict)

    def request(self, supplied: dict[str, list[dict[str, Any]]] | None) -> fnv1.RunFunctionRequest:
        req = support.request(self.xr, input=support.struct(self.step_input))
        for name, body in self.observed.items():
            req.observed.resources[name].resource.update(body)
        # Before the loop adds what it fetched, as Crossplane computes it.
        req.meta.tag = support.crossplane_tag(req)
        for key, items in (supplied or {}).items():
            target = req.required_resources[key]
            for item in items:
                target.items.add().resource.update(item)
        return req

    def reconcile(self) -> Reconcile:
        supplied: dict[str, list[dict[str, Any]]] | None = None
        calls = 0
        while True:
            calls += 1
            rsp = self.stub.RunFunction(self.request(supplied), timeout=10)
            assert rsp.meta.tag  # echoed on every call
            wanted = {
                key: selector.match_name for key, selector in rsp.requirements.resources.items()
            }
            if supplied is not None and set(wanted) == set(supplied):
                break
            assert calls < 6, "requirements did not stabilise"  # Crossplane's bound
            supplied = {
                key: [self.flavors[name]] if name in self.flavors else []
                for key, name in wanted.items()
            }
        outcome = Reconcile(rsp, calls)
        if outcome.fatal:
            # Crossplane applies nothing and deletes nothing after a Fatal result.
            return outcome
        desired = {
            name: json_format.MessageToDict(resource.resource)
            for name, resource in rsp.desired.resources.items()
        }
        # Garbage collection: whatever desired state omits is deleted.
        self.observed = {
            name: self.applied(name, body, self.observed.get(name))
            for name, body in desired.items()
        }
        return outcome

    def applied(
        self, name: str, body: dict[str, Any], before: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The object as the API server holds it after apply: status kept, a name given."""
        out = copy.deepcopy(body)
        out.setdefault("metadata", {}).setdefault("name", f"{self.xr['metadata']['name']}-{name}")
        if before and "status" in before:
            out["status"] = before["status"]
        return out

    # Providers at work between reconciles.

    def queue_ready(self, url: str | None = QUEUE_URL) -> None:
        at_provider = {"id": url, "arn": "arn:aws:sqs:us-east-1:123456789012:q"} if url else {}
        self.observed["sqs-queue"]["status"] = {"atProvider": at_provider, "conditions": [READY]}

    def object_status(self, name: str, status: dict[str, Any]) -> None:
        body = self.observed[name]
        if self.form == "v2":
            body["status"] = status
            return
        manifest = copy.deepcopy(body["spec"]["forProvider"]["manifest"]) | {"status": status}
        body["status"] = {"atProvider": {"manifest": manifest}, "conditions": [READY]}

    def deployment(self, ready: int) -> None:
        available = {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}
        self.object_status(
            "deployment",
            {"replicas": ready, "readyReplicas": ready, "conditions": [available]},
        )


@pytest.fixture(scope="module")
def stub() -> Iterator[grpcv1.FunctionRunnerServiceStub]:
    with support.serving("--insecure") as served, grpc.insecure_channel(served.address) as channel:
        yield grpcv1.FunctionRunnerServiceStub(channel)


def new_cluster(stub: grpcv1.FunctionRunnerServiceStub, form: str) -> Cluster:
    xr_path, composition_path = FORMS[form]
    xr = yaml.safe_load((support.ROOT / xr_path).read_text())
    xr["spec"]["flavors"] = ["tuning", "team-env"]
    composition = yaml.safe_load((support.ROOT / composition_path).read_text())
    [step] = composition["spec"]["pipeline"]
    cluster = Cluster(stub, form, xr, step["input"])
    cluster.flavors = {
        "tuning": environment_config("tuning", TUNING),
        "team-env": environment_config("team-env", TEAM_ENV),
    }
    return cluster


def succeeded(step: Reconcile, expected: set[str], phase: str) -> None:
    assert step.fatal == []
    assert step.desired == expected
    assert step.phase == phase
    assert step.calls == 2  # one to ask for the flavors, one to compose


def failed_closed(step: Reconcile, cluster: Cluster, before: dict[str, Any], reason: str) -> None:
    [message] = step.fatal
    assert reason in message
    # Nothing of ours on the error path, so nothing to apply and nothing deleted.
    assert step.desired == set()
    assert not step.response.desired.composite.resource.fields
    assert cluster.observed == before
    [condition] = [c for c in step.response.conditions if c.type == "FlavorsResolved"]
    assert condition.status == fnv1.STATUS_CONDITION_FALSE


@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_actor_keeps_every_resource_through_its_life(
    stub: grpcv1.FunctionRunnerServiceStub, form: str
) -> None:
    cluster = new_cluster(stub, form)
    with_scaler = ALWAYS | {"scaledobject"}

    # Created: the queue URL is unknown, so no ScaledObject yet.
    succeeded(cluster.reconcile(), ALWAYS, "Creating")

    # The queue is created and reports its URL: the ScaledObject follows.
    cluster.queue_ready()
    succeeded(cluster.reconcile(), with_scaler, "Creating")

    # The queue's status is briefly lost: the ScaledObject keeps the URL it has.
    cluster.queue_ready(url=None)
    step = cluster.reconcile()
    succeeded(step, with_scaler, "Creating")
    scaled = cluster.observed["scaledobject"]
    assert QUEUE_URL in yaml.safe_dump(scaled)
    cluster.queue_ready()

    # KEDA and the Deployment become ready.
    cluster.object_status("scaledobject", {"conditions": [READY]})
    succeeded(cluster.reconcile(), with_scaler, "Creating")
    cluster.deployment(ready=2)
    succeeded(cluster.reconcile(), with_scaler, "Ready")

    # Scaled to zero.
    cluster.deployment(ready=0)
    succeeded(cluster.reconcile(), with_scaler, "Napping")

    # The user changes the spec: everything stays, the change shows.
    cluster.xr["spec"]["scaling"]["maxReplicaCount"] = 7
    cluster.xr["spec"]["env"].append({"name": "NEW", "value": "1"})
    succeeded(cluster.reconcile(), with_scaler, "Napping")
    assert '"maxReplicaCount": 7' in json.dumps(cluster.observed["scaledobject"])
    assert '"NEW"' in json.dumps(cluster.observed["deployment"])

    # A flavor is deleted: fail closed, keep everything.
    before = copy.deepcopy(cluster.observed)
    restored = cluster.flavors.pop("team-env")
    waiting = (
        "Waiting for 1 flavor: team-env (each an EnvironmentConfig, or a ConfigMap labelled "
        "asya.sh/flavor in namespace production)"
        if form == "v2"
        else "Waiting for 1 flavor EnvironmentConfigs: team-env"
    )
    failed_closed(cluster.reconcile(), cluster, before, waiting)

    # It comes back, but another flavor now conflicts with it: fail closed again.
    cluster.flavors["team-env"] = restored
    cluster.flavors["tuning"] = environment_config("tuning", CLASHING_TUNING)
    failed_closed(
        cluster.reconcile(),
        cluster,
        before,
        'flavors "tuning" and "team-env" conflict on nodeSelector.pool',
    )

    # The conflict is fixed: the actor is whole again, nothing was recreated.
    cluster.flavors["tuning"] = environment_config("tuning", TUNING)
    succeeded(cluster.reconcile(), with_scaler, "Napping")
    assert cluster.observed.keys() == before.keys()
    for name, body in cluster.observed.items():
        assert body["metadata"]["name"] == before[name]["metadata"]["name"]
