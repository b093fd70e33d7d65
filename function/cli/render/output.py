"""What every release of `crossplane render` prints alike: names, conditions, the YAML text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.cli.render.files import Document, resource_name
from function.cli.render.pipeline import Outcome
from function.codec import go_scalars, structs

COMPOSITE_LABEL = "crossplane.io/composite"
CLAIM_NAME_LABEL = "crossplane.io/claim-name"
CLAIM_NAMESPACE_LABEL = "crossplane.io/claim-namespace"
RESULT_API_VERSION = "render.crossplane.io/v1beta1"
# render fixes every condition's time: a real one would only be noise.
CONDITION_TIME = "2024-01-01T00:00:00Z"
# crossplane-runtime's IsSystemConditionType: a function may not set these.
SYSTEM_CONDITIONS = frozenset({"Ready", "Synced", "Healthy"})
CONDITION_STATUS = {
    fnv1.STATUS_CONDITION_TRUE: "True",
    fnv1.STATUS_CONDITION_FALSE: "False",
}


def function_condition(condition: fnv1.Condition) -> dict[str, Any]:
    """A condition a function returned, as Crossplane writes it on the XR."""
    rendered = {
        "type": condition.type,
        "status": CONDITION_STATUS.get(condition.status, "Unknown"),
        "reason": condition.reason,
        "lastTransitionTime": CONDITION_TIME,
    }
    if condition.message:
        rendered["message"] = condition.message
    return rendered


def add_controller(metadata: dict[str, Any], owner: dict[str, Any]) -> str:
    """AddControllerReference: replace the reference with the owner's UID in place, else append.

    Returns why it cannot, when the resource already has another controller; else "".
    """
    references = metadata.setdefault("ownerReferences", [])
    for reference in references:
        if reference.get("controller") and reference.get("uid") != owner["uid"]:
            return (
                f"{metadata.get('name', '')} is already controlled by "
                f"{reference.get('kind', '')} {reference.get('name', '')} "
                f"(UID {reference.get('uid', '')})"
            )
    for index, reference in enumerate(references):
        if reference.get("uid") == owner["uid"]:
            references[index] = dict(owner)
            return ""
    references.append(dict(owner))
    return ""


def owner(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    """The controller reference a composed resource carries to its XR."""
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def desired_resources(
    outcome: Outcome, observed: list[Document]
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Each desired composed resource by name, with its body and metadata as plain data.

    A resource observed under the same name keeps its identity (name, uid).
    """
    by_name = {resource_name(doc): doc for doc in observed}
    for name in sorted(outcome.desired.resources):
        body = structs.plain(outcome.desired.resources[name].resource)
        metadata = body.setdefault("metadata", {})
        if name in by_name:
            keep_identity(metadata, by_name[name].metadata)
        yield name, body, metadata


def keep_identity(metadata: dict[str, Any], observed: dict[str, Any]) -> None:
    """An existing composed resource keeps its namespace, name and generateName."""
    for key in ("namespace", "name", "generateName"):
        if observed.get(key):
            metadata[key] = observed[key]
        else:
            metadata.pop(key, None)


def set_condition(conditions: list[dict[str, Any]], condition: dict[str, Any]) -> None:
    """SetConditions: replace the condition of the same type in place, else append."""
    for index, existing in enumerate(conditions):
        if existing.get("type") == condition["type"]:
            conditions[index] = condition
            return
    conditions.append(condition)


def some_names(names: list[str], first: int = 3) -> str:
    """List names the way Crossplane does: sorted, `a, b, and c`, or `…, and N more`."""
    ordered = sorted(names)
    if len(ordered) > first:
        return f"{', '.join(ordered[:first])}, and {len(ordered) - first} more"
    if len(ordered) == first:
        return f"{', '.join(ordered[:-1])}, and {ordered[-1]}"
    return ", ".join(ordered)


def context_document(outcome: Outcome) -> dict[str, Any]:
    """Return the pipeline context as render's `Context` document."""
    return {
        "apiVersion": RESULT_API_VERSION,
        "kind": "Context",
        "fields": structs.plain(outcome.context),
    }


class KubernetesDumper(yaml.SafeDumper):
    """Writes scalars as Kubernetes' serializer (sigs.k8s.io/yaml over go-yaml v2) does.

    A string that would not read back as a string (`"True"`, `"4"`, `""`, a
    timestamp, and what go-yaml v2 alone reads otherwise: `"y"`, `"1e-3"`,
    `"0o17"`) is double-quoted, a string with a newline is a literal block, and
    UTF-8 is written as is; other quoting and the 80-column folding of long plain
    scalars come from the same libyaml emitter rules both share.
    """


_STR = "tag:yaml.org,2002:str"


def _represent_str(dumper: KubernetesDumper, value: str) -> yaml.ScalarNode:
    style = None
    if "\n" in value:
        style = "|"
    # Quoted unless both go-yaml v2 (kubectl, crossplane) and PyYAML read it plain as a string.
    elif not go_scalars.is_string(value) or _plain_tag(dumper, value) != _STR:
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
