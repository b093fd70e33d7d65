"""What `crossplane render` v2.0-v2.2 prints: the desired state, dressed as the CLI dresses it.

Before v2.3 the CLI ran the pipeline itself and printed the final desired XR (its
spec included) with a Ready condition it derived, and the desired composed
resources with the metadata Crossplane would add (cmd/crank/render/render.go).
"""

from __future__ import annotations

import copy
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.cli.render import output
from function.cli.render.errors import PipelineFatalError, RenderError
from function.cli.render.files import COMPOSITION_RESOURCE_NAME, Document
from function.cli.render.pipeline import Outcome
from function.codec import structs


def composite(xr: Document, outcome: Outcome, *, full: bool) -> dict[str, Any]:
    """Return the XR as render prints it: desired state plus the Ready condition.

    Raises:
        RenderError: `full` for an XR without a spec, as v2.0-v2.2 refuse it.
    """
    desired = outcome.desired
    body = (
        structs.plain(desired.composite.resource) if desired.composite.HasField("resource") else {}
    )
    body["apiVersion"] = xr.api_version
    body["kind"] = xr.kind
    metadata = body.setdefault("metadata", {})
    metadata["name"] = xr.name
    if xr.metadata.get("namespace"):
        metadata["namespace"] = xr.metadata["namespace"]
    if full:
        if "spec" not in xr.body:
            raise RenderError("cannot get composite resource spec: spec: no such field")
        body["spec"] = copy.deepcopy(xr.body["spec"])
        body["metadata"] = copy.deepcopy(xr.metadata)
    unready = [name for name, r in desired.resources.items() if r.ready != fnv1.READY_TRUE]
    ready: dict[str, Any] = {"type": "Ready", "status": "True", "reason": "Available"}
    if desired.composite.ready == fnv1.READY_FALSE:
        ready = {"type": "Ready", "status": "False", "reason": "Creating"}
    elif desired.composite.ready == fnv1.READY_UNSPECIFIED and unready:
        ready = {
            "type": "Ready",
            "status": "False",
            "reason": "Creating",
            "message": f"Unready resources: {output.some_names(unready)}",
        }
    conditions = body.setdefault("status", {}).setdefault("conditions", [])
    output.set_condition(conditions, ready | {"lastTransitionTime": output.CONDITION_TIME})
    for condition in outcome.conditions:
        if condition.type not in output.SYSTEM_CONDITIONS:
            output.set_condition(conditions, output.function_condition(condition))
    return body


def composed(xr: Document, outcome: Outcome, observed: list[Document]) -> list[dict[str, Any]]:
    """Return each desired composed resource with the metadata Crossplane would add."""
    labels = xr.metadata.get("labels") or {}
    prefix = labels.get(output.COMPOSITE_LABEL) or xr.name
    claim_ref = (xr.body.get("spec") or {}).get("claimRef") or {}
    claim_labels = {}
    if labels.get(output.CLAIM_NAME_LABEL) and labels.get(output.CLAIM_NAMESPACE_LABEL):
        claim_labels = {
            output.CLAIM_NAMESPACE_LABEL: labels[output.CLAIM_NAMESPACE_LABEL],
            output.CLAIM_NAME_LABEL: labels[output.CLAIM_NAME_LABEL],
        }
    elif claim_ref:
        claim_labels = {
            output.CLAIM_NAMESPACE_LABEL: claim_ref.get("namespace", ""),
            output.CLAIM_NAME_LABEL: claim_ref.get("name", ""),
        }
    owner = output.owner(xr.api_version, xr.kind, xr.name, str(xr.metadata.get("uid", "")))
    out = []
    for name, body, metadata in output.desired_resources(outcome, observed):
        if not metadata.get("name") and not metadata.get("generateName"):
            metadata["generateName"] = f"{prefix}-"
        if xr.metadata.get("namespace"):
            metadata["namespace"] = xr.metadata["namespace"]
        metadata.setdefault("annotations", {})[COMPOSITION_RESOURCE_NAME] = name
        metadata.setdefault("labels", {})[output.COMPOSITE_LABEL] = prefix
        metadata["labels"].update(claim_labels)
        conflict = output.add_controller(metadata, owner)
        if conflict:
            raise RenderError(
                f'cannot render composed resource "{name}" metadata: cannot set composite '
                f'resource "{xr.name}" as controller ref of composed resource: {conflict}'
            )
        out.append(body)
    return out


def results(outcome: Outcome) -> list[dict[str, Any]]:
    """The non-fatal results as `Result` documents, in pipeline order."""
    return [
        {
            "apiVersion": output.RESULT_API_VERSION,
            "kind": "Result",
            "step": each.step,
            "severity": fnv1.Severity.Name(each.result.severity),
            "message": each.result.message,
        }
        for each in outcome.results
    ]


def fatal(exc: PipelineFatalError) -> str:
    """How the CLI words a fatal result."""
    return str(exc)
