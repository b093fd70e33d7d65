"""The shapes `render` reads, checked as each file is loaded.

The API server would never hand Crossplane an object whose metadata is a list, nor
a Composition whose pipeline is a string; files can hold anything. Each object is
checked here once, so the rest of `render` meets only what a cluster would hold,
and a misshapen file gets one line naming it and the field.
"""

from __future__ import annotations

from typing import Any

from function.cli.render.errors import RenderError
from function.codec import kinds, nesting

# What protobuf carries (codec.nesting), below the request's own few levels.
MAX_DOCUMENT_NESTING = 30
NULL_MAPS = ("labels", "annotations")
METADATA_STRINGS = ("name", "namespace", "generateName", "uid", "resourceVersion")


class _Shape:
    """Checks of one object, each naming the field it found wrong."""

    def __init__(self, body: dict[str, Any], where: str) -> None:
        self.body = body
        self.where = where

    def fail(self, field: str, wanted: str, value: Any) -> RenderError:
        return RenderError(f"{self.where}: {field}: must be {wanted}, not {kinds.kind_of(value)}")

    def at(self, field: str) -> Any:
        value: Any = self.body
        for key in field.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        return value

    def optional(self, field: str, kind: type, wanted: str) -> Any:
        value = self.at(field)
        if value is not None and not isinstance(value, kind):
            raise self.fail(field, wanted, value)
        return value

    def required(self, field: str, kind: type, wanted: str) -> Any:
        value = self.at(field)
        if not isinstance(value, kind):
            raise self.fail(field, wanted, value)
        return value

    def string_map(self, field: str) -> None:
        for key, value in (self.optional(field, dict, "a map") or {}).items():
            if not isinstance(value, str):
                raise self.fail(f"{field}[{key}]", "a string", value)


def without_null_maps(body: dict[str, Any]) -> dict[str, Any]:
    """The object with a null metadata, labels or annotations left out, as the API server reads them."""
    if body.get("metadata", {}) is None:
        return {k: v for k, v in body.items() if k != "metadata"}
    metadata = body.get("metadata")
    if isinstance(metadata, dict) and any(
        metadata.get(key, {}) is None for key in ("labels", "annotations")
    ):
        kept = {k: v for k, v in metadata.items() if v is not None or k not in NULL_MAPS}
        return body | {"metadata": kept}
    return body


def check_object(body: dict[str, Any], where: str) -> None:
    """Check what every Kubernetes object carries: its type, metadata and nesting.

    Raises:
        RenderError: naming `where` and the field.
    """
    shape = _Shape(body, where)
    for field in ("apiVersion", "kind"):
        shape.required(field, str, "a string")
    shape.optional("metadata", dict, "a map")
    for field in METADATA_STRINGS:
        shape.optional(f"metadata.{field}", str, "a string")
    shape.string_map("metadata.labels")
    shape.string_map("metadata.annotations")
    for index, reference in enumerate(
        shape.optional("metadata.ownerReferences", list, "a list") or []
    ):
        if not isinstance(reference, dict):
            raise shape.fail(f"metadata.ownerReferences[{index}]", "a map", reference)
    found = nesting.too_deep(body, MAX_DOCUMENT_NESTING)
    if found is not None:
        dotted = "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in found)
        raise RenderError(
            f"{where}: {dotted.removeprefix('.')}: nests more than {MAX_DOCUMENT_NESTING} levels deep, "
            "more than protobuf carries to a function"
        )


def check_composite(body: dict[str, Any], where: str) -> None:
    """Check an XR: an object with a name, whose spec, when present, is a map.

    Raises:
        RenderError: naming `where` and the field.
    """
    shape = _Shape(body, where)
    shape.required("metadata.name", str, "a string")
    if "spec" in body:
        shape.required("spec", dict, "a map")
    shape.optional("spec.compositionSelector", dict, "a map")
    shape.string_map("spec.compositionSelector.matchLabels")


def check_composition(body: dict[str, Any], where: str) -> None:
    """Check a Composition's spec and each pipeline step, as far as `render` reads them.

    Raises:
        RenderError: naming `where` and the field.
    """
    shape = _Shape(body, where)
    shape.required("spec", dict, "a map")
    shape.optional("spec.compositeTypeRef", dict, "a map")
    steps = shape.optional("spec.pipeline", list, "a list") or []
    for index, step in enumerate(steps):
        field = f"spec.pipeline[{index}]"
        if not isinstance(step, dict):
            raise shape.fail(field, "a map", step)
        _check_step(_Shape(step, f"{where}: {field}"))


STEP_FIELDS: tuple[tuple[str, type, str], ...] = (
    ("step", str, "a string"),
    ("functionRef", dict, "a map"),
    ("functionRef.name", str, "a string"),
    ("input", dict, "a map"),
    ("credentials", list, "a list"),
    ("requirements", dict, "a map"),
    ("requirements.requiredResources", list, "a list"),
)


def _check_step(step: _Shape) -> None:
    for field, kind, wanted in STEP_FIELDS:
        step.optional(field, kind, wanted)
    for list_field in ("credentials", "requirements.requiredResources"):
        for index, item in enumerate(step.at(list_field) or []):
            if not isinstance(item, dict):
                raise step.fail(f"{list_field}[{index}]", "a map", item)
