"""The composed resources as Crossplane's reconciler applies them: named, labelled, owned."""

from __future__ import annotations

import hashlib
from typing import Any

from function.cli.render import output
from function.cli.render.errors import RenderError
from function.cli.render.files import COMPOSITION_RESOURCE_NAME, Document
from function.cli.render.output import (
    CLAIM_NAME_LABEL,
    CLAIM_NAMESPACE_LABEL,
    COMPOSITE_LABEL,
    add_controller,
)
from function.cli.render.pipeline import Outcome
from function.cli.render.reconcile import REASON_COMPOSE, Reconcile, fixed_times, unready
from function.models import names

REASON_NAMESPACE = "NamespaceOverridden"
# names.ChildName: <generateName><12 hex digits>, within a DNS label's 63 characters.
_NAME_LIMIT = 63
_HASH_DIGITS = 12
_RBAC_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})


def resources(rec: Reconcile, outcome: Outcome, observed: list[Document]) -> list[dict[str, Any]]:
    """Each desired composed resource as the reconciler applies it, named as it names them.

    Records the events composing raises (namespaces overridden, resources not yet
    ready), so it runs before `results`.

    Raises:
        RenderError: a resource the reconciler could not apply (another controller,
            a name the API server would refuse).
    """
    labels = rec.metadata.get("labels") or {}
    prefix = labels[COMPOSITE_LABEL]
    claim_labels = {}
    if labels.get(CLAIM_NAME_LABEL) and labels.get(CLAIM_NAMESPACE_LABEL):
        claim_labels = {key: labels[key] for key in (CLAIM_NAME_LABEL, CLAIM_NAMESPACE_LABEL)}
    namespace = rec.metadata.get("namespace") or ""
    owner = output.owner(
        rec.xr["apiVersion"], rec.xr["kind"], rec.metadata["name"], rec.metadata["uid"]
    )
    out = []
    for name, body, metadata in output.desired_resources(outcome, observed):
        if namespace and metadata.get("namespace") and metadata["namespace"] != namespace:
            rec.record(
                "Warning",
                REASON_NAMESPACE,
                f'cannot create composed resource "{name}" in namespace '
                f'"{metadata["namespace"]}", using XR namespace "{namespace}" instead',
            )
        if not metadata.get("name") and not metadata.get("generateName"):
            metadata["generateName"] = f"{prefix}-"
        if namespace:
            metadata["namespace"] = namespace
        metadata.setdefault("annotations", {})[COMPOSITION_RESOURCE_NAME] = name
        metadata.setdefault("labels", {}).update({COMPOSITE_LABEL: prefix} | claim_labels)
        conflict = add_controller(metadata, owner)
        if conflict:
            raise _compose_error(
                f'cannot render metadata for composed resource "{name}": cannot set '
                f"controller reference: {conflict}"
            )
        if not metadata.get("name"):
            metadata["name"] = child_name(metadata["generateName"], owner["uid"], name)
        if not _valid_name(str(metadata["name"]), str(body.get("kind", ""))):
            raise _compose_error(
                f'cannot apply composed resource "{name}" because it has an invalid name '
                f'"{metadata["name"]}". Must be a valid RFC 1123 subdomain name.'
            )
        out.append(fixed_times(body))
    for name in unready(outcome.desired):
        rec.record("Normal", REASON_COMPOSE, f'Composed resource "{name}" is not yet ready')
    return out


def child_name(parent: str, parent_uid: str, child: str) -> str:
    """names.ChildName: a composed resource's name from its generateName, owner and name."""
    suffix = hashlib.sha256((parent_uid + child).encode()).hexdigest()[:_HASH_DIGITS]
    if parent and not parent.endswith("-"):
        parent += "-"
    if len(parent) + len(suffix) <= _NAME_LIMIT:
        return parent + suffix
    room = _NAME_LIMIT - _HASH_DIGITS
    if not parent[:room].endswith("-"):
        return parent[: room - 1] + "-" + suffix
    return parent[:room] + suffix


def _compose_error(message: str) -> RenderError:
    return RenderError(
        "crossplane internal render returned error with output: reconcile failed: "
        f"cannot compose resources: {message}"
    )


def _valid_name(name: str, kind: str) -> bool:
    """names.ValidateName: an RFC 1123 subdomain (RBAC kinds may also hold colons)."""
    if kind in _RBAC_KINDS:
        name = name.replace(":", "")
    return names.is_object_name(name)
