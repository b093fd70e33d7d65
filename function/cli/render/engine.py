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
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.cli.render.errors import PipelineFatalError, RenderError
from function.cli.render.files import COMPOSITION_RESOURCE_NAME, Document, resource_name
from function.cli.render.output import (
    COMPOSITE_LABEL,
    RESULT_API_VERSION,
    SYSTEM_CONDITIONS,
    function_condition,
    set_condition,
    some_names,
)
from function.cli.render.pipeline import Outcome
from function.cli.render.reconcile import (
    REASON_COMPOSE,
    REASON_RESOLVE,
    RESOURCE_VERSION,
    Reconcile,
    deterministic_uid,
    fixed_times,
    legacy_schema,
    mark,
    reference,
    unready,
)
from function.codec import structs


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
        rec.refs_owner()["resourceRefs"] = [reference(doc.body, rec) for doc in observed]
    mark(rec, {"type": "Responsive", "status": "True", "reason": "WatchCircuitClosed"})
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
    mark(rec, {"type": "Synced", "status": "True", "reason": "ReconcileSuccess"})
    mark(rec, _ready(desired))

    references = sorted(
        (reference(body, rec) for body in applied),
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
    return fixed_times(body)


def _ready(desired: fnv1.State) -> dict[str, Any]:
    """The Ready condition the reconciler sets."""
    waiting = unready(desired)
    if desired.composite.ready == fnv1.READY_TRUE:
        return {"type": "Ready", "status": "True", "reason": "Available"}
    if desired.composite.ready == fnv1.READY_FALSE:
        return {"type": "Ready", "status": "False", "reason": "Creating"}
    if waiting:
        return {
            "type": "Ready",
            "status": "False",
            "reason": "Creating",
            "message": f"Unready resources: {some_names(waiting)}",
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
