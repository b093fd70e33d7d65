"""The XR as Crossplane's reconciler holds it through one reconcile, and what it records.

Shared by the stages of `crossplane render`'s reconcile (engine.py before and after
the pipeline, composed.py for what it applies).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.cli.render.files import Document
from function.cli.render.output import CONDITION_TIME, set_condition

# The engine pins the XR's resourceVersion so the reconciler's writes succeed.
RESOURCE_VERSION = "999"
REASON_COMPOSE = "ComposeResources"
REASON_RESOLVE = "SelectComposition"


@dataclass
class Reconcile:
    """The XR as the reconciler holds it when it runs the pipeline, and what it recorded."""

    xr: dict[str, Any]
    legacy: bool
    events: list[dict[str, str]] = field(default_factory=list)
    # The pipeline's results are recorded here, between the reconciler's own events.
    pipeline_at: int = 0

    @property
    def metadata(self) -> dict[str, Any]:
        """The held XR's metadata."""
        metadata: dict[str, Any] = self.xr["metadata"]
        return metadata

    def refs_owner(self) -> dict[str, Any]:
        """Where the XR keeps Crossplane's fields: spec (legacy XRs) or spec.crossplane."""
        spec = self.xr.setdefault("spec", {})
        if self.legacy:
            owner: dict[str, Any] = spec
            return owner
        crossplane: dict[str, Any] = spec.setdefault("crossplane", {})
        return crossplane

    def record(self, kind: str, reason: str, message: str) -> None:
        """Record an event, as the engine's recorder keeps them for `Result` documents."""
        self.events.append({"type": kind, "reason": reason, "message": message})


def group_version_kind(api_version: str, kind: str) -> str:
    """schema.GroupVersionKind.String(): `group/version, Kind=kind`."""
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


def deterministic_uid(xr: Document) -> str:
    """The UID the engine gives an XR without one: SHA-1 UUID of GVK, namespace, name."""
    namespace = str(xr.metadata.get("namespace") or "")
    key = f"{group_version_kind(xr.api_version, xr.kind)}\x00{namespace}\x00{xr.name}"
    return str(uuid.uuid5(uuid.UUID(int=0), key))


def legacy_schema(xrd: Document | None) -> bool:
    """Whether the XR keeps Crossplane's fields in spec: a LegacyCluster XRD says so.

    Without an XRD the engine assumes a modern XR (spec.crossplane), as it does.
    """
    if xrd is None:
        return False
    scope = (xrd.body.get("spec") or {}).get("scope")
    if xrd.api_version == "apiextensions.crossplane.io/v1":
        return scope in (None, "LegacyCluster")
    return bool(scope == "LegacyCluster")


def reference(body: dict[str, Any], rec: Reconcile) -> dict[str, Any]:
    """An ObjectReference to a resource; only a cluster-scoped XR's carry a namespace."""
    metadata = body.get("metadata") or {}
    reference = {"apiVersion": body.get("apiVersion", ""), "kind": body.get("kind", "")}
    if metadata.get("name"):
        reference["name"] = metadata["name"]
    if metadata.get("namespace") and not rec.metadata.get("namespace"):
        reference["namespace"] = metadata["namespace"]
    return reference


def mark(rec: Reconcile, condition: dict[str, Any]) -> None:
    """The reconciler's status manager: set a condition with the XR's observed generation."""
    marked = condition | {"lastTransitionTime": CONDITION_TIME}
    generation = rec.metadata.get("generation")
    if isinstance(generation, int) and generation:
        marked["observedGeneration"] = generation
    set_condition(rec.xr.setdefault("status", {}).setdefault("conditions", []), marked)


def unready(desired: fnv1.State) -> list[str]:
    """The composed resources no function said are ready (sorted; Go's map order is random)."""
    return sorted(n for n, r in desired.resources.items() if r.ready != fnv1.READY_TRUE)


def fixed_times(body: dict[str, Any]) -> dict[str, Any]:
    """ReplaceConditionTimestamps: every condition as a typed Condition, at the fixed time."""
    status = body.get("status")
    if not isinstance(status, dict) or not isinstance(status.get("conditions"), list):
        return body
    typed = []
    for condition in status["conditions"]:
        fields = {
            key: condition[key]
            for key in ("type", "status", "reason", "message", "observedGeneration")
            if isinstance(condition, dict) and condition.get(key) not in (None, "", 0)
        }
        typed.append(
            {"type": "", "status": "", "reason": ""}
            | fields
            | {"lastTransitionTime": CONDITION_TIME}
        )
    status["conditions"] = typed
    return body
