"""What `crossplane render` v2.3+ prints: one pass of Crossplane's own XR reconciler.

From CLI v2.3 render hands its inputs to `crossplane internal render`, which runs
the real XR reconciler against an in-memory API server and prints what that
reconcile wrote (crossplane internal/render/composite/render.go). This module
reproduces that one reconcile around the pipeline: the XR the functions observe,
the names and metadata of what is applied, the status written, the events
recorded. README ("Rendering") lists what it leaves out.
"""

from __future__ import annotations

import copy
import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.cli.render import output
from function.cli.render.errors import PipelineFatalError, RenderError
from function.cli.render.files import COMPOSITION_RESOURCE_NAME, Document, resource_name
from function.cli.render.output import (
    CLAIM_NAME_LABEL,
    CLAIM_NAMESPACE_LABEL,
    COMPOSITE_LABEL,
    CONDITION_TIME,
    RESULT_API_VERSION,
    SYSTEM_CONDITIONS,
    add_controller,
    function_condition,
    set_condition,
    some_names,
)
from function.cli.render.pipeline import Outcome
from function.codec import structs
from function.models import names

# The engine pins the XR's resourceVersion so the reconciler's writes succeed.
RESOURCE_VERSION = "999"
REASON_COMPOSE = "ComposeResources"
REASON_RESOLVE = "SelectComposition"
REASON_NAMESPACE = "NamespaceOverridden"
# names.ChildName: <generateName><12 hex digits>, within a DNS label's 63 characters.
_NAME_LIMIT = 63
_HASH_DIGITS = 12
_RBAC_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})


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


def begin(
    xr: Document, composition: Document, observed: list[Document], xrd: Document | None
) -> Reconcile:
    """Everything the reconciler does before it calls the pipeline.

    Raises:
        RenderError: an observed resource the engine would refuse.
    """
    body = copy.deepcopy(xr.body)
    metadata = body.setdefault("metadata", {})
    if not metadata.get("uid"):
        metadata["uid"] = deterministic_uid(xr)
    metadata["resourceVersion"] = RESOURCE_VERSION
    if not isinstance(body.get("status"), dict):
        body["status"] = {}
    rec = Reconcile(body, legacy_schema(xrd))
    _check_observed(rec, observed)
    if observed:
        rec.refs_owner()["resourceRefs"] = [_reference(doc.body, rec) for doc in observed]
    _mark(rec, {"type": "Responsive", "status": "True", "reason": "WatchCircuitClosed"})
    chosen = {"name": composition.name}
    if rec.refs_owner().get("compositionRef") != chosen:
        rec.record("Normal", REASON_RESOLVE, f"Successfully selected composition: {chosen['name']}")
    rec.refs_owner()["compositionRef"] = chosen
    labels = metadata.setdefault("labels", {})
    if not labels.get(COMPOSITE_LABEL):
        labels[COMPOSITE_LABEL] = xr.name
    rec.pipeline_at = len(rec.events)
    return rec


def _check_observed(rec: Reconcile, observed: list[Document]) -> None:
    """CheckObservedResources, and the observer's refusal of an anonymous resource."""
    problems = []
    namespace = rec.metadata.get("namespace") or ""
    for doc in observed:
        controller = next(
            (r for r in doc.metadata.get("ownerReferences") or [] if r.get("controller")), None
        )
        if controller is not None and controller.get("uid") != rec.metadata["uid"]:
            problems.append(
                f"observed resource {doc.name} has a controller ref but is not controlled by the XR"
            )
        if namespace and doc.metadata.get("namespace") != namespace:
            problems.append(f"observed resource {doc.name} is not in the same namespace as the XR")
    if problems:
        raise RenderError(
            "crossplane internal render returned error with output: invalid observed "
            "resources: " + "\n".join(problems)
        )
    if any(doc.name and not resource_name(doc) for doc in observed):
        raise RenderError(
            "crossplane internal render returned error with output: reconcile failed: "
            "cannot compose resources: cannot get existing composed resources: encountered "
            f'composed resource without required "{COMPOSITION_RESOURCE_NAME}" annotation'
        )


def _reference(body: dict[str, Any], rec: Reconcile) -> dict[str, Any]:
    """An ObjectReference to a resource; only a cluster-scoped XR's carry a namespace."""
    metadata = body.get("metadata") or {}
    reference = {"apiVersion": body.get("apiVersion", ""), "kind": body.get("kind", "")}
    if metadata.get("name"):
        reference["name"] = metadata["name"]
    if metadata.get("namespace") and not rec.metadata.get("namespace"):
        reference["namespace"] = metadata["namespace"]
    return reference


def _mark(rec: Reconcile, condition: dict[str, Any]) -> None:
    """The reconciler's status manager: set a condition with the XR's observed generation."""
    marked = condition | {"lastTransitionTime": CONDITION_TIME}
    generation = rec.metadata.get("generation")
    if isinstance(generation, int) and generation:
        marked["observedGeneration"] = generation
    set_condition(rec.xr.setdefault("status", {}).setdefault("conditions", []), marked)


def composed(rec: Reconcile, outcome: Outcome, observed: list[Document]) -> list[dict[str, Any]]:
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
        out.append(_fixed_times(body))
    for name in _unready(outcome.desired):
        rec.record("Normal", REASON_COMPOSE, f'Composed resource "{name}" is not yet ready')
    return out


