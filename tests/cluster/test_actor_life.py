"""An actor's life after it is composed, judged by the real controllers, in both XR forms.

KEDA's operator reads a real SQS API (moto's server) and scales the Deployment; the
Deployment and ReplicaSet controllers make pods; kube-scheduler places them on kwok's
fake nodes, where they turn Ready or fail as a kubelet would say. Each phase is read
from what Crossplane writes on the XR and what `kubectl get asyncactors` prints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests import support
from tests.cluster import life, rig
from tests.cluster.crossplane import API, FORMS, NAMESPACE
from tests.cluster.world import World, living


@pytest.fixture(scope="module", params=sorted(FORMS))
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    """A control plane per form with everything an actor lives on."""
    with living(request.param) as world:
        yield world


FIXTURES = support.ROOT / "examples" / "image-enhancer" / "observed"


def _fixture_conditions(stage: str, kind: str) -> list[dict[str, Any]]:
    """The conditions the unit fixtures say a kind shows at a stage of an actor's life."""
    for document in rig.read_documents(FIXTURES / f"{stage}.yaml"):
        manifest = document.get("status", {}).get("atProvider", {}).get("manifest", {})
        if manifest.get("kind") == kind:
            return manifest["status"]["conditions"]  # type: ignore[no-any-return]
    raise AssertionError(f"no {kind} in {stage}.yaml")


def assert_fixture_holds(stage: str, kind: str, read: Callable[[], dict[str, Any]]) -> None:
    """Each condition a fixture writes is what the real controller writes (times aside).

    Read until it holds: KEDA writes `Active` Unknown first and its value after a poll.
    """
    wanted = _fixture_conditions(stage, kind)

    def differences() -> list[str]:
        real = {c["type"]: c for c in read().get("status", {}).get("conditions", [])}
        return [
            f"{stage}.yaml's {kind} says {condition}; the controller wrote "
            f"{real.get(condition['type'])}"
            for condition in wanted
            if {k: real.get(condition["type"], {}).get(k) for k in condition} != condition
        ]

    try:
        rig.eventually(lambda: not differences(), 60, f"{kind} as {stage}.yaml says")
    except AssertionError:
        raise AssertionError("; ".join(differences())) from None


def queue_name(actor: str) -> str:
    return f"asya-{NAMESPACE}-{actor}"


def test_a_napping_actor_has_its_queue_and_keda_holds_it_at_zero(world: World) -> None:
    world.create("sleeper", flavors=["quick-nap"])
    seen = world.phases("sleeper", "Napping")
    assert seen[0] == "Creating", seen
    assert world.queues.exists(queue_name("sleeper"))
    scaled = world.scaled_object("sleeper")
    ready = {c["type"]: c["status"] for c in scaled["status"]["conditions"]}
    assert ready["Ready"] == "True", scaled["status"]
    deployment = world.live_deployment("sleeper")
    assert deployment["spec"]["replicas"] == 0
    assert_fixture_holds("napping", "ScaledObject", lambda: world.scaled_object("sleeper"))
    assert_fixture_holds("napping", "Deployment", lambda: world.live_deployment("sleeper"))
    row = world.row("sleeper")
    assert (row["Running"], row["Min"], row["Max"]) == (0, 0, 2), row


def test_work_wakes_a_napping_actor_and_it_naps_again_once_the_queue_is_empty(
    world: World,
) -> None:
    world.create("waker", flavors=["quick-nap"])
    world.phases("waker", "Napping")
    world.queues.send(queue_name("waker"), 20)
    world.phases("waker", "Ready")
    row = world.row("waker")
    assert row["Running"] == 1, row
    assert {pod["spec"]["nodeName"] for pod in world.pods("waker")} == {"cpu-node"}
    assert_fixture_holds("ready", "ScaledObject", lambda: world.scaled_object("waker"))
    assert_fixture_holds("ready", "Deployment", lambda: world.live_deployment("waker"))
    world.queues.purge(queue_name("waker"))
    world.phases("waker", "Napping", timeout=180)
    assert world.row("waker")["Running"] == 0


def _workload(world: World, name: str) -> dict[str, Any]:
    return world.status(name)["infrastructure"]["workload"]  # type: ignore[no-any-return]


def _condition(world: World, name: str, kind: str) -> dict[str, Any]:
    found = [c for c in world.status(name).get("conditions", []) if c["type"] == kind]
    return found[0] if found else {}


def _workload_condition_says(world: World, name: str, reason: str) -> None:
    """Wait until the actor's WorkloadAvailable condition has `reason`.

    Crossplane core applies the XR's status fields, then updates its conditions in a
    second write, which a conflict can put off to the next reconcile: for a moment the
    message may be new and the condition not yet.
    """
    rig.eventually(
        lambda: _condition(world, name, "WorkloadAvailable").get("reason") == reason,
        60,
        f"{name}'s WorkloadAvailable condition says {reason}",
    )


def test_a_pod_no_node_can_take_says_why_and_the_flavor_then_runs_once_a_node_can(
    world: World,
) -> None:
    world.create("placer", flavors=["gpu-a100"], scaling={"minReplicaCount": 1})
    world.phases("placer", "Degraded")
    message = _workload(world, "placer")["message"]
    assert 'nvidia.com/gpu: 1 (resources.requests.nvidia.com/gpu, from flavor "gpu-a100")' in (
        message
    ), message
    assert "the scheduler says: 0/1 nodes are available" in message, message
    _workload_condition_says(world, "placer", "PodsUnschedulable")
    labels = {"kubernetes.io/hostname": "gpu-node", "accelerator": "nvidia-a100"}
    life.add_node(world.kube, "gpu-node", labels, **{"nvidia.com/gpu": "2"})
    try:
        world.phases("placer", "Ready")
        assert {pod["spec"]["nodeName"] for pod in world.pods("placer")} == {"gpu-node"}
    finally:
        # The other scenarios expect the one node without GPUs (their pods land there).
        world.kube.delete(API, "AsyncActor", "placer", NAMESPACE)
        world.kube.delete("v1", "Node", "gpu-node")


