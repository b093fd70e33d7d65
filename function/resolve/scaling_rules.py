"""What KEDA and the autoscaler would refuse of the ScaledObject, refused or warned of first.

Only while scaling is on: without it no ScaledObject is rendered, and these settings
are read by nothing. KEDA's own checks (apis/keda/v1alpha1: ValidateTriggers,
scaledobject_webhook.go): each trigger's name unique (the function's own is `queue`),
no cached metrics for the cpu, memory and cron scalers, a formula's target a number
above zero as strconv.ParseFloat reads it; the HPA's least replicas at most its most.

A `cpu` or `memory` trigger needs every container of the Deployment's pod (only the
one its `containerName` names, when set) to request or limit that resource above
zero, unless a LimitRange of the namespace gives one by default (verifyCPUMemoryScalers).
The function cannot see LimitRanges, so each such container is a warning, naming the
field that would settle it; init containers are not checked (KEDA reads the pod's
containers only). A target without a formula is dropped from the ScaledObject: a
warning says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from function.codec import go_scalars
from function.models import pod, quantity
from function.models.scaling import QUEUE_TRIGGER
from function.models.spec import Spec
from function.resolve.provenance import DEFAULT, Provenance

RESOURCE_SCALERS = ("cpu", "memory")
# The scalers whose metrics KEDA will not cache (ValidateTriggers).
UNCACHED_SCALERS = frozenset({"cpu", "memory", "cron"})
# A hexadecimal float as Go writes it: `_` only between digits or after the prefix.
_HEX_FLOAT = re.compile(r"[-+]?0x(_?[0-9a-f])*(\.([0-9a-f](_?[0-9a-f])*)?)?p[-+]?[0-9](_?[0-9])*")
_GO_SPECIAL_FLOATS = frozenset({"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan"})


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
        _, most_from = origin.blame(("scaling", "maxReplicaCount"))
        raise origin.refuse(
            ("scaling", "minReplicaCount"),
            f"{scaling.min_replica_count} is above maxReplicaCount {scaling.max_replica_count} "
            + (f"(from {most_from})" if most_from != DEFAULT else "(the function's default)"),
        )


def _keda_target(text: str) -> bool:
    """Whether KEDA takes `text` as a target: what strconv.ParseFloat reads, not at or below zero."""
    plain = text.lower()
    number: float | None
    if plain in _GO_SPECIAL_FLOATS:
        number = float(plain)
    elif plain.lstrip("+-").startswith("0x"):
        # A hexadecimal mantissa needs its binary exponent (`0x1p3`); Python's reader
        # would also take spaces and stray underscores, and Go's none of them.
        number = None
        if _HEX_FLOAT.fullmatch(plain):
            try:
                number = float.fromhex(plain.replace("_", ""))
            except (ValueError, OverflowError):  # no digits (`0xp3`), or past float64
                number = None
    else:
        number = go_scalars.go_float(text)
    # NaN is not at or below zero: KEDA takes it.
    return number is not None and not number <= 0


def _containers(spec: Spec) -> Iterator[tuple[str, Any, str]]:
    """Each container of the pod: its name, its resources, and the field that sets them."""
    yield pod.RUNTIME, spec.resources, "resources"
    yield pod.SIDECAR, spec.sidecar.resources if spec.sidecar else None, "sidecar.resources"
    for proxy in spec.state_proxy:
        where = f"stateProxy[{proxy.name}].connector.resources"
        yield pod.connector_name(proxy.name), proxy.connector.resources, where
    for container in spec.sidecars:
        yield (
            container.name,
            (container.model_extra or {}).get("resources"),
            (f"sidecars[{container.name}].resources"),
        )


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


def warnings(spec: Spec) -> list[str]:
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
        for name, resources, field in _containers(spec):
            if (named and name != named) or _asks_for(resources, trigger.type):
                continue
            said.append(
                f"scaling.additionalTriggers[{index}]: KEDA refuses a {trigger.type} trigger "
                f"while container {name} has no {trigger.type} request or limit (unless a "
                f"LimitRange of the namespace gives one): set {field}.requests.{trigger.type}"
            )
    return said