def _unready(desired: fnv1.State) -> list[str]:
    """The composed resources no function said are ready (sorted; Go's map order is random)."""
    return sorted(n for n, r in desired.resources.items() if r.ready != fnv1.READY_TRUE)


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


def composite(
    rec: Reconcile,
    xr: Document,
    outcome: Outcome,
    applied: list[dict[str, Any]],
    *,
    full: bool,
) -> dict[str, Any]:
    """The XR as the reconciler's last status write leaves it.

    The references write replaces the object with the XR's name and resource
    references; the status writes replace its status. So the desired spec a
    function returns is not printed, and `-x` deep-merges the result into the
    input XR (mergo, overriding) as the CLI does.
    """
    desired = outcome.desired
    desired_xr = structs.plain(desired.composite.resource)
    status = desired_xr.get("status")
    status = copy.deepcopy(status) if isinstance(status, dict) else {}
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    for condition in rec.xr.get("status", {}).get("conditions") or []:
        set_condition(conditions, condition)
    claim_types = list(rec.xr.get("status", {}).get("claimConditionTypes") or [])
    for condition in outcome.conditions:
        if condition.type not in SYSTEM_CONDITIONS:
            set_condition(conditions, function_condition(condition))
            # A legacy XR lists the types its claim shows, first seen first.
            aimed = condition.target == fnv1.TARGET_COMPOSITE_AND_CLAIM
            if rec.legacy and aimed and condition.type not in claim_types:
                claim_types.append(condition.type)
    rec.xr["status"] = status | {"conditions": conditions}
    if claim_types:
        rec.xr["status"]["claimConditionTypes"] = claim_types
    _mark(rec, {"type": "Synced", "status": "True", "reason": "ReconcileSuccess"})
    _mark(rec, _ready(desired))

    references = sorted(
        (_reference(body, rec) for body in applied),
        key=lambda r: r["apiVersion"] + r["kind"] + r.get("name", "") + r.get("namespace", ""),
    )
    metadata = {"name": xr.name}
    if xr.metadata.get("namespace"):
        metadata["namespace"] = xr.metadata["namespace"]
    spec: dict[str, Any] = {"resourceRefs": references}
    body = {
        "apiVersion": xr.api_version,
        "kind": xr.kind,
        "metadata": metadata,
        "spec": spec if rec.legacy else {"crossplane": spec},
        "status": rec.xr["status"],
    }
    if full:
        body = merge_override(copy.deepcopy(xr.body), body)
    return _fixed_times(body)


def _ready(desired: fnv1.State) -> dict[str, Any]:
    """The Ready condition the reconciler sets."""
    unready = _unready(desired)
    if desired.composite.ready == fnv1.READY_TRUE:
        return {"type": "Ready", "status": "True", "reason": "Available"}
    if desired.composite.ready == fnv1.READY_FALSE:
        return {"type": "Ready", "status": "False", "reason": "Creating"}
    if unready:
        return {
            "type": "Ready",
            "status": "False",
            "reason": "Creating",
            "message": f"Unready resources: {some_names(unready)}",
        }
    return {"type": "Ready", "status": "True", "reason": "Available"}


def merge_override(target: dict[str, Any], source: dict[str, Any]) -> dict[str, Any]:
    """mergo.Merge(target, source, WithOverride): maps merge, other non-empty values win."""
    for key, value in source.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            merge_override(target[key], value)
        elif value not in (None, "", 0, False, [], {}) or key not in target:
            target[key] = copy.deepcopy(value)
    return target


def _fixed_times(body: dict[str, Any]) -> dict[str, Any]:
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


def results(rec: Reconcile, outcome: Outcome) -> list[dict[str, Any]]:
    """The recorded events as `Result` documents: the pipeline's results among them.

    Before the pipeline: selecting the Composition; then each step's results
    prefixed with the step; then what composing found (namespaces overridden,
    resources not yet ready).
    """
    pipeline = [_event(each.step, each.result) for each in outcome.results]
    events = rec.events[: rec.pipeline_at] + pipeline + rec.events[rec.pipeline_at :]
    return [
        {
            "apiVersion": RESULT_API_VERSION,
            "kind": "Result",
            "severity": event["type"],
            "reason": event["reason"],
            "message": event["message"],
        }
        for event in events
    ]


def _event(step: str, result: fnv1.Result) -> dict[str, str]:
    """A step's result as the reconciler records it (reason ComposeResources by default)."""
    reason = result.reason or REASON_COMPOSE
    message = f'Pipeline step "{step}": {result.message}'
    if result.severity == fnv1.SEVERITY_NORMAL:
        return {"type": "Normal", "reason": reason, "message": message}
    if result.severity == fnv1.SEVERITY_WARNING:
        return {"type": "Warning", "reason": reason, "message": message}
    return {
        "type": "Warning",
        "reason": reason,
        "message": f'Pipeline step "{step}" returned a result of unknown severity '
        f"(assuming warning): {result.message}",
    }


def fatal(exc: PipelineFatalError) -> str:
    """How the CLI words a fatal result: the engine's error, as it reports it."""
    return f"crossplane internal render: pipeline returned fatal: cannot compose resources: {exc}"
