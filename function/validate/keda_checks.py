"""What KEDA and the autoscaler would refuse of the ScaledObject, refused or warned of first.

Only while scaling is on: without it no ScaledObject is rendered, and these settings
are read by nothing. KEDA's own checks (apis/keda/v1alpha1: ValidateTriggers,
scaledobject_webhook.go): each trigger's name unique (the function's own is `queue`),
no cached metrics for the cpu, memory and cron scalers, a formula's target a number
above zero as strconv.ParseFloat reads it; the HPA's least replicas at most its most.
A formula itself is KEDA's to compile: its refusal shows in the ScaledObject's status,
which the actor's status reports (with KEDA's webhook, in the XR's events).

A `cpu` or `memory` trigger needs every container of the Deployment's pod (only the
one its `containerName` names, when set) to request or limit that resource above
zero, unless a LimitRange of the namespace gives one by default (verifyCPUMemoryScalers).
The function cannot see LimitRanges, so each such container is a warning, naming the
field that would settle it; init containers are not checked (KEDA reads the pod's
containers only). A target without a formula is dropped from the ScaledObject: a
warning says so.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from function.codec import go_scalars
from function.models import pod, quantity
from function.models.pod import Loc
from function.models.scaling import QUEUE_TRIGGER, Scaling
from function.models.spec import Spec
from function.resolve.provenance import DEFAULT, Provenance

RESOURCE_SCALERS = ("cpu", "memory")
# The scalers whose metrics KEDA will not cache (ValidateTriggers).
UNCACHED_SCALERS = frozenset({"cpu", "memory", "cron"})


def check(spec: Spec, origin: Provenance) -> None:
    """Refuse what KEDA or the autoscaler would refuse, naming the field and its layer.

    Raises:
        FlavorError: (or its SpecError form) for the first such value.
    """
    scaling = spec.scaling
    if not scaling.enabled:
        return
    named: set[str] = set()
    for index, trigger in enumerate(scaling.additional_triggers):
        at = ("scaling", "additionalTriggers", index)
        if trigger.name == QUEUE_TRIGGER:
            raise origin.refuse(
                (*at, "name"),
                f"{QUEUE_TRIGGER!r} is the actor's own trigger on its queue: name this one "
                "otherwise",
            )
        if trigger.name and trigger.name in named:
            raise origin.refuse(
                (*at, "name"), "another trigger has this name: KEDA needs each name unique"
            )
        named.add(trigger.name or "")
        if trigger.use_cached_metrics and trigger.type in UNCACHED_SCALERS:
            raise origin.refuse(
                (*at, "useCachedMetrics"), f"KEDA caches no metrics of the {trigger.type} scaler"
            )
    advanced = scaling.advanced
    if advanced and advanced.formula and not _keda_target(advanced.target or ""):
        raise origin.refuse(
            ("scaling", "advanced", "target"),
            'must be a number above zero, as text (such as "5" or "2.5")',
        )
    if scaling.min_replica_count > scaling.max_replica_count:
        raise origin.refuse(("scaling", "minReplicaCount"), _min_above_max(origin, scaling))


def _min_above_max(origin: Provenance, scaling: Scaling) -> str:
    """Say the most and who set it, unless the least's source (which refuse names) set it too."""
    _, least_from = origin.blame(("scaling", "minReplicaCount"))
    _, most_from = origin.blame(("scaling", "maxReplicaCount"))
    least, most = scaling.min_replica_count, scaling.max_replica_count
    if most_from == DEFAULT:
        return f"{least} is above the function's default maxReplicaCount {most}"
    if most_from == least_from:
        return f"{least} is above maxReplicaCount {most}"
    return f"{least} is above maxReplicaCount {most} of {most_from}"


def _keda_target(text: str) -> bool:
    """Whether KEDA takes `text` as a target: what strconv.ParseFloat reads, not at or below zero."""
    number = go_scalars.parse_float(text)
    # NaN is not at or below zero: KEDA takes it.
    return number is not None and not number <= 0


def _containers(data: Mapping[str, Any]) -> Iterator[tuple[str, Loc]]:
    """Each container of the pod (not the init containers) and where the spec configures it."""
    for place in pod.container_places(data):
        if place[:1] == ("initContainers",):
            continue
        if place == ():
            name = pod.RUNTIME
        elif place == ("sidecar",):
            name = pod.SIDECAR
        elif place[0] == "stateProxy":
            name = pod.connector_name(str(pod.value_at(data, (*place[:2], "name"))))
        else:
            name = str(pod.value_at(data, (*place, "name")))
        yield name, place


def _asks_for(resources: Any, resource: str) -> bool:
    """Whether a container's resources request or limit `resource` above zero."""
    if not isinstance(resources, Mapping):
        return False
    for part in ("requests", "limits"):
        amounts = resources.get(part)
        amount = quantity.parse(amounts.get(resource)) if isinstance(amounts, Mapping) else None
        if amount is not None and amount > 0:
            return True
    return False


def warnings(spec: Spec, origin: Provenance) -> list[str]:
    """A warning for each container a resource trigger needs a request of, and for a dropped target."""
    if not spec.scaling.enabled:
        return []
    said = []
    advanced = spec.scaling.advanced
    if advanced and not advanced.formula:
        unused = [
            key
            for key, value in (
                ("target", advanced.target),
                ("activationTarget", advanced.activation_target),
                ("metricType", advanced.metric_type),
            )
            if value is not None
        ]
        if unused:
            said.append(
                f"scaling.advanced: {' and '.join(unused)} take effect only with a formula: "
                "left out of the ScaledObject"
            )
    for index, trigger in enumerate(spec.scaling.additional_triggers):
        if trigger.type not in RESOURCE_SCALERS:
            continue
        named = trigger.metadata.get("containerName", "")
        for name, place in _containers(origin.data):
            resources = pod.value_at(origin.data, (*place, "resources"))
            if (named and name != named) or _asks_for(resources, trigger.type):
                continue
            field, _ = origin.blame((*place, "resources"))
            said.append(
                f"scaling.additionalTriggers[{index}]: KEDA refuses a {trigger.type} trigger "
                f"while container {name} has no {trigger.type} request or limit (unless a "
                f"LimitRange of the namespace gives one): set {field}.requests.{trigger.type}"
            )
    return said
