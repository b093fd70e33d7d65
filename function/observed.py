"""Read observed composed resources, whether wrapped by provider-kubernetes or composed directly."""

from __future__ import annotations

from typing import Any

WRAPPER_API_GROUP = "kubernetes.crossplane.io/"


def _dig(body: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


def is_wrapped(body: dict[str, Any]) -> bool:
    """Tell whether an observed object is a provider-kubernetes Object."""
    return (
        str(body.get("apiVersion", "")).startswith(WRAPPER_API_GROUP)
        and body.get("kind") == "Object"
    )


def manifest_status(body: dict[str, Any] | None) -> dict[str, Any]:
    """Return the observed Kubernetes object's status (unwrapping an Object)."""
    if not body:
        return {}
    status = (
        _dig(body, "status", "atProvider", "manifest", "status")
        if is_wrapped(body)
        else body.get("status")
    )
    return status if isinstance(status, dict) else {}


def manifest_spec(body: dict[str, Any] | None) -> dict[str, Any]:
    """Return the observed Kubernetes object's spec (unwrapping an Object)."""
    if not body:
        return {}
    spec = (
        _dig(body, "spec", "forProvider", "manifest", "spec")
        if is_wrapped(body)
        else body.get("spec")
    )
    return spec if isinstance(spec, dict) else {}


def condition(status: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """Return the condition of a type from a status block, or None."""
    for item in status.get("conditions") or []:
        if isinstance(item, dict) and item.get("type") == kind:
            return item
    return None


def is_true(status: dict[str, Any], kind: str) -> bool:
    """Tell whether a status block has the condition `kind` with status True."""
    found = condition(status, kind)
    return found is not None and str(found.get("status")) == "True"


def at_provider(body: dict[str, Any] | None, key: str) -> str:
    """Return a managed resource's status.atProvider field as a string ('' if absent)."""
    value = _dig(body or {}, "status", "atProvider", key)
    return value if isinstance(value, str) else ""


def number(status: dict[str, Any], key: str) -> int:
    """Return an integer field of a status block (0 if absent or not a number)."""
    value = status.get(key)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
