"""What one `render` reads: the XR, its Composition and Functions, and what answers them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2

from function.cli.render import defaults, files, release, supply
from function.cli.render.errors import RenderError


def _key_values(pairs: tuple[str, ...], flag: str) -> list[tuple[str, str]]:
    """`key=value` pairs separated by `;`, as crossplane render's map flags take them.

    Commas stay inside values, so `k={"a":1,"b":2}` is one pair.
    """
    out = []
    for group in pairs:
        for pair in group.split(";"):
            if not pair:
                continue
            key, sep, value = pair.partition("=")
            if not sep or not key:
                raise RenderError(f"{flag}: want key=value, got {pair!r}")
            out.append((key, value))
    return out


def _context(context_files: tuple[str, ...], context_values: tuple[str, ...]) -> struct_pb2.Struct:
    context = struct_pb2.Struct()
    for key, path in _key_values(context_files, "--context-files"):
        try:
            raw = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise RenderError(f"cannot read context value for key {key!r}: {exc}") from None
        context.fields[key].CopyFrom(supply.context_value(raw, key))
    # Values win over files, as in crossplane render.
    for key, raw in _key_values(context_values, "--context-values"):
        context.fields[key].CopyFrom(supply.context_value(raw, key))
    return context


def _annotated(function: files.Document, annotations: list[tuple[str, str]]) -> files.Document:
    """A Function with --function-annotations set on it (they win over its own)."""
    if not annotations:
        return function
    body = dict(function.body)
    metadata = dict(body.get("metadata") or {})
    metadata["annotations"] = dict(metadata.get("annotations") or {}) | dict(annotations)
    body["metadata"] = metadata
    return files.Document(function.source, body)


def observed_state(xr: dict[str, Any], observed: list[files.Document]) -> fnv1.State:
    """The observed state a render starts from: the XR and its composed resources by name."""
    state = fnv1.State()
    state.composite.resource.CopyFrom(supply.to_struct(xr))
    for resource in observed:
        name = files.resource_name(resource)
        state.resources[name].resource.CopyFrom(supply.to_struct(resource.body))
    return state


def check_composition(xr: files.Document, composition: files.Document) -> None:
    """The checks crossplane render makes before it runs anything.

    Raises:
        RenderError: the Composition is not for this XR, or not the one it selects.
    """
    spec = composition.body.get("spec") or {}
    type_ref = spec.get("compositeTypeRef") or {}
    if type_ref.get("kind") != xr.kind:
        raise RenderError(
            f"composition's compositeTypeRef.kind ({type_ref.get('kind')}) does not match "
            f"XR's kind ({xr.kind})"
        )
    if type_ref.get("apiVersion") != xr.api_version:
        raise RenderError(
            f"composition's compositeTypeRef.apiVersion ({type_ref.get('apiVersion')}) does "
            f"not match XR's apiVersion ({xr.api_version})"
        )
    selector = ((xr.body.get("spec") or {}).get("compositionSelector") or {}).get("matchLabels")
    comp_labels = composition.metadata.get("labels") or {}
    for key, value in (selector or {}).items():
        if key not in comp_labels:
            raise RenderError(f'composition "{composition.name}" is missing required label "{key}"')
        if comp_labels[key] != value:
            raise RenderError(
                f'composition "{composition.name}" has incorrect value for label "{key}": '
                f'want "{value}", got "{comp_labels[key]}"'
            )


@dataclass(frozen=True)
class RenderInputs:
    """What one render reads: the XR, its Composition and Functions, and what answers them."""

    xr: files.Document
    composition: files.Document
    functions: list[files.Document]
    # Observed composed resources.
    observed: list[files.Document] = field(default_factory=list)
    # What answers the functions' requirements.
    supplied: list[files.Document] = field(default_factory=list)
    context: struct_pb2.Struct = field(default_factory=struct_pb2.Struct)
    # Seconds the render may take (0: no deadline, as Go's 0).
    timeout: float = 60.0
    # What answers a step's bootstrap requirements (--required-resources alone);
    # None: `supplied`.
    required: list[files.Document] | None = None
    secrets: list[files.Document] = field(default_factory=list)
    crds: list[files.Document] = field(default_factory=list)
    xrd: files.Document | None = None
    # The Crossplane release whose render the output matches.
    follow: release.Release = release.CURRENT


def read(
    composite_resource: str,
    composition_file: str,
    functions_file: str,
    *,
    observed: str | None,
    required: tuple[str, ...],
    extra: tuple[str, ...],
    context: tuple[tuple[str, ...], tuple[str, ...]],
    xrd_path: str | None,
    timeout: float,
    function_annotations: tuple[str, ...],
    schemas_path: str | None,
    credentials_path: str | None,
    crossplane_version: str | None,
) -> RenderInputs:
    """Read every file `render` names into one RenderInputs; RenderError names a bad one."""
    xr = files.load_composite(composite_resource)
    composition = files.load_composition(composition_file)
    functions = [
        _annotated(function, _key_values(function_annotations, "--function-annotations"))
        for function in files.load_functions(functions_file)
    ]
    follow = release.parse(crossplane_version)
    xrd = files.load_one(xrd_path, "XRD") if xrd_path else None
    if xrd is not None:
        try:
            defaults.check_fits(xrd, xr)
            schema = defaults.schema_for(xrd, xr.api_version)
        except RenderError as exc:
            raise RenderError(f'cannot default values for XR "{xr.name}": {exc}') from None
        xr = files.Document(xr.source, defaults.apply(schema, xr.body))
    observed_docs = files.load_observed(observed) if observed else []
    required_docs = [doc for path in required for doc in files.load(path)]
    supplied = [doc for path in extra for doc in files.load(path)] + required_docs
    state = _context(*context)
    return RenderInputs(
        xr,
        composition,
        functions,
        observed_docs,
        supplied,
        state,
        timeout=timeout,
        required=required_docs,
        secrets=files.load(credentials_path) if credentials_path else [],
        crds=files.load(schemas_path) if schemas_path else [],
        xrd=xrd,
        follow=follow,
    )
