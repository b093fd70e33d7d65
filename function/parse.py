"""RunFunctionRequest → plain Python data: the only stage that reads protobuf Structs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2

from function.cache import ContentCache
from function.codec.structs import View, plain, value_of
from function.errors import InputError
from function.models import input as fn_input
from function.models import xr as xr_model
from function.models.xr import Composite
from function.resolve.flavors import Merged

# The XR metadata the function reads; anything else there is never converted.
COMPOSITE_METADATA = ("name", "namespace", "labels")


INPUT_CACHE_SIZE = 64
FLAVOR_CACHE_SIZE = 1024
MERGED_CACHE_SIZE = 256


@dataclass(frozen=True)
class Caches:
    """What is converted once and reused: Inputs, flavors and their merges, each keyed on content.

    Owned by the runner (one per served function); thread-safe.
    """

    # Few Inputs exist (one per Composition step), each a frozen model.
    inputs: ContentCache[fn_input.Input] = field(
        default_factory=lambda: ContentCache(INPUT_CACHE_SIZE)
    )
    # Flavors are shared by many actors and change rarely.
    flavors: ContentCache[dict[str, Any]] = field(
        default_factory=lambda: ContentCache(FLAVOR_CACHE_SIZE)
    )
    # Most actors list one of a few combinations of flavors.
    merges: ContentCache[Merged] = field(default_factory=lambda: ContentCache(MERGED_CACHE_SIZE))


def settings(req: fnv1.RunFunctionRequest, caches: Caches) -> fn_input.Input:
    """Return the validated Input; the same Input bytes are parsed once.

    Raises:
        InputError: naming every unknown or invalid key.
    """
    raw = req.input.SerializeToString(deterministic=True)
    return caches.inputs.get(raw, lambda: fn_input.parse(plain(struct_pb2.Struct.FromString(raw))))


def composite(req: fnv1.RunFunctionRequest) -> Composite:
    """Return the observed composite resource as the function reads it.

    Raises:
        InputError: when the request has none, or it is not an AsyncActor the function can read.
    """
    return xr_model.parse(observed_composite(req))


def observed_composite(req: fnv1.RunFunctionRequest) -> dict[str, Any]:
    """Return the observed composite resource.

    Raises:
        InputError: when the request carries no observed composite resource.
    """
    if not req.observed.composite.HasField("resource"):
        raise InputError("cannot read the observed composite resource: the request has none")
    fields = req.observed.composite.resource.fields
    # Its status is ours to write, never to read, and of its metadata (which may
    # carry managedFields and large annotations) only these keys are used.
    body = {key: value_of(fields[key]) for key in ("apiVersion", "kind", "spec") if key in fields}
    if "metadata" in fields and fields["metadata"].HasField("struct_value"):
        metadata = fields["metadata"].struct_value.fields
        body["metadata"] = {
            key: value_of(metadata[key]) for key in COMPOSITE_METADATA if key in metadata
        }
    return body


def required(
    req: fnv1.RunFunctionRequest, keys: list[str], caches: Caches
) -> dict[str, list[dict[str, Any]]] | None:
    """Return what Crossplane fetched for each requirement key.

    Crossplane 2.x answers in `required_resources`, 1.18-1.20 in `extra_resources`.
    A key that is absent means "not fetched yet"; present with no items, "missing".
    Each object is converted once per content (callers must not mutate it).

    Returns:
        key → fetched objects, or None while any key has not been fetched yet.
    """
    fetched: dict[str, list[dict[str, Any]]] = {}
    for key in keys:
        if key in req.required_resources:
            items = req.required_resources[key].items
        elif key in req.extra_resources:
            items = req.extra_resources[key].items
        else:
            return None
        fetched[key] = [_converted(item.resource, caches) for item in items]
    return fetched


def _converted(struct: struct_pb2.Struct, caches: Caches) -> dict[str, Any]:
    # Keyed on the object's bytes, not its uid and resourceVersion: an object
    # exported with `kubectl get -o yaml` and edited keeps both.
    return caches.flavors.get(struct.SerializeToString(deterministic=True), lambda: plain(struct))


def observed_resources(req: fnv1.RunFunctionRequest) -> dict[str, Mapping[str, Any]]:
    """Return a read-only view of each observed composed resource, by composition resource name."""
    return {name: View(item.resource) for name, item in req.observed.resources.items()}


def supports_required_resources(req: fnv1.RunFunctionRequest) -> bool:
    """Tell whether the caller advertises Crossplane 2's required resources (with namespaces)."""
    return fnv1.CAPABILITY_REQUIRED_RESOURCES in req.meta.capabilities
