"""The parts of an actor that become Kubernetes objects, checked against Kubernetes' own schemas.

An actor's `resources`, env vars, tolerations, volumes, mounts and containers go into
its pod as they are. Each is checked against the strict schema of its Kubernetes type
(Kubernetes 1.37, as the `kubernetes-validate` distribution packages it): an unknown
field, a value of another type (`hostPath.path: 5`), an `env[].valueFrom` that is no
source. The platform's own parts of the pod are checked against the same schemas by the
tests, whole. Each type's validator is compiled (fastjsonschema) the first time it is
needed and kept.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections.abc import Iterator
from typing import Any

import fastjsonschema

from function.resolve.provenance import Provenance

SCHEMAS = ("kubernetes_validate", "kubernetes-json-schema/v1.37.0-local-strict/_definitions.json")
CORE = "io.k8s.api.core.v1."
# Where a Kubernetes type sits in the spec ("*": each item of a list) → its schema.
TYPES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("resources",), "ResourceRequirements"),
    (("env", "*"), "EnvVar"),
    (("tolerations", "*"), "Toleration"),
    (("volumes", "*"), "Volume"),
    (("volumeMounts", "*"), "VolumeMount"),
    (("initContainers", "*"), "Container"),
    (("sidecars", "*"), "Container"),
    (("sidecar", "resources"), "ResourceRequirements"),
    (("stateProxy", "*", "connector", "resources"), "ResourceRequirements"),
)


@functools.cache
def definitions() -> dict[str, Any]:
    """Kubernetes' type definitions, read once from the package that carries them."""
    package, name = SCHEMAS
    text = (importlib.resources.files(package) / name).read_text(encoding="utf-8")
    found: dict[str, Any] = json.loads(text)["$defs"]
    return found


@functools.cache
def validator(kind: str) -> Any:
    """The compiled validator of one core/v1 type (compiled once, when first needed)."""
    # The definitions are draft 2020-12; the keywords Kubernetes uses read the same in
    # draft 7, which fastjsonschema compiles.
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$defs": definitions(),
        "$ref": f"#/$defs/{CORE}{kind}",
    }
    return fastjsonschema.compile(schema)


def _found(
    data: Any, path: tuple[str, ...], loc: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Each value at a path of the spec (with `*` over a list's items), and its location."""
    if not path:
        yield loc, data
        return
    head, rest = path[0], path[1:]
    if head == "*":
        for index, item in enumerate(data if isinstance(data, list) else []):
            yield from _found(item, rest, (*loc, index))
    elif isinstance(data, dict) and head in data:
        yield from _found(data[head], rest, (*loc, head))


def check(origin: Provenance) -> None:
    """Refuse the first part of the spec its Kubernetes type's schema refuses.

    Raises:
        FlavorError: (or its SpecError form) naming the part, what is wrong within it,
            and where it came from.
    """
    for path, kind in TYPES:
        for loc, value in _found(origin.data, path):
            try:
                validator(kind)(value)
            except fastjsonschema.JsonSchemaValueException as exc:
                name = exc.name or "data"
                where = name.removeprefix("data").lstrip(".")
                message = str(exc.message).removeprefix(name).strip()
                raise origin.refuse(
                    loc, f"{where + ': ' if where else ''}{message} (as Kubernetes' {kind})"
                ) from None
