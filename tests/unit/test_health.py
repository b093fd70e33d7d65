"""Actor health: its pods counted as the operator counts them, and why they do not run."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from function import runner as fn
from function.codec import structs
from function.compose import renderers
from function.models import observed as observed_objects
from function.resolve import requirements
from function.status import conditions, phase, pod_health
from tests import schemas, support
from tests.golden.cases import TROUBLES
from tests.unit.render.plans import plan, stage

GPU_FLAVOR = {
    "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "16Gi"}, "requests": {"cpu": "4"}},
    "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
}
SECRETS_FLAVOR = {"secretRefs": [{"secretName": "openai", "keys": [{"key": "k", "envVar": "KEY"}]}]}


def pod(
    name: str,
    *,
    phase: str = "Running",
    ready: bool | None = None,
    containers: list[dict[str, Any]] | None = None,
    init: list[dict[str, Any]] | None = None,
    conditions: list[dict[str, Any]] | None = None,
    namespace: str = "team",
    **metadata: Any,
) -> dict[str, Any]:
    if ready is None:
        # As the kubelet sets it: a pod with a container in trouble is not ready.
        ready = containers is None and init is None
    status: dict[str, Any] = {
        "phase": phase,
        "conditions": conditions
        if conditions is not None
        else [{"type": "Ready", "status": "True" if ready else "False"}],
    }
    if containers is not None:
        status["containerStatuses"] = containers
    if init is not None:
        status["initContainerStatuses"] = init
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"asya.sh/actor": "echo"},
            **metadata,
        },
        "status": status,
    }


def unschedulable_pod(scheduler: str) -> dict[str, Any]:
    """A pending pod the scheduler cannot place, in its words."""
    condition = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}
    return pod("echo-a", phase="Pending", conditions=[condition | {"message": scheduler}])


def waiting(
    container: str, why: str, message: str = "", restarts: int = 3, /, **last: Any
) -> dict[str, Any]:
    found: dict[str, Any] = {
        "name": container,
        "ready": False,
        "restartCount": restarts,
        "state": {"waiting": {"reason": why, **({"message": message} if message else {})}},
    }
    if last:
        found["lastState"] = {"terminated": last}
    return found


def unavailable(ready: int = 0, replicas: int = 1) -> dict[str, dict[str, Any]]:
    """The text-processor's ready stage with its Deployment not available."""
    observed = stage("ready")
    manifest = observed["deployment"]["status"]["atProvider"]["manifest"]
    manifest["status"] = {
        "replicas": replicas,
        "readyReplicas": ready,
        "conditions": [
            {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"}
        ],
    }
    return observed


def derive(**kwargs: Any) -> phase.Report:
    actor = plan(observed=kwargs.pop("observed", None) or unavailable(), **kwargs)
    return phase.derive(actor, renderers.render_all(actor))


def workload(report: phase.Report) -> dict[str, Any]:
    found: dict[str, Any] = report.status["infrastructure"]["workload"]
    return found


# ------------------------------------------------------------------ when to ask


def test_only_a_deployment_that_is_not_fully_available_needs_its_pods() -> None:
    healthy = stage("ready")["deployment"]
    assert not observed_objects.needs_pods(healthy)
    assert not observed_objects.needs_pods(None)
    assert observed_objects.needs_pods(unavailable()["deployment"])
    # Available, with fewer ready than it has: a rollout or a pod failing beside the others.
    short = stage("ready")["deployment"]
    short["status"]["atProvider"]["manifest"]["status"]["readyReplicas"] = 4
    assert observed_objects.needs_pods(short)
    napping = stage("napping")["deployment"]
    assert not observed_objects.needs_pods(napping)


def request(observed: dict[str, dict[str, Any]], pods: list[dict[str, Any]] | None) -> Any:
    req = support.request(copy.deepcopy(support.MINIMAL_XR), input=support.struct({}))
    for name, body in observed.items():
        req.observed.resources[name].resource.update(body)
    if pods is not None:
        items = req.required_resources[requirements.PODS_KEY]
        for body in pods:
            items.items.add().resource.update(body)
    return req


def test_a_healthy_actor_asks_for_no_pods_and_an_unhealthy_one_does() -> None:
    healthy = fn.FunctionRunner().answer(request(stage("ready"), None)).message()
    assert requirements.PODS_KEY not in healthy.requirements.resources
    assert requirements.PODS_KEY not in healthy.requirements.extra_resources
    unhealthy = fn.FunctionRunner().answer(request(unavailable(), None)).message()
    selector = unhealthy.requirements.resources[requirements.PODS_KEY]
    assert (selector.api_version, selector.kind, selector.namespace) == ("v1", "Pod", "team")
    assert dict(selector.match_labels.labels) == {"asya.sh/actor": "echo"}
    # Crossplane 1.x: asked in every namespace, the answer filtered.
    legacy = unhealthy.requirements.extra_resources[requirements.PODS_KEY]
    assert (legacy.kind, legacy.namespace) == ("Pod", "")


def test_the_pods_crossplane_fetched_reach_the_status_and_keep_being_asked_for() -> None:
    pods = [pod("echo-1", containers=[waiting("asya-runtime", "CrashLoopBackOff", exitCode=1)])]
    rsp = fn.FunctionRunner().answer(request(unavailable(), pods)).message()
    xr_status = structs.plain(rsp.desired.composite.resource)["status"]
    assert xr_status["phase"] == "Degraded"
    assert xr_status["infrastructure"]["workload"]["failing"] == 1
    # The same requirement as the call before: Crossplane's loop settles.
    assert requirements.PODS_KEY in rsp.requirements.resources


# ------------------------------------------------------------------ counts


def test_pods_are_counted_as_running_pending_and_failing() -> None:
    pods = [
        pod("echo-a"),
        pod("echo-b", ready=False),
        pod("echo-c", phase="Pending", ready=False),
        pod("echo-d", containers=[waiting("asya-runtime", "ImagePullBackOff")]),
        pod("echo-e", init=[waiting("setup", "CrashLoopBackOff", exitCode=2)]),
        # Not counted: stopped retrying, being deleted, or another namespace's (Crossplane 1.x).
        pod("echo-f", phase="Failed", containers=[waiting("asya-runtime", "CrashLoopBackOff")]),
        pod("echo-g", deletionTimestamp="2026-11-25T10:00:00Z"),
        pod("echo-h", namespace="other"),
    ]
    report = derive(pods=pods)
    assert (workload(report)["running"], workload(report)["pending"]) == (1, 2)
    assert workload(report)["failing"] == 2
    assert report.phase == phase.Phase.DEGRADED


def test_without_pods_the_counts_come_from_the_deployment() -> None:
    report = derive(observed=unavailable(ready=1, replicas=3))
    assert (workload(report)["running"], workload(report)["pending"]) == (1, 2)
    assert workload(report)["failing"] == 0
    assert report.phase == phase.Phase.CREATING


def test_an_actor_with_pending_pods_only_is_creating_not_degraded() -> None:
    report = derive(pods=[pod("echo-a", phase="Pending", ready=False)])
    assert report.phase == phase.Phase.CREATING
    assert workload(report)["pending"] == 1


@pytest.mark.parametrize(
    "reason",
    [
        "CrashLoopBackOff",
        "ImagePullBackOff",
        "ErrImagePull",
        "CreateContainerError",
        "CreateContainerConfigError",
        "RunContainerError",
        "InvalidImageName",
    ],
)
def test_each_retried_reason_counts_as_failing(reason: str) -> None:
    report = derive(pods=[pod("echo-a", containers=[waiting("asya-runtime", reason)])])
    assert workload(report)["failing"] == 1
    assert report.phase == phase.Phase.DEGRADED


def test_a_container_restarting_after_oomkilled_is_failing() -> None:
    restarted = {
        "name": "asya-runtime",
        "ready": False,
        "state": {"running": {"startedAt": "2026-11-25T10:00:00Z"}},
        "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137}},
    }
    report = derive(pods=[pod("echo-a", ready=False, containers=[restarted])])
    assert workload(report)["failing"] == 1


# ------------------------------------------------------------------ messages


def test_oomkilled_names_the_memory_limit_and_the_flavor_that_set_it() -> None:
    oom = waiting("asya-runtime", "CrashLoopBackOff", reason="OOMKilled", exitCode=137)
    report = derive(flavors={"gpu-a100": GPU_FLAVOR}, pods=[pod("echo-a", containers=[oom])])
    assert workload(report)["message"] == (
        "Deployment is not available: 1 pod failing: container asya-runtime was OOMKilled: "
        'memory limit 16Gi (resources.limits.memory, from flavor "gpu-a100"); raise it'
    )


def test_oomkilled_without_a_limit_says_which_field_to_set() -> None:
    oom = waiting("asya-sidecar", "CrashLoopBackOff", reason="OOMKilled", exitCode=137)
    report = derive(pods=[pod("echo-a", containers=[oom])])
    assert workload(report)["message"].endswith(
        "container asya-sidecar was OOMKilled with no memory limit of its own (the node ran "
        "out of memory); set sidecar.resources.limits.memory"
    )


def test_an_image_that_cannot_be_pulled_is_named_with_who_set_it() -> None:
    pulled = waiting("asya-runtime", "ImagePullBackOff", 'Back-off pulling image "echo:1"')
    report = derive(pods=[pod("echo-a", containers=[pulled])])
    assert workload(report)["message"].endswith(
        "container asya-runtime cannot pull image echo:1: check image (from the actor's spec)"
    )
    sidecar = derive(pods=[pod("echo-a", containers=[waiting("asya-sidecar", "ErrImagePull")])])
    assert workload(sidecar)["message"].endswith(
        "container asya-sidecar cannot pull image ghcr.io/deliveryhero/asya-sidecar:latest: "
        "check sidecar.image (from the Composition's Input)"
    )


def test_a_missing_secret_names_the_entry_and_the_flavor_that_names_it() -> None:
    config = waiting("asya-runtime", "CreateContainerConfigError", 'secret "openai" not found')
    report = derive(
        flavors={"openai-secrets": SECRETS_FLAVOR}, pods=[pod("e", containers=[config])]
    )
    assert workload(report)["message"].endswith(
        'container asya-runtime cannot start: secret "openai" not found '
        '(named by secretRefs[openai].secretName, from flavor "openai-secrets")'
    )


def test_unschedulable_pods_say_what_the_pod_asks_for_and_who_asked() -> None:
    scheduler = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
    unscheduled = unschedulable_pod(scheduler)
    report = derive(flavors={"gpu-a100": GPU_FLAVOR}, pods=[unscheduled])
    message = workload(report)["message"]
    assert message.startswith("Deployment is not available: 1 pod pending: cannot be scheduled: ")
    assert message.endswith(f"; the scheduler says: {scheduler}")
    for asked in (
        'cpu: 4 (resources.requests.cpu, from flavor "gpu-a100")',
        'nvidia.com/gpu: 1 (resources.limits.nvidia.com/gpu, from flavor "gpu-a100")',
        "node cloud.google.com/gke-accelerator=nvidia-tesla-a100 "
        '(nodeSelector.cloud.google.com/gke-accelerator, from flavor "gpu-a100")',
        '1 toleration (from flavor "gpu-a100")',
    ):
        assert asked in message
    # No node fits until the actor, a flavor or the nodes change: a new actor is degraded too
    # (as kube-scheduler and kwok showed in tests/cluster/test_actor_life.py).
    assert report.phase == phase.Phase.DEGRADED


def test_messages_stay_the_same_while_only_restarts_and_back_off_change() -> None:
    first = waiting("asya-runtime", "CrashLoopBackOff", "back-off 10s restarting", 2, exitCode=1)
    later = waiting("asya-runtime", "CrashLoopBackOff", "back-off 5m0s restarting", 9, exitCode=1)
    messages = {
        workload(derive(pods=[pod("echo-a", containers=[found])]))["message"]
        for found in (first, later)
    }
    assert messages == {
        "Deployment is not available: 1 pod failing: container asya-runtime is crash-looping "
        "(exit code 1); its log says why: kubectl logs deployment/echo -c asya-runtime --previous"
    }


def test_several_failing_pods_are_described_by_the_first_by_name() -> None:
    pods = [
        pod(f"echo-{suffix}", containers=[waiting("asya-runtime", "ErrImagePull")])
        for suffix in ("c", "a", "b")
    ]
    pods.append(pod("echo-0"))
    message = workload(derive(pods=pods))["message"]
    assert message.startswith("Deployment is not available: 3 of 4 pods failing: ")


def test_a_long_scheduler_message_is_bounded() -> None:
    scheduler = "0/300 nodes are available: " + "node(s) had untolerated taint, " * 40
    unscheduled = unschedulable_pod(scheduler)
    message = workload(derive(pods=[unscheduled]))["message"]
    assert len(message) <= len("Deployment is not available: ") + pod_health.MAX_MESSAGE


def test_phase_degraded_is_in_both_xrds() -> None:
    for path in ("xrd/xasyncactors.asya.sh.yaml", "xrd/asyncactors.asya.sh.v2.yaml"):
        text = (support.ROOT / path).read_text()
        assert "Degraded" in text
        for column in ("Running", "Pending", "Failing", "Min", "Max"):
            assert f"name: {column}" in text


def test_scaling_bounds_are_reported() -> None:
    report = derive(
        observed=stage("ready"), spec={"scaling": {"minReplicaCount": 1, "maxReplicaCount": 7}}
    )
    assert report.status["scaling"] == {"minReplicas": 1, "maxReplicas": 7, "active": True}
    fixed = derive(observed=stage("ready"), spec={"scaling": {"enabled": False}, "replicas": 2})
    # Without KEDA: the fixed replicas, and no Active condition to read.
    assert fixed.status["scaling"] == {"minReplicas": 2, "maxReplicas": 2}


@pytest.mark.parametrize("trouble", TROUBLES)
def test_every_pod_fixture_validates_against_the_pod_schema(trouble: str) -> None:
    pods = schemas.load_all(
        support.ROOT / "examples" / "troubleshooting" / "pods" / f"{trouble}.yaml"
    )
    assert pods
    for body in pods:
        assert schemas.errors(body) == []
        assert body["metadata"]["labels"]["asya.sh/actor"] == "summarizer"


def test_a_ready_pod_runs_whatever_its_containers_went_through() -> None:
    recovered = {
        "name": "asya-runtime",
        "ready": True,
        "restartCount": 1,
        "state": {"running": {"startedAt": "2026-11-25T10:00:00Z"}},
        "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137}},
    }
    report = derive(pods=[pod("echo-a", ready=True, containers=[recovered])])
    assert (workload(report)["running"], workload(report)["failing"]) == (1, 0)
    assert report.phase != phase.Phase.DEGRADED


def test_an_unhealthy_actor_asks_for_its_pods_already_on_call_one() -> None:
    """Before its flavors are fetched: the requirements must not change between calls."""
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"]["flavors"] = ["gpu-a100"]
    req = support.request(xr, input=support.struct({}))
    for name, body in unavailable().items():
        req.observed.resources[name].resource.update(body)
    first = fn.FunctionRunner().answer(req).message()
    assert "flavor-gpu-a100" in first.requirements.resources
    assert len(first.desired.resources) == 0  # still waiting for the flavor
    assert requirements.PODS_KEY in first.requirements.resources


def test_image_pull_words_stay_the_same_as_the_kubelet_alternates_its_reasons() -> None:
    messages = {
        workload(derive(pods=[pod("echo-a", containers=[waiting("asya-runtime", reason)])]))[
            "message"
        ]
        for reason in ("ErrImagePull", "ImagePullBackOff")
    }
    assert len(messages) == 1


def test_a_container_between_crash_loop_back_offs_is_still_failing() -> None:
    running_again = {
        "name": "asya-runtime",
        "ready": False,
        "restartCount": 4,
        "state": {"running": {"startedAt": "2026-11-25T10:00:00Z"}},
        "lastState": {"terminated": {"reason": "Error", "exitCode": 1}},
    }
    backing_off = waiting(
        "asya-runtime", "CrashLoopBackOff", "back-off 40s", 4, reason="Error", exitCode=1
    )
    reports = [
        derive(pods=[pod("echo-a", ready=False, containers=[found])])
        for found in (running_again, backing_off)
    ]
    assert [workload(r)["failing"] for r in reports] == [1, 1]
    assert workload(reports[0])["message"] == workload(reports[1])["message"]


def test_the_kubelets_changing_words_stay_out_of_the_message() -> None:
    created = waiting(
        "asya-runtime",
        "CreateContainerError",
        'failed to reserve container name "asya-runtime_echo-a_team_1"',
    )
    message = workload(derive(pods=[pod("echo-a", containers=[created])]))["message"]
    assert "reserve" not in message
    assert message.endswith(
        "container asya-runtime cannot be created or run (CreateContainerError); "
        "kubectl describe pods -l asya.sh/actor=echo says why"
    )


def test_a_rollout_stuck_beside_available_old_pods_is_looked_into() -> None:
    stuck = stage("ready")["deployment"]
    manifest = stuck["status"]["atProvider"]["manifest"]
    manifest["spec"] = {"replicas": 5}
    manifest["status"] |= {"replicas": 6, "readyReplicas": 5, "updatedReplicas": 1}
    assert observed_objects.needs_pods(stuck)


@pytest.mark.parametrize("odd", [["CrashLoopBackOff"], {"CrashLoopBackOff": 1}, 7, None])
def test_a_reason_of_another_type_reads_as_none(odd: Any) -> None:
    # Only hand-written observed state carries these; they raised an internal error.
    container = waiting("asya-runtime", "CrashLoopBackOff")
    container["state"]["waiting"]["reason"] = odd
    container["lastState"] = {"terminated": {"reason": odd}}
    report = derive(pods=[pod("echo-a", containers=[container])])
    assert workload(report)["failing"] == 0


def test_a_keda_ready_reason_of_another_type_reads_as_none() -> None:
    observed = stage("ready")
    manifest = observed["scaledobject"]["status"]["atProvider"]["manifest"]
    for condition in manifest["status"]["conditions"]:
        if condition["type"] == "Ready":
            condition |= {"status": "False", "reason": ["ScalingDegraded"]}
    report = derive(observed=observed)
    [autoscaler] = [a for a in report.aspects if a.type == "AutoscalerReady"]
    # Not the words of a valid but degraded autoscaler: those it does not say.
    assert autoscaler.reason == "Refused"


def test_pods_the_cluster_will_not_create_are_said_so() -> None:
    # A quota, PodSecurity or a pod-only rule: the Deployment says so in ReplicaFailure.
    observed = unavailable()
    status_ = observed["deployment"]["status"]["atProvider"]["manifest"]["status"]
    quota = 'pods "echo-6f7d9" is forbidden: exceeded quota: team-quota, requested: cpu=4'
    status_["conditions"].append(
        {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": quota}
    )
    report = derive(observed=observed)
    assert workload(report)["message"] == (
        f"Deployment is not available: the cluster refuses its pods: {quota}"
    )
    [aspect] = [a for a in report.aspects if a.type == "WorkloadAvailable"]
    assert (aspect.ok, aspect.reason) == (False, "PodsRefused")


# ------------------------------------------------------------------ issue 38's messages

# What GKE's scheduler says of a GPU pod on an ordinary cluster: every node's reason, then
# preemption's.
GKE_SCHEDULER = (
    "0/12 nodes are available: 2 Insufficient nvidia.com/gpu, 2 node(s) had untolerated "
    "taint {cloud.google.com/gke-spot: true}, 8 node(s) didn't match Pod's node "
    "affinity/selector. preemption: 0/12 nodes are available: 2 No preemption victims "
    "found for incoming pod, 10 Preemption is not helpful for scheduling., and 4 node(s) "
    "had volume node affinity conflict, 1 node(s) were unschedulable, 3 node(s) had taint "
    "{node.kubernetes.io/not-ready: }, that the pod didn't tolerate."
)
ZONE_FLAVOR = {
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "topology.kubernetes.io/zone",
                                "operator": "In",
                                "values": ["us-central1-a"],
                            }
                        ]
                    }
                ]
            }
        }
    },
    "tolerations": [{"key": "cloud.google.com/gke-spot", "operator": "Exists"}],
}


