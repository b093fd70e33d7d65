"""Turn a pipeline's outcome into the YAML stream `crossplane render` prints."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import structs
from function.rendercli.errors import RenderError
from function.rendercli.files import COMPOSITION_RESOURCE_NAME, Document, resource_name
from function.rendercli.pipeline import Outcome

COMPOSITE_LABEL = "crossplane.io/composite"
CLAIM_NAME_LABEL = "crossplane.io/claim-name"
CLAIM_NAMESPACE_LABEL = "crossplane.io/claim-namespace"
# render fixes every condition's time: a real one would only be noise.
CONDITION_TIME = "2024-01-01T00:00:00Z"
SYSTEM_CONDITIONS = frozenset({"Ready", "Synced", "Healthy", "UpToDate", "Responsive"})
_STATUS = {
    fnv1.STATUS_CONDITION_TRUE: "True",
    fnv1.STATUS_CONDITION_FALSE: "False",
}


def some_names(names: list[str], first: int = 3) -> str:
    """List names the way Crossplane does: sorted, `a, b, and c`, or `…, and N more`."""
    ordered = sorted(names)
    if len(ordered) > first:
        return f"{', '.join(ordered[:first])}, and {len(ordered) - first} more"
    if len(ordered) == first:
        return f"{', '.join(ordered[:-1])}, and {ordered[-1]}"
    return ", ".join(ordered)


def _set_condition(status: dict[str, Any], condition: dict[str, Any]) -> None:
    conditions = status.setdefault("conditions", [])
    for index, existing in enumerate(conditions):
        if existing.get("type") == condition["type"]:
            conditions[index] = condition
            return
    conditions.append(condition)


def composite(xr: Document, outcome: Outcome, *, full: bool) -> dict[str, Any]:
    """Return the XR as render prints it: desired status plus the Ready condition."""
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
        body["spec"] = copy.deepcopy(xr.body.get("spec"))
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
            "message": f"Unready resources: {some_names(unready)}",
        }
    status = body.setdefault("status", {})
    _set_condition(status, ready | {"lastTransitionTime": CONDITION_TIME})
    for condition in outcome.conditions:
        if condition.type in SYSTEM_CONDITIONS:
            continue
        rendered = {
            "type": condition.type,
            "status": _STATUS.get(condition.status, "Unknown"),
            "reason": condition.reason,
            "lastTransitionTime": CONDITION_TIME,
        }
        if condition.message:
            rendered["message"] = condition.message
        _set_condition(status, rendered)
    return body


def composed(xr: Document, outcome: Outcome, observed: list[Document]) -> list[dict[str, Any]]:
    """Return each desired composed resource with the metadata Crossplane would add."""
    by_name = {resource_name(doc): doc for doc in observed}
    labels = xr.metadata.get("labels") or {}
    prefix = labels.get(COMPOSITE_LABEL) or xr.name
    claim_ref = (xr.body.get("spec") or {}).get("claimRef") or {}
    claim_labels = {}
    if labels.get(CLAIM_NAME_LABEL) and labels.get(CLAIM_NAMESPACE_LABEL):
        claim_labels = {
            CLAIM_NAMESPACE_LABEL: labels[CLAIM_NAMESPACE_LABEL],
            CLAIM_NAME_LABEL: labels[CLAIM_NAME_LABEL],
        }
    elif claim_ref:
        claim_labels = {
            CLAIM_NAMESPACE_LABEL: claim_ref.get("namespace", ""),
            CLAIM_NAME_LABEL: claim_ref.get("name", ""),
        }
    owner = {
        "apiVersion": xr.api_version,
        "kind": xr.kind,
        "name": xr.name,
        "uid": str(xr.metadata.get("uid", "")),
        "controller": True,
        "blockOwnerDeletion": True,
    }
    out = []
    for name in sorted(outcome.desired.resources):
        body = structs.plain(outcome.desired.resources[name].resource)
        metadata = body.setdefault("metadata", {})
        if name in by_name:
            seen = by_name[name].metadata
            for key in ("namespace", "name", "generateName"):
                if seen.get(key):
                    metadata[key] = seen[key]
                else:
                    metadata.pop(key, None)
        if not metadata.get("name") and not metadata.get("generateName"):
            metadata["generateName"] = f"{prefix}-"
        if xr.metadata.get("namespace"):
            metadata["namespace"] = xr.metadata["namespace"]
        metadata.setdefault("annotations", {})[COMPOSITION_RESOURCE_NAME] = name
        metadata.setdefault("labels", {})[COMPOSITE_LABEL] = prefix
        metadata["labels"].update(claim_labels)
        references = metadata.setdefault("ownerReferences", [])
        for reference in references:
            if reference.get("controller") and reference.get("uid") != owner["uid"]:
                raise RenderError(
                    f"cannot render composed resource {name!r} metadata: it already has "
                    "another controller"
                )
        metadata["ownerReferences"] = [r for r in references if r.get("uid") != owner["uid"]]
        metadata["ownerReferences"].append(owner)
        out.append(body)
    return out


def context_document(outcome: Outcome) -> dict[str, Any]:
    """Return the pipeline context as render's `Context` document."""
    return {
        "apiVersion": "render.crossplane.io/v1beta1",
        "kind": "Context",
        "fields": structs.plain(outcome.context),
    }


class KubernetesDumper(yaml.SafeDumper):
    """Writes scalars as Kubernetes' serializer (sigs.k8s.io/yaml over go-yaml v2) does.

    A string that would not read back as a string (`"True"`, `"4"`, `""`, a
    timestamp) is double-quoted, a string with a newline is a literal block, and
    UTF-8 is written as is; other quoting and the 80-column folding of long plain
    scalars come from the same libyaml emitter rules both share.
    """


_STR = "tag:yaml.org,2002:str"


def _represent_str(dumper: KubernetesDumper, value: str) -> yaml.ScalarNode:
    style = None
    if "\n" in value:
        style = "|"
    # The tag the value would read back with, plain: anything but str must be quoted.
    elif value == "" or _plain_tag(dumper, value) != _STR:
        style = '"'
    return dumper.represent_scalar(_STR, value, style=style)


def _plain_tag(dumper: KubernetesDumper, value: str) -> str:
    resolve: Any = dumper.resolve  # untyped in the PyYAML stubs
    tag: str = resolve(yaml.ScalarNode, value, (True, False))
    return tag


KubernetesDumper.add_representer(str, _represent_str)


def dump(documents: list[dict[str, Any]]) -> str:
    """Print documents as one YAML stream, each preceded by `---`."""
    chunks = []
    for document in documents:
        text = yaml.dump(
            document,
            Dumper=KubernetesDumper,
            sort_keys=True,
            default_flow_style=False,
            allow_unicode=True,
        )
        chunks.append(f"---\n{text}")
    return "".join(chunks)
