"""RunFunctionRequest → plain Python data: the only stage that reads protobuf Structs."""

from __future__ import annotations

import collections
import functools
from collections.abc import Mapping
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2

from function.errors import InputError
from function.models import input as fn_input
from function.structs import View, plain, value_of

# The XR metadata the function reads; anything else there is never converted.
COMPOSITE_METADATA = ("name", "namespace", "labels")


def settings(req: fnv1.RunFunctionRequest) -> fn_input.Input:
    """Return the validated Input; the same Input bytes are parsed once per process.

    Raises:
        InputError: naming every unknown or invalid key.
    """
    return _settings(req.input.SerializeToString(deterministic=True))


@functools.lru_cache(maxsize=64)
def _settings(raw: bytes) -> fn_input.Input:
    # Frozen model, so sharing it between calls is safe. Errors are not cached.
    return fn_input.parse(plain(struct_pb2.Struct.FromString(raw)))


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
    req: fnv1.RunFunctionRequest, keys: list[str]
) -> dict[str, list[dict[str, Any]]] | None:
    """Return what Crossplane fetched for each requirement key.

    Crossplane 2.x answers in `required_resources`, 1.18-1.20 in `extra_resources`.
    A key that is absent means "not fetched yet"; present with no items, "missing".

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
        fetched[key] = [_environment_config(item.resource) for item in items]
    return fetched


# Flavors are shared by many actors and change rarely: convert each version once.
_FLAVOR_CACHE: collections.OrderedDict[tuple[str, str], dict[str, Any]] = collections.OrderedDict()
FLAVOR_CACHE_SIZE = 1024


def _environment_config(struct: struct_pb2.Struct) -> dict[str, Any]:
    """Convert an EnvironmentConfig, reusing the conversion of the same uid and resourceVersion.

    Kubernetes changes resourceVersion on every write, so a cached conversion is
    never stale. Objects without both (hand-written render inputs) are converted
    every time. Callers must not mutate the result.
    """
    metadata = struct.fields["metadata"].struct_value if "metadata" in struct.fields else None
    uid = metadata.fields["uid"].string_value if metadata and "uid" in metadata.fields else ""
    version = (
        metadata.fields["resourceVersion"].string_value
        if metadata and "resourceVersion" in metadata.fields
        else ""
    )
    if not uid or not version:
        return plain(struct)
    key = (uid, version)
    if (cached := _FLAVOR_CACHE.get(key)) is not None:
        _FLAVOR_CACHE.move_to_end(key)
        return cached
    converted = plain(struct)
    _FLAVOR_CACHE[key] = converted
    if len(_FLAVOR_CACHE) > FLAVOR_CACHE_SIZE:
        _FLAVOR_CACHE.popitem(last=False)
    return converted


def observed_resources(req: fnv1.RunFunctionRequest) -> dict[str, Mapping[str, Any]]:
    """Return a read-only view of each observed composed resource, by composition resource name."""
    return {name: View(item.resource) for name, item in req.observed.resources.items()}
