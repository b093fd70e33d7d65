"""What a step asks for, answered from the files `render` was given: resources, schemas, credentials."""

from __future__ import annotations

import base64
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import json_format, struct_pb2

from function.cli.render.errors import RenderError
from function.cli.render.files import Document


def to_struct(body: dict[str, Any]) -> struct_pb2.Struct:
    """Convert a plain dict to a protobuf Struct."""
    struct = struct_pb2.Struct()
    struct.update(body)
    return struct


def matches(selector: fnv1.ResourceSelector, resource: Document) -> bool:
    """Match a supplied resource as Crossplane 2.3+ does.

    By name, a resource is found in the selector's namespace only (none: a
    cluster-scoped resource); by labels, in the selector's namespace, or in any
    when it names none.
    """
    if selector.api_version != resource.api_version or selector.kind != resource.kind:
        return False
    namespace = str(resource.metadata.get("namespace") or "")
    which = selector.WhichOneof("match")
    if which == "match_name":
        return selector.match_name == resource.name and selector.namespace == namespace
    if selector.namespace and selector.namespace != namespace:
        return False
    if which == "match_labels":
        labels = resource.metadata.get("labels") or {}
        return all(labels.get(k) == v for k, v in selector.match_labels.labels.items())
    return True  # No match: every resource of that kind.


def fetch(selector: fnv1.ResourceSelector, supplied: list[Document]) -> fnv1.Resources:
    """Answer one selector from the supplied resources, sorted by name."""
    found = fnv1.Resources()
    for resource in sorted(supplied, key=lambda r: r.name):
        if matches(selector, resource):
            found.items.add().resource.CopyFrom(to_struct(resource.body))
            if selector.WhichOneof("match") == "match_name":
                break
    return found


def fetch_schema(selector: fnv1.SchemaSelector, crds: list[Document]) -> fnv1.Schema:
    """Answer a schema requirement from the CRDs given with --required-schemas.

    An unknown kind gets an empty Schema, as nothing was found.
    """
    group, _, version = selector.api_version.rpartition("/")
    for crd in crds:
        spec = crd.body.get("spec") or {}
        if crd.kind != "CustomResourceDefinition" or spec.get("group") != group:
            continue
        if (spec.get("names") or {}).get("kind") != selector.kind:
            continue
        for candidate in spec.get("versions") or []:
            if candidate.get("name") == version:
                schema = (candidate.get("schema") or {}).get("openAPIV3Schema") or {}
                return fnv1.Schema(openapi_v3=to_struct(schema))
    return fnv1.Schema()


def bootstrap(step: dict[str, Any], supplied: list[Document]) -> dict[str, fnv1.Resources]:
    """A step's own `requirements.requiredResources`, fetched before its first call.

    Raises:
        RenderError: for a selector without a requirementName, apiVersion or kind.
    """
    found: dict[str, fnv1.Resources] = {}
    for item in (step.get("requirements") or {}).get("requiredResources") or []:
        name = str(item.get("requirementName") or "")
        if not name or not item.get("apiVersion") or not item.get("kind"):
            raise RenderError(
                "cannot fetch bootstrap required resources: each needs requirementName, "
                "apiVersion and kind"
            )
        selector = fnv1.ResourceSelector(
            api_version=str(item["apiVersion"]),
            kind=str(item["kind"]),
            namespace=str(item.get("namespace") or ""),
        )
        if item.get("name"):
            selector.match_name = str(item["name"])
        elif item.get("matchLabels") is not None:
            selector.match_labels.labels.update(
                {str(k): str(v) for k, v in item["matchLabels"].items()}
            )
        found[name] = fetch(selector, supplied)
    return found


def credentials(step: dict[str, Any], secrets: list[Document]) -> dict[str, fnv1.Credentials]:
    """A step's Secret credentials, from the Secrets given with --function-credentials.

    Raises:
        RenderError: naming a Secret the step needs that was not given.
    """
    found: dict[str, fnv1.Credentials] = {}
    for item in step.get("credentials") or []:
        if item.get("source") != "Secret":
            continue
        ref = item.get("secretRef") or {}
        name, namespace = str(ref.get("name") or ""), str(ref.get("namespace") or "")
        secret = next(
            (
                s
                for s in secrets
                if s.kind == "Secret"
                and s.name == name
                and str(s.metadata.get("namespace") or "") == namespace
            ),
            None,
        )
        if secret is None:
            raise RenderError(
                f'cannot get credentials from secret "{name}": secret "{name}" not found'
            )
        data = fnv1.CredentialData()
        for key, value in (secret.body.get("data") or {}).items():
            data.data[str(key)] = base64.b64decode(str(value))
        for key, value in (secret.body.get("stringData") or {}).items():
            data.data[str(key)] = str(value).encode()
        found[str(item.get("name") or "")] = fnv1.Credentials(credential_data=data)
    return found


def context_value(raw: str, key: str) -> struct_pb2.Value:
    """Parse one --context-values/--context-files value (JSON or YAML)."""
    import yaml  # noqa: PLC0415

    from function.cli.render.files import yaml_load  # noqa: PLC0415  # only with context values

    try:
        # Dates and times stay text, as Kubernetes' YAML-to-JSON keeps them.
        data = yaml_load(raw)
    except yaml.YAMLError as exc:
        raise RenderError(f"cannot unmarshal YAML/JSON for context key {key!r}: {exc}") from None
    value = struct_pb2.Value()
    json_format.ParseDict(data, value)
    return value
