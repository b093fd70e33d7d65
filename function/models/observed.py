"""Read observed composed resources, whether wrapped by provider-kubernetes or composed directly."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from function.models.plain import LIST, MAP

WRAPPER_API_GROUP = "kubernetes.crossplane.io/"


def dig(body: Any, *keys: str) -> Any:
    """The value down a path of map keys (None where the path breaks off)."""
    for key in keys:
        if not isinstance(body, MAP):
            return None
        body = body.get(key)
    return body


def text(body: Any, *keys: str) -> str | None:
    """The text down a path of map keys (None where it breaks off or holds no text).

    A reason or a phase is compared with known words: a list or a map where text
    belongs (only hand-written state has them) reads as none, never as an error.
    """
    found = dig(body, *keys)
    return found if isinstance(found, str) else None


def as_list(value: Any) -> Sequence[Any]:
    """A list read from observed state (a list, or a view of one); anything else reads as none."""
    return value if isinstance(value, LIST) else ()


def is_wrapped(body: Mapping[str, Any]) -> bool:
    """Tell whether an observed object is a provider-kubernetes Object."""
    return (
        str(body.get("apiVersion", "")).startswith(WRAPPER_API_GROUP)
        and body.get("kind") == "Object"
    )


def manifest_status(body: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Return the observed Kubernetes object's status (unwrapping an Object)."""
    return _manifest_part(body, "status", ("status", "atProvider", "manifest", "status"))


def manifest_spec(body: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Return the Kubernetes object's spec as composed (unwrapping an Object's desired manifest)."""
    return _manifest_part(body, "spec", ("spec", "forProvider", "manifest", "spec"))


def manifest_metadata(body: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Return the Kubernetes object's metadata as the cluster holds it (an Object's observed manifest).

    It carries the annotations others set: KEDA's pause annotations on a ScaledObject.
    """
    return _manifest_part(body, "metadata", ("status", "atProvider", "manifest", "metadata"))


def live_spec(body: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Return the Kubernetes object's spec as the cluster holds it (an Object's observed manifest).

    It carries what others write: the replicas KEDA's autoscaler sets on a Deployment.
    """
    return _manifest_part(body, "spec", ("status", "atProvider", "manifest", "spec"))


def _manifest_part(
    body: Mapping[str, Any] | None, key: str, wrapped: tuple[str, ...]
) -> Mapping[str, Any]:
    if not body:
        return {}
    part = dig(body, *wrapped) if is_wrapped(body) else body.get(key)
    return part if isinstance(part, MAP) else {}


def container_env(body: Mapping[str, Any] | None, container: str, name: str) -> str:
    """An env var's value in a container of an observed Deployment's pod template ('' if absent)."""
    for item in as_list(dig(manifest_spec(body), "template", "spec", "containers")):
        if isinstance(item, MAP) and item.get("name") == container:
            for var in as_list(item.get("env")):
                if isinstance(var, MAP) and var.get("name") == name:
                    value = var.get("value")
                    return value if isinstance(value, str) else ""
    return ""


def condition(status: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    """Return the condition of a type from a status block, or None."""
    for item in as_list(status.get("conditions")):
        if isinstance(item, MAP) and item.get("type") == kind:
            return item
    return None


def is_true(status: Mapping[str, Any], kind: str) -> bool:
    """Tell whether a status block has the condition `kind` with status True."""
    found = condition(status, kind)
    return found is not None and str(found.get("status")) == "True"


def at_provider(body: Mapping[str, Any] | None, key: str) -> str:
    """Return a managed resource's status.atProvider field as a string ('' if absent)."""
    value = dig(body or {}, "status", "atProvider", key)
    return value if isinstance(value, str) else ""


def triggers(body: Mapping[str, Any] | None) -> Sequence[Any]:
    """An observed ScaledObject's triggers (none when absent or misshapen)."""
    return as_list(manifest_spec(body).get("triggers"))


def number(status: Mapping[str, Any], key: str) -> int:
    """Return an integer field of a status block (0 if absent or not a number)."""
    value = status.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0
    return int(value)


MAX_MESSAGE = 300


def bounded(text: str, limit: int = MAX_MESSAGE) -> str:
    """A message cut to `limit` characters, so one provider error cannot bloat the status."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bounded_words(text: str, limit: int) -> str:
    """A message cut after its last whole word within `limit` characters, marked ` …`."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 2, 0)]
    space = cut.rfind(" ")
    return (cut[:space] if space > 0 else cut) + " …"


def describe(found: Mapping[str, Any] | None, kind: str) -> str:
    """Say what a condition says: its message, else its reason, else its status."""
    if found is None:
        return f"no {kind} condition yet"
    text = found.get("message") or found.get("reason") or f"{kind} is {found.get('status')}"
    return bounded(str(text))


def apply_failure(body: Mapping[str, Any] | None) -> str:
    """Why Crossplane cannot apply a composed resource ('' when nothing says it cannot).

    A managed resource or a provider-kubernetes Object reports a failed apply in
    its own `Synced=False` condition, above any status of the object it manages.
    """
    if not body:
        return ""
    status = body.get("status")
    found = condition(status, "Synced") if isinstance(status, MAP) else None
    if found is None or str(found.get("status")) != "False":
        return ""
    reason, message = found.get("reason") or "", found.get("message") or ""
    return bounded(f"cannot apply: {': '.join(str(p) for p in (reason, message) if p)}")


def awaits_manifest(body: Mapping[str, Any] | None) -> bool:
    """Tell whether a provider-kubernetes Object has not observed its object yet."""
    if not body or not is_wrapped(body):
        return False
    return not isinstance(dig(body, "status", "atProvider", "manifest"), Mapping)


def needs_pods(deployment: Mapping[str, Any] | None) -> bool:
    """Tell whether the Deployment is observed and not fully available: its Pods say why."""
    if deployment is None or awaits_manifest(deployment):
        return False
    status = manifest_status(deployment)
    if not status:
        return False
    # The replicas asked of it (by KEDA's autoscaler, or the actor), else those it has.
    desired = number(live_spec(deployment), "replicas") or number(status, "replicas")
    ready = number(status, "readyReplicas")
    # Its pods (a rollout's new ones beside the old included) against those ready: a
    # rollout stuck on a pod that cannot start leaves the Deployment Available.
    pods = max(desired, number(status, "replicas"))
    return not is_true(status, "Available") or ready < pods
