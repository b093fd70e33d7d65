"""The actor's pods as its owner needs to see them: how many run, wait and fail, and why.

Counted as the Asya operator counts them (`kubectl get asyas`): running = ready
pods in phase Running; failing = pods whose init or runtime containers wait in a
reason Kubernetes keeps retrying (or restart after being OOMKilled); pending =
the others, unschedulable ones included. Pods in phase Failed or Succeeded, and
pods being deleted, are not counted. The Pods are asked for only while the
Deployment is not fully available (`observed.needs_pods`); a healthy actor is counted from
its Deployment's status.

Messages say what to change and who set it (the actor or which flavor), in words
that stay the same from one reconcile to the next: a message that changed on
every call would make Crossplane write the XR on every call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from function.models import observed
from function.models.plain import MAP
from function.models.plan import Plan
from function.models.pod import ACTOR_LABEL
from function.status import pod_paths

# Reasons a container waits in while Kubernetes keeps retrying it.
FAILING_REASONS = frozenset(
    {
        "CrashLoopBackOff",
        "ImagePullBackOff",
        "ErrImagePull",
        "CreateContainerError",
        "CreateContainerConfigError",
        "RunContainerError",
        "InvalidImageName",
    }
)
IMAGE_REASONS = frozenset({"ImagePullBackOff", "ErrImagePull", "InvalidImageName"})
OOM_KILLED = "OOMKilled"
# Room for the scheduler's words and what the runtime asks for, each with its source.
MAX_MESSAGE = 600


@dataclass(frozen=True)
class PodCounts:
    """The actor's pods by state, and what the owner should know about them ('' if nothing)."""

    running: int
    pending: int
    failing: int
    message: str = ""
    # Pending pods the scheduler cannot place.
    unschedulable: int = 0
    # The failing pod the message describes was OOMKilled: a cause of its own, so a crash
    # loop that turns into one is news (an event), not a reworded message.
    oom_killed: bool = False


def from_deployment(status: Mapping[str, Any]) -> PodCounts:
    """Counts from a Deployment's status, when its Pods were not asked for (it is healthy)."""
    replicas, ready = observed.number(status, "replicas"), observed.number(status, "readyReplicas")
    return PodCounts(running=ready, pending=max(replicas - ready, 0), failing=0)


def count(plan: Plan, pods: Sequence[Mapping[str, Any]]) -> PodCounts:
    """Count the actor's pods and say why the first failing (else unschedulable) one is."""
    running = pending = 0
    failing: list[tuple[str, str, bool]] = []
    unschedulable: list[tuple[str, str]] = []
    for pod in pods:
        metadata = pod.get("metadata")
        if not isinstance(metadata, MAP) or metadata.get("deletionTimestamp"):
            continue
        # Crossplane 1.x answers with the namesakes of every namespace.
        if metadata.get("namespace", plan.namespace) != plan.namespace:
            continue
        status = pod.get("status")
        status = status if isinstance(status, MAP) else {}
        phase = status.get("phase")
        if phase in ("Failed", "Succeeded"):
            continue
        # A ready pod has every container ready: none of them can be failing.
        if phase == "Running" and observed.is_true(status, "Ready"):
            running += 1
            continue
        name = str(metadata.get("name", ""))
        why, oom = _failing(plan, status)
        if why:
            failing.append((name, why, oom))
        else:
            pending += 1
            if _unschedulable(status):
                unschedulable.append((name, _scheduler(status)))
    if failing:
        _, why, oom = min(failing)
        message = f"{_share(len(failing), running + pending + len(failing))} failing: {why}"
        return PodCounts(
            running,
            pending,
            len(failing),
            observed.bounded_words(message, MAX_MESSAGE),
            unschedulable=len(unschedulable),
            oom_killed=oom,
        )
    message = ""
    if unschedulable:
        share = f"{_share(len(unschedulable), running + pending)} pending: "
        message = share + _placement(plan, min(unschedulable)[1], MAX_MESSAGE - len(share))
    return PodCounts(
        running,
        pending,
        0,
        observed.bounded_words(message, MAX_MESSAGE),
        unschedulable=len(unschedulable),
    )


def _share(some: int, total: int) -> str:
    return f"{some} of {total} pods" if total != 1 else "1 pod"


