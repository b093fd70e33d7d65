"""The actor's status and each composed resource's readiness, from what Crossplane observed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from function.compose.renderers import meta, transports
from function.compose.renderers.transport import QueueState
from function.models import observed, pod
from function.models.plain import MAP
from function.models.plan import Plan
from function.status import accepted, conditions, keda_status, pod_health, pod_paths


class Phase(StrEnum):
    """The actor's phase, shown in the Status column."""

    CREATING = "Creating"
    READY = "Ready"
    NAPPING = "Napping"
    # A pod is failing (crash-looping, its image cannot be pulled, ...): see the message.
    DEGRADED = "Degraded"
    # A KEDA annotation stops scaling: the replicas stay where it holds them.
    PAUSED = "Paused"


@dataclass(frozen=True)
class Report:
    """The XR status to write and which composed resources are ready."""

    phase: Phase
    status: dict[str, Any]
    ready: dict[str, bool]
    # Said as Warning results on every call while they hold.
    warnings: tuple[str, ...] = ()
    # One condition per aspect: the queue, the autoscaler, the workload.
    aspects: tuple[conditions.Aspect, ...] = ()


def _blocked(body: Mapping[str, Any] | None, kind: str) -> tuple[str, str]:
    """What keeps an observed object from being looked at yet: (reason, message), or ('', '')."""
    if body is None:
        return "Waiting", f"waiting for the {kind} to be created"
    if failure := observed.apply_failure(body):
        return "ApplyFailed", f"{kind} {failure}"
    if observed.awaits_manifest(body):
        return "Waiting", f"waiting for provider-kubernetes to observe the {kind}"
    return "", ""


def _keda(plan: Plan, rendered: dict[str, Any]) -> keda_status.Autoscaler:
    if not plan.spec.scaling.enabled:
        return keda_status.Autoscaler(True, reason="Disabled")
    if meta.SCALED_OBJECT not in rendered:
        waits_for = transports.of(plan).scaler_waits_for(plan)
        message = f"waiting for {waits_for} before creating the ScaledObject"
        return keda_status.Autoscaler(False, message, reason="Waiting")
    body = plan.observed.get(meta.SCALED_OBJECT)
    reason, blocked = _blocked(body, "ScaledObject")
    if blocked:
        return keda_status.Autoscaler(False, blocked, reason=reason)
    return keda_status.read(body)


@dataclass(frozen=True)
class Workload:
    """The Deployment as the status shows it."""

    ready: bool
    replicas: int
    ready_replicas: int
    pods: pod_health.PodCounts
    message: str
    reason: str

    @property
    def not_accepted(self) -> bool:
        """The API server did not take the Deployment last rendered: an older one runs."""
        return self.reason == accepted.REASON


def _workload(plan: Plan) -> Workload:
    body = plan.observed.get(meta.DEPLOYMENT)
    reason, blocked = _blocked(body, "Deployment")
    if reason == "ApplyFailed" and (field := pod_paths.refused_field(plan, body, blocked)):
        blocked = observed.bounded(f"the API server refuses {field}: {blocked}")
    if blocked:
        return Workload(False, 0, 0, pod_health.PodCounts(0, 0, 0), blocked, reason)
    status = observed.manifest_status(body)
    replicas, ready = observed.number(status, "replicas"), observed.number(status, "readyReplicas")
    pods = (
        pod_health.count(plan, plan.pods)
        if plan.pods is not None and observed.needs_pods(body)
        else pod_health.from_deployment(status)
    )
    if not observed.is_true(status, "Available"):
        # The ReplicaSet cannot create pods (a quota, PodSecurity): the Deployment says why.
        if not pods.message and observed.is_true(status, "ReplicaFailure"):
            refused = observed.describe(observed.condition(status, "ReplicaFailure"), "")
            message = f"Deployment is not available: the cluster refuses its pods: {refused}"
            return Workload(False, replicas, ready, pods, message, "PodsRefused")
        found = observed.condition(status, "Available")
        detail = pods.message or observed.bounded(str((found or {}).get("message") or ""))
        detail = detail or f"{ready}/{replicas} ready replicas"
        message = f"Deployment is not available: {detail}"
        return Workload(False, replicas, ready, pods, message, _pods_reason(pods, "Unavailable"))
    # Available: ready, however many replicas are still starting (the counts say so).
    return Workload(True, replicas, ready, pods, pods.message, _pods_reason(pods, "Available"))


def _pods_reason(pods: pod_health.PodCounts, otherwise: str) -> str:
    if pods.failing:
        return "PodsOOMKilled" if pods.oom_killed else "PodsFailing"
    return "PodsUnschedulable" if pods.unschedulable else otherwise


def _phase(queue_ready: bool, autoscaler: keda_status.Autoscaler, workload: Workload) -> Phase:
    """The phase from each part's state: a running actor never goes back to Creating."""
    # A running actor whose autoscaler fails or degrades is degraded; so is one with a pod
    # the scheduler cannot place, new or serving: no node fits what the actor asks for
    # until someone changes the actor, a flavor or the nodes (the message names which).
    if (
        workload.pods.failing
        or workload.not_accepted
        or (workload.ready and (autoscaler.degraded or autoscaler.refused))
        or workload.pods.unschedulable
    ):
        return Phase.DEGRADED
    if not (queue_ready and autoscaler.valid):
        return Phase.CREATING
    if autoscaler.holds_replicas and workload.ready:
        # Not Napping at zero replicas, nor failing: KEDA holds them where it was told.
        return Phase.PAUSED
    # KEDA's HPA idles because KEDA scaled the actor to zero (2.20.2): it naps even while
    # the Deployment's last observed status still counts the pods it stops.
    if autoscaler.napping and workload.ready_replicas == 0:
        return Phase.NAPPING
    if workload.ready:
        return Phase.NAPPING if workload.replicas == 0 else Phase.READY
    return Phase.CREATING