FAILING = [
    pytest.param(
        "crasher",
        {"image": "rig.local/crash-loop:1"},
        "PodsFailing",
        "container asya-runtime is crash-looping (exit code 1, Error)",
        id="crash-loop",
    ),
    pytest.param(
        "puller",
        {"flavors": ["unpullable-sidecar"]},
        "PodsFailing",
        "container asya-sidecar cannot pull image rig.local/no-such-sidecar:1: check "
        'sidecar.image (from flavor "unpullable-sidecar")',
        id="image-pull",
    ),
    pytest.param(
        "oomer",
        {"image": "rig.local/oom:1", "flavors": ["cpu-small"]},
        "PodsOOMKilled",
        "container asya-runtime was OOMKilled: memory limit 512Mi "
        '(resources.limits.memory, from flavor "cpu-small"); raise it',
        id="oom-killed",
    ),
]


@pytest.mark.parametrize(("name", "spec", "reason", "said"), FAILING)
def test_a_failing_pod_degrades_the_actor_naming_the_reason_and_the_flavor(
    world: World, name: str, spec: dict[str, Any], reason: str, said: str
) -> None:
    world.create(name, scaling={"minReplicaCount": 1}, **spec)
    world.phases(name, "Degraded")
    message = _workload(world, name)["message"]
    assert said in message, message
    _workload_condition_says(world, name, reason)
    # A new actor's pod template gains its queue's URL once the queue is ready, so the
    # first pods may be two (docs/real-cluster.md, what it found).
    assert world.row(name)["Failing"] >= 1


def test_kubectl_scale_pauses_the_actor_and_unpinning_resumes_it(world: World) -> None:
    world.create("pinned", scaling={"minReplicaCount": 1})
    world.phases("pinned", "Ready")
    actor = world.kube.path(API, "AsyncActor", NAMESPACE, "pinned")
    # What `kubectl scale asyncactor/pinned --replicas=0` sends.
    merge = "application/merge-patch+json"
    world.kube.request("PATCH", actor + "/scale", {"spec": {"replicas": 0}}, content_type=merge)
    # Creating an actor can open Crossplane's circuit breaker on its XR (more than 100
    # watch events at once), which then lets one event through every 30 s for 5 minutes:
    # the pin can take a minute or two to be composed (docs/real-cluster.md).
    world.phases("pinned", "Paused", timeout=300)
    deployment = world.live_deployment("pinned")
    assert deployment["spec"]["replicas"] == 0
    unpin = {"spec": {"scaling": {"pinnedReplicas": None}}}
    world.kube.request("PATCH", actor, unpin, content_type=merge)
    if world.cluster.form == "v1":
        # A claim does not pass a removed field on to its XR (crossplane#4982).
        xr = world.kube.path(
            API, "XAsyncActor", None, world.cluster.xr("pinned")["metadata"]["name"]
        )
        world.kube.request("PATCH", xr, unpin, content_type=merge)
    world.phases("pinned", "Ready", timeout=300)


def test_a_scaled_object_keda_refuses_is_reported_in_kedas_words(world: World) -> None:
    world.create(
        "refused",
        scaling={"advanced": {"formula": "queue +", "target": "5"}},
    )
    rig.eventually(
        lambda: _condition(world, "refused", "AutoscalerReady").get("reason") == "Refused",
        120,
        "KEDA's refusal on the actor",
    )
    scaled = world.scaled_object("refused")
    [ready] = [c for c in scaled["status"]["conditions"] if c["type"] == "Ready"]
    keda = world.status("refused")["infrastructure"]["keda"]
    assert ready["status"] == "False"
    assert ready["message"] in keda["message"], (ready, keda)
    # Its pod serves (a new Deployment starts one replica before KEDA scales it): a running
    # actor whose autoscaler is refused is degraded.
    world.phases("refused", "Degraded")


def test_deleting_the_actor_removes_its_queue_autoscaling_deployment_and_pods(
    world: World,
) -> None:
    world.create("goner", scaling={"minReplicaCount": 1})
    world.phases("goner", "Ready")
    assert world.pods("goner")
    hpa = world.scaled_object("goner")["status"]["hpaName"]
    world.kube.get("autoscaling/v2", "HorizontalPodAutoscaler", hpa, NAMESPACE)
    world.kube.delete(API, "AsyncActor", "goner", NAMESPACE)

    def gone() -> bool:
        for api_version, kind, name in (
            ("keda.sh/v1alpha1", "ScaledObject", "goner"),
            ("autoscaling/v2", "HorizontalPodAutoscaler", hpa),
            ("apps/v1", "Deployment", "goner"),
        ):
            try:
                world.kube.get(api_version, kind, name, NAMESPACE)
            except rig.KubeError as missing:
                if missing.code != 404:
                    raise
            else:
                return False
        return not world.pods("goner") and not world.queues.exists(queue_name("goner"))

    rig.eventually(gone, 180, "the actor's queue, ScaledObject, HPA, Deployment and pods gone")