def test_a_gke_scheduler_message_keeps_who_set_the_placement_and_ends_on_a_whole_word() -> None:
    unscheduled = unschedulable_pod(GKE_SCHEDULER)
    report = derive(flavors={"gpu-a100": GPU_FLAVOR, "zone-a": ZONE_FLAVOR}, pods=[unscheduled])
    message = workload(report)["message"]
    assert len(message) <= len("Deployment is not available: ") + pod_health.MAX_MESSAGE
    for asked in (
        '(nodeSelector.cloud.google.com/gke-accelerator, from flavor "gpu-a100")',
        'node affinity (affinity.nodeAffinity, from flavor "zone-a")',
        '2 tolerations (from flavor "gpu-a100", flavor "zone-a")',
    ):
        assert asked in message
    # The scheduler's words are cut after a whole word, and said to be cut.
    said = message.split("the scheduler says: ", 1)[1]
    assert said.endswith(" …")
    kept = said.removesuffix(" …")
    assert GKE_SCHEDULER.startswith(kept)
    assert GKE_SCHEDULER[len(kept)] == " "


def test_a_container_without_a_name_is_said_without_a_blank() -> None:
    nameless = waiting("", "CrashLoopBackOff", reason="OOMKilled", exitCode=137)
    message = workload(derive(pods=[pod("echo-a", containers=[nameless])]))["message"]
    assert "  " not in message
    assert message.endswith("1 pod failing: a container without a name was OOMKilled")


def test_a_serving_actor_whose_new_pod_cannot_be_scheduled_is_degraded() -> None:
    serving = pod("echo-0")
    scale_up = unschedulable_pod("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.")
    report = derive(
        flavors={"gpu-a100": GPU_FLAVOR},
        observed=unavailable(ready=1, replicas=2),
        pods=[serving, scale_up],
    )
    assert report.phase == phase.Phase.DEGRADED
    [aspect] = [a for a in report.aspects if a.type == "WorkloadAvailable"]
    assert aspect.reason == "PodsUnschedulable"
    assert "1 of 2 pods pending: cannot be scheduled" in workload(report)["message"]


def test_a_crash_loop_that_becomes_oomkilled_is_news() -> None:
    crashing = waiting("asya-runtime", "CrashLoopBackOff", exitCode=1)
    killed = waiting("asya-runtime", "CrashLoopBackOff", reason="OOMKilled", exitCode=137)
    before, after = (
        next(
            a
            for a in derive(pods=[pod("echo-a", containers=[found])]).aspects
            if a.type == "WorkloadAvailable"
        )
        for found in (crashing, killed)
    )
    previous = {before.type: ("False", before.reason)}
    assert conditions.changed((after,), previous) == [after]
    assert "was OOMKilled" in after.message
