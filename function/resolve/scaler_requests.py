"""KEDA's check of a cpu or memory trigger: every container of the pod asks for that resource.

KEDA's admission webhook refuses a ScaledObject with a `cpu` or `memory` trigger while
a container of its Deployment's pod (only the one its `containerName` names, when
set) has neither a request nor a limit of that resource above zero, unless a
LimitRange of the namespace gives one by default (scaledobject_webhook.go,
verifyCPUMemoryScalers). The function cannot see LimitRanges, so each such container
is a warning, naming the field that would settle it. Init containers are not
checked (KEDA reads the pod's containers only).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from function.models import pod, quantity
from function.models.spec import Spec

RESOURCE_SCALERS = ("cpu", "memory")


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
    """One warning for each container a cpu or memory trigger needs a request of."""
    if not spec.scaling.enabled:
        return []
    said = []
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
