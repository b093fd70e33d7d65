"""RunFunctionRequest → plain Python data: the only stage that reads protobuf Structs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.errors import InputError
from function.structs import View, plain, value_of


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
    fields = req.observed.composite.resource.fields
    # Its status is ours to write, never to read: skip converting it.
    return {
        key: value_of(fields[key])
        for key in ("apiVersion", "kind", "metadata", "spec")
        if key in fields
    }


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


def observed_resources(req: fnv1.RunFunctionRequest) -> dict[str, Mapping[str, Any]]:
    """Return a read-only view of each observed composed resource, by composition resource name."""
    return {name: View(item.resource) for name, item in req.observed.resources.items()}
