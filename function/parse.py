"""RunFunctionRequest → plain Python data: the only stage that reads protobuf Structs."""

from __future__ import annotations

from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2

from function.errors import InputError


def plain(struct: struct_pb2.Struct) -> dict[str, Any]:
    """Convert a Struct to a dict, turning integral numbers back into ints.

    protobuf Structs store every number as a double; Kubernetes fields such as
    `replicas` must come out as integers, so `3.0` becomes `3` here, once.
    """
    return {key: _value(value) for key, value in struct.fields.items()}


def _value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return {key: _value(v) for key, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_value(v) for v in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        return int(number) if number.is_integer() else number
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    return None


def step_input(req: fnv1.RunFunctionRequest) -> dict[str, Any]:
    """Return the step's input block, or an empty dict when the step has none."""
    if not req.HasField("input"):
        return {}
    return plain(req.input)


def observed_composite(req: fnv1.RunFunctionRequest) -> dict[str, Any]:
    """Return the observed composite resource.

    Raises:
        InputError: when the request carries no observed composite resource.
    """
    if not req.observed.composite.HasField("resource"):
        raise InputError("cannot read the observed composite resource: the request has none")
    return plain(req.observed.composite.resource)


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
        fetched[key] = [plain(item.resource) for item in items]
    return fetched


def observed_resources(req: fnv1.RunFunctionRequest) -> dict[str, dict[str, Any]]:
    """Return each observed composed resource by its composition resource name."""
    return {name: plain(item.resource) for name, item in req.observed.resources.items()}