def _scaling(plan: Plan, autoscaler: keda_status.Autoscaler) -> dict[str, Any]:
    """The bounds the actor scales within, what KEDA's HPA says, and what KEDA's status says."""
    found = _bounds_and_hpa(plan)
    if autoscaler.active is not None:
        found["active"] = autoscaler.active
    if autoscaler.active_triggers is not None:
        found["activeTriggers"] = list(autoscaler.active_triggers)
    if autoscaler.paused:
        found["paused"] = autoscaler.paused
    return found


def _bounds_and_hpa(plan: Plan) -> dict[str, Any]:
    """The bounds the actor scales within (KEDA's, or its fixed replicas), and what KEDA's HPA says."""
    scaling = plan.spec.scaling
    if not scaling.enabled:
        return {"minReplicas": plan.spec.replicas, "maxReplicas": plan.spec.replicas}
    bounds = {"minReplicas": scaling.min_replica_count, "maxReplicas": scaling.max_replica_count}
    scaled_object = observed.manifest_status(plan.observed.get(meta.SCALED_OBJECT))
    name = keda_status.hpa_name(scaled_object, plan.actor)
    for hpa in plan.autoscalers or ():
        metadata = hpa.get("metadata")
        if (
            isinstance(metadata, MAP)
            and metadata.get("name") == name
            # Crossplane 1.x answers with the namesakes of every namespace.
            and metadata.get("namespace", plan.namespace) == plan.namespace
        ):
            return bounds | keda_status.scaling(hpa)
    return bounds


def _exists(plan: Plan, name: str) -> bool:
    """Ready once observed and applied: there is nothing further to wait for."""
    return name in plan.observed and not observed.apply_failure(plan.observed[name])


def _infrastructure(
    queue: QueueState, autoscaler: keda_status.Autoscaler, workload: Workload
) -> dict[str, Any]:
    """The status of each part: the queue, KEDA and the workload, with their counts."""
    return {
        "queue": {"ready": queue.ready, "message": queue.message}
        | ({"deadLetter": queue.dead_letter} if queue.dead_letter else {}),
        "keda": {"ready": autoscaler.healthy, "message": autoscaler.message},
        "workload": {
            "ready": workload.ready,
            "replicas": workload.replicas,
            "readyReplicas": workload.ready_replicas,
            "running": workload.pods.running,
            "pending": workload.pods.pending,
            "failing": workload.pods.failing,
            "message": workload.message,
        },
    }


def derive(plan: Plan, rendered: dict[str, Any]) -> Report:
    """Compute the phase, the status block, and each rendered resource's readiness."""
    transport = transports.of(plan)
    queue = transport.queue(plan)
    autoscaler = _keda(plan, rendered)
    workload = _workload(plan)
    if refused := accepted.refusal(plan, rendered.get(meta.DEPLOYMENT)):
        workload = replace(workload, message=refused, reason=accepted.REASON)
    phase = _phase(queue.ready, autoscaler, workload)
    status: dict[str, Any] = {"phase": phase.value, "transport": plan.settings.transport}
    if queue.url:
        status["queueUrl"] = queue.url
    if queue.identifier:
        status["queueIdentifier"] = queue.identifier
    status["infrastructure"] = _infrastructure(queue, autoscaler, workload)
    if mark := accepted.marks(rendered.get(meta.DEPLOYMENT)).get(pod.RENDERED_ANNOTATION):
        status["infrastructure"]["workload"]["rendered"] = mark
    status["scaling"] = _scaling(plan, autoscaler)
    queue_parts = transport.readiness(plan, queue)
    readiness = {
        **queue_parts,
        meta.SERVICE_ACCOUNT: _exists(plan, meta.SERVICE_ACCOUNT),
        meta.TRIGGER_AUTHENTICATION: _exists(plan, meta.TRIGGER_AUTHENTICATION),
        meta.SCALED_OBJECT: autoscaler.valid and meta.SCALED_OBJECT in plan.observed,
        meta.DEPLOYMENT: workload.ready,
        meta.POD_MONITOR: _exists(plan, meta.POD_MONITOR),
    }
    return Report(
        phase=phase,
        status=status,
        ready={name: readiness.get(name, False) for name in rendered},
        warnings=(queue.warning,) if queue.warning else (),
        aspects=(
            conditions.Aspect(
                conditions.QUEUE,
                queue.ready,
                _queue_reason(plan, queue, queue_parts),
                queue.message,
            ),
            conditions.Aspect(
                conditions.AUTOSCALER,
                autoscaler.healthy,
                autoscaler.reason,
                autoscaler.message,
            ),
            conditions.Aspect(
                conditions.WORKLOAD,
                workload.ready
                and not (workload.pods.failing or workload.pods.unschedulable)
                and not workload.not_accepted,
                workload.reason,
                workload.message,
            ),
        ),
    )


def _queue_reason(plan: Plan, queue: QueueState, parts: Mapping[str, bool]) -> str:
    """Ready, or why not: Crossplane cannot apply one of the queue's parts, or it waits."""
    if queue.ready:
        return "Ready"
    failed = any(observed.apply_failure(plan.observed.get(name)) for name in parts)
    return "ApplyFailed" if failed else "Waiting"
