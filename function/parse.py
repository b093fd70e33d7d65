"""RunFunctionRequest → plain Python data: the only stage that reads protobuf Structs.

`read` makes the one typed value every stage takes (`Request`); what many actors'
requests share (the Input and the flavors fetched) is read from it only behind the
resolve memo, whose key is a digest of those parts' bytes.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.cache import digest_of
from function.codec.structs import View, plain, readable, value_of
from function.errors import InputError
from function.models import input as fn_input
from function.models import observed
from function.models import xr as xr_model
from function.models.plain import MAP
from function.models.xr import Composite

# The XR metadata the function reads; anything else there is never converted.
COMPOSITE_METADATA = ("name", "namespace", "labels")


def settings(req: fnv1.RunFunctionRequest) -> fn_input.Input:
    """Return the validated Input.

    Raises:
        InputError: naming every unknown or invalid key.
    """
    return fn_input.parse(plain(req.input))


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


def composite_conditions(req: fnv1.RunFunctionRequest) -> dict[str, tuple[str, str]]:
    """The observed XR's conditions, type → (status, reason): what it said on the last call."""
    if not req.observed.composite.HasField("resource"):
        return {}
    status = View(req.observed.composite.resource).get("status")
    found = status.get("conditions") if isinstance(status, MAP) else None
    return {
        str(item.get("type")): (str(item.get("status")), str(item.get("reason", "")))
        for item in (found if isinstance(found, list) else [])
        if isinstance(item, MAP)
    }


@dataclass(frozen=True)
class Shared:
    """What many actors' requests carry alike: the step's Input and what Crossplane fetched.

    Read once per content by the resolve memo, and shared by every call that carries
    the same: nothing may write into it.
    """

    settings: fn_input.Input
    # Each flavor requirement key Crossplane answered → the objects fetched for it.
    fetched: dict[str, list[dict[str, Any]]]

    def answered(self, keys: list[str]) -> dict[str, list[dict[str, Any]]] | None:
        """What was fetched for each key, or None while any key has not been fetched yet.

        A key that is absent means "not fetched yet"; present with no items, "missing".
        """
        if any(key not in self.fetched for key in keys):
            return None
        return {key: self.fetched[key] for key in keys}


def shared(req: fnv1.RunFunctionRequest, keys: Collection[str]) -> Shared:
    """Read the Input and what was fetched under these requirement keys.

    Crossplane 2.x answers in `required_resources`, 1.18-1.20 in `extra_resources`.
    Only the keys that can name an actor's flavors are read: whatever else a step
    asked for is not the resolve memo's.

    Raises:
        InputError: naming every unknown or invalid key of the Input.
    """
    fetched = {
        key: [plain(item.resource) for item in answers[key].items]
        for answers in (req.extra_resources, req.required_resources)
        for key in keys
        if key in answers
    }
    return Shared(settings(req), fetched)


def shared_key(req: fnv1.RunFunctionRequest, keys: Collection[str]) -> bytes:
    """A digest of what `shared` reads: never the XR or its observed state."""
    parts = [req.input.SerializeToString(deterministic=True)]
    for answers in (req.extra_resources, req.required_resources):
        parts.append(b"answers")
        for key in sorted(k for k in keys if k in answers):
            parts += [key.encode(), answers[key].SerializeToString(deterministic=True)]
    return digest_of(parts)


def fetched(req: fnv1.RunFunctionRequest, key: str) -> list[Mapping[str, Any]] | None:
    """Read-only views of what Crossplane fetched under one requirement key (None: not yet).

    Views: a fetched Deployment is read for its labels, not converted whole.
    """
    for answers in (req.required_resources, req.extra_resources):
        if key in answers:
            return [View(item.resource) for item in answers[key].items]
    return None


def observed_resources(req: fnv1.RunFunctionRequest) -> dict[str, Mapping[str, Any]]:
    """Return each observed composed resource (read-only), by composition resource name."""
    return {name: readable(item.resource) for name, item in req.observed.resources.items()}


def supports_required_resources(req: fnv1.RunFunctionRequest) -> bool:
    """Tell whether the caller advertises Crossplane 2's required resources (with namespaces)."""
    return fnv1.CAPABILITY_REQUIRED_RESOURCES in req.meta.capabilities


@dataclass(frozen=True)
class Request:
    """One call's request, read once: the stages take this, never the protobuf message."""

    # The message itself: the response copies its tag, desired state and context.
    message: fnv1.RunFunctionRequest = field(repr=False)
    xr: Composite
    # Each observed composed resource (read-only), by composition resource name.
    observed: dict[str, Mapping[str, Any]]
    # Whether the caller's selectors honour a namespace (Crossplane 2's required resources).
    namespaced_selectors: bool

    def fetched(self, key: str) -> list[Mapping[str, Any]] | None:
        """What Crossplane fetched under one requirement key (None: not yet)."""
        return fetched(self.message, key)

    def shared(self, keys: Collection[str]) -> Shared:
        """The Input and the flavors fetched under these keys (read on a memo miss only)."""
        return shared(self.message, keys)

    def shared_key(self, keys: Collection[str]) -> bytes:
        """A digest of what `shared` reads, from its bytes."""
        return shared_key(self.message, keys)

    @functools.cached_property
    def conditions(self) -> dict[str, tuple[str, str]]:
        """The observed XR's conditions, type → (status, reason): what it said on the last call."""
        return composite_conditions(self.message)

    @functools.cached_property
    def last_rendered(self) -> str:
        """The digest of the Deployment the function rendered last, as the XR's status says."""
        if not self.message.observed.composite.HasField("resource"):
            return ""
        xr = View(self.message.observed.composite.resource)
        return observed.text(xr, "status", "infrastructure", "workload", "rendered") or ""

    @functools.cached_property
    def earlier_status(self) -> dict[str, Any]:
        """The XR status earlier steps of the pipeline desired ({} for none)."""
        fields = self.message.desired.composite.resource.fields
        earlier = value_of(fields["status"]) if "status" in fields else {}
        return earlier if isinstance(earlier, dict) else {}


def read(req: fnv1.RunFunctionRequest) -> Request:
    """Read what every call needs: the XR, what is observed, and the caller's capabilities.

    Raises:
        InputError: when the request has no XR, or not one the function can read.
    """
    return Request(req, composite(req), observed_resources(req), supports_required_resources(req))