def _container_statuses(status: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Init containers first: the pod's other containers wait for them."""
    return [
        item
        for key in ("initContainerStatuses", "containerStatuses")
        for item in observed.as_list(status.get(key))
        if isinstance(item, MAP)
    ]


def _who(name: str) -> str:
    return f"container {name}" if name else "a container without a name"


def _failing(plan: Plan, status: Mapping[str, Any]) -> tuple[str, bool]:
    """Why a pod is failing ('' when it is not), and whether it was OOMKilled."""
    for container in _container_statuses(status):
        name = str(container.get("name") or "")
        terminated = observed.text(container, "state", "terminated", "reason")
        last = observed.text(container, "lastState", "terminated", "reason")
        if terminated == OOM_KILLED or (last == OOM_KILLED and not container.get("ready")):
            return _oom(plan, name), True
        if why := _waiting(plan, container, name):
            return why, False
    return "", False


def _waiting(plan: Plan, container: Mapping[str, Any], name: str) -> str:
    """Why a container that was not OOMKilled fails ('' when it does not)."""
    waiting = observed.text(container, "state", "waiting", "reason")
    if waiting in IMAGE_REASONS:
        return _image(plan, name)
    if waiting == "CreateContainerConfigError":
        return _config(plan, name, observed.dig(container, "state", "waiting", "message"))
    if waiting == "CrashLoopBackOff" or _between_crashes(container):
        # Between back-offs the container runs again, not ready: the same words, or
        # each restart would flip the pod between failing and pending.
        last = observed.text(container, "lastState", "terminated", "reason")
        code = observed.dig(container, "lastState", "terminated", "exitCode")
        exited = f"exit code {code}" if isinstance(code, int) else "it exits"
        logs = f"kubectl logs deployment/{plan.actor}" + (f" -c {name}" if name else "")
        return (
            f"{_who(name)} is crash-looping ({exited}{f', {last}' if last else ''}); "
            f"its log says why: {logs} --previous"
        )
    if waiting in FAILING_REASONS:
        # Not the kubelet's message: it carries container IDs that change every retry.
        return (
            f"{_who(name)} cannot be created or run ({waiting}); "
            f"kubectl describe pods -l {ACTOR_LABEL}={plan.actor} says why"
        )
    return ""


def _between_crashes(container: Mapping[str, Any]) -> bool:
    """Restarted after exiting in error, and not ready (yet) again."""
    code = observed.dig(container, "lastState", "terminated", "exitCode")
    restarts = container.get("restartCount")
    return (
        not container.get("ready")
        and isinstance(restarts, int)
        and restarts > 0
        and isinstance(code, int)
        and code != 0
    )


def _oom(plan: Plan, container: str) -> str:
    where = pod_paths.of_container(plan, container)
    if where is None:
        return f"{_who(container)} was OOMKilled"
    limit = where.resource(plan, "limits", "memory")
    if limit is None:
        return (
            f"container {container} was OOMKilled with no memory limit of its own (the node "
            f"ran out of memory); set {where.field('resources', 'limits', 'memory')}"
        )
    value, path, source = limit
    return f"container {container} was OOMKilled: memory limit {value} ({path}, from {source}); raise it"


def _image(plan: Plan, container: str) -> str:
    # One wording for ErrImagePull, ImagePullBackOff and InvalidImageName: the kubelet
    # alternates the first two on every retry.
    where = pod_paths.of_container(plan, container)
    if where is None:
        return f"{_who(container)} cannot pull its image"
    image, path, source = where.image(plan)
    return f"container {container} cannot pull image {image}: check {path} (from {source})"


def _config(plan: Plan, container: str, detail: Any) -> str:
    text = str(detail or "CreateContainerConfigError")
    named = pod_paths.naming(plan, text)
    return f"{_who(container)} cannot start: {text}" + (f" ({named})" if named else "")


def _unschedulable(status: Mapping[str, Any]) -> bool:
    found = observed.condition(status, "PodScheduled")
    return (
        found is not None
        and str(found.get("status")) == "False"
        and found.get("reason") == "Unschedulable"
    )


def _scheduler(status: Mapping[str, Any]) -> str:
    found = observed.condition(status, "PodScheduled") or {}
    return str(found.get("message") or "no node fits")


def _placement(plan: Plan, scheduler: str, room: int) -> str:
    """What the pod asks of a node and who set it, then the scheduler's words in the room left.

    Ours first: they are short and say what to change; a scheduler's message (GKE lists
    every node group, then preemption's verdict) is cut after a whole word.
    """
    asks = pod_paths.placement(plan)
    head = "cannot be scheduled: " + (f"the runtime asks for {asks}; " if asks else "")
    said = "the scheduler says: "
    return head + said + observed.bounded_words(scheduler, max(room - len(head) - len(said), 0))
