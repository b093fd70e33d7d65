"""Structural OpenAPI v3 schemas for the CRDs and XRDs, from the models' JSON schemas.

The API server takes a subset of JSON schema (a *structural* schema): every node
has one type, nothing is a `$ref` or an `anyOf` of types, and no node may carry a
default a flavor could then never override. The models state every rule once; a
rule only Kubernetes can state (a CEL validation, a list type, unknown fields kept
for the function to refuse by name) is attached beside its field with `Field(
json_schema_extra=...)`, and its `x-kubernetes-*` keywords pass through here as
they are. A keyword this module does not know is an error, never dropped: a new
model rule must be said in the schema, or said here to be the function's alone.
"""

from __future__ import annotations

from typing import Any

from pydantic.config import JsonDict

KEEP_UNKNOWN_FIELDS: JsonDict = {"x-kubernetes-preserve-unknown-fields": True}
# A float64 holds every integer up to this one exactly.
_EXACT_IN_FLOAT = 2**53

# Copied as they are, in this order, after the description and type.
_VALUE_KEYWORDS = ("enum", "format", "minimum", "maximum", "minLength", "maxLength", "pattern")
_LIST_KEYWORDS = ("minItems", "maxItems")
# Left out on purpose. title: pydantic's, not the user's. default: the function applies
# the defaults as its lowest layer, under the flavors (a schema default would be filled
# in on every actor, and a flavor's value could never win). propertyNames: a structural
# schema cannot say it; the model checks the keys (a nodeSelector's label keys).
_LEFT_OUT = frozenset({"title", "default", "propertyNames"})
_KNOWN = frozenset(
    {"$defs", "description", "const", "type", "items", "properties", "required"}
    | {"additionalProperties", "patternProperties", *_VALUE_KEYWORDS, *_LIST_KEYWORDS, *_LEFT_OUT}
)


def cel(rule: str, message: str) -> JsonDict:
    """A CEL validation the API server applies to a field (its `json_schema_extra`)."""
    return {"x-kubernetes-validations": [{"rule": rule, "message": message}]}


def of(schema: dict[str, Any]) -> dict[str, Any]:
    """Turn a model's JSON schema (`model_json_schema(by_alias=True)`) into a structural one.

    Raises:
        ValueError: for a JSON schema keyword a structural schema has no word for.
    """
    return _node(schema, schema.get("$defs", {}))


def _resolved(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The node itself: a `$ref` or an optional (`X | None`) read through.

    Keywords beside a `$ref` or an `anyOf` are the field's own (its description, its
    Kubernetes-only rules) and win over the referenced model's (its docstring).
    """
    outer = dict(node)
    if ref := outer.pop("$ref", None):
        return {**_resolved(defs[ref.rsplit("/", 1)[-1]], defs), **outer}
    if variants := outer.pop("anyOf", None):
        # A field left unset is absent, never null: the API server's schema has no null.
        [only] = [v for v in variants if v.get("type") != "null"]
        return {**_resolved(only, defs), **outer}
    return outer


def _node(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """One schema node, and everything under it."""
    node = _resolved(node, defs)
    out: dict[str, Any] = {}
    if node.get("description"):
        out["description"] = node["description"]
    if "const" in node:
        node["enum"] = [node.pop("const")]
    out["type"] = node.get("type", "string" if "enum" in node else None)
    if out["type"] is None:
        raise ValueError(f"a schema without a type: {node}")
    out.update((key, node[key]) for key in _VALUE_KEYWORDS if key in node)
    for bound in ("minimum", "maximum"):
        if abs(out.get(bound, 0)) > _EXACT_IN_FLOAT:
            # The API server holds a bound as a float64: an int64's own bounds come back
            # as no integer, and it refuses every value held to them (measured against
            # kube-apiserver 1.36, with tolerationSeconds). Such a bound is the model's.
            del out[bound]
    if "items" in node:
        out["items"] = _node(node["items"], defs)
    out.update((key, node[key]) for key in _LIST_KEYWORDS if key in node)
    out.update(_object(node, defs))
    out.update((key, value) for key, value in node.items() if key.startswith("x-kubernetes-"))
    if unknown := [
        key for key in node if key not in _KNOWN and not key.startswith("x-kubernetes-")
    ]:
        raise ValueError(f"no structural schema keyword for {unknown} in {node}")
    return out


def _object(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """An object's keywords: its properties, or the schema of a map's values.

    A model refusing unknown keys (`additionalProperties: false`) needs no keyword: the
    API server prunes what its schema does not declare. One that keeps them (`dict[str,
    Any]`, a container's other fields) keeps them in the schema too.
    """
    out: dict[str, Any] = {}
    if "properties" in node:
        out["properties"] = {k: _node(v, defs) for k, v in node["properties"].items()}
    if node.get("required"):
        out["required"] = list(node["required"])
    extra = node.get("additionalProperties")
    if patterned := node.get("patternProperties"):
        # A map whose keys the model holds to a pattern (a nodeSelector's label keys): the
        # schema holds every value, the model the keys.
        [extra] = patterned.values()
    if isinstance(extra, dict):
        out["additionalProperties"] = _node(extra, defs)
    elif extra is True:
        out |= KEEP_UNKNOWN_FIELDS
    return out
