"""The parts of an actor that go into its pod as they are, held to Kubernetes' own schemas.

An actor's `resources`, env vars, volumes, mounts and containers are free-form in the
spec model and land in the pod unchanged, so each is checked against the strict
schema of its Kubernetes type (Kubernetes 1.36, as the `kubernetes-validate`
distribution packages them): an unknown field, a value of another type
(`hostPath.path: 5`), an `env[].valueFrom` that is no source. 1.36, not the newest the
package holds: a field only 1.37 declares reaches a 1.36 API server as "field not
declared in schema", which fails Crossplane's server-side apply. The platform's own
parts of the pod are checked against the same schemas by the tests, whole.

Only the definitions those types reach are read from the package's file (it holds
every Kubernetes type), and compiled once, on first use, by a compiled validator.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs

from function.codec.kinds import kind_of
from function.models import quantity
from function.resolve.provenance import Provenance
from function.validate import api_server_checks

SCHEMAS = ("kubernetes_validate", "kubernetes-json-schema/v1.36.0-local-strict/_definitions.json")
CORE = "io.k8s.api.core.v1."
# A quantity's schema says only "a string or a number"; the API server parses it.
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
QUANTITY_SCHEMA = {"type": ["string", "number", "null"], "format": "quantity"}
QUANTITY_FORM = "a number with an optional suffix, such as 500m, 2Gi or 1e3"
REF_PREFIX = "#/$defs/"
INTEGER_FORMATS = {"int32": 32, "int64": 64}
# The one type whose list takes a null item: a projected volume's source with nothing set.
NULL_ITEMS_TAKEN = (f"{REF_PREFIX}{CORE}VolumeProjection",)
NULL_ITEM_SAID = "must be a map: Kubernetes reads a null item as one with nothing set"
SPACE = re.compile(r"\s*")
# What a refusal says in place of the value it refuses: the actor's values (an env
# var's, say) are never repeated in messages, which become events.
MASK = "the value"
# Where a Kubernetes type sits in the spec ("*": each item of a list) → its type.
TYPES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("resources",), "ResourceRequirements"),
    (("env", "*"), "EnvVar"),
    (("volumes", "*"), "Volume"),
    (("volumeMounts", "*"), "VolumeMount"),
    (("initContainers", "*"), "InitContainer"),
    (("sidecars", "*"), "Container"),
    (("sidecar", "resources"), "ResourceRequirements"),
    (("stateProxy", "*", "connector", "resources"), "ResourceRequirements"),
    (("securityContext",), "SecurityContext"),
    (("envFrom", "*"), "EnvFromSource"),
    (("podSecurityContext",), "PodSecurityContext"),
    (("affinity",), "Affinity"),
    (("topologySpreadConstraints", "*"), "TopologySpreadConstraint"),
)


@functools.cache
def definitions() -> dict[str, Any]:
    """The definitions the checked types reach, without their descriptions.

    Each is decoded from where its name stands in the file, so the thousands of
    definitions nothing here reaches are never turned into Python objects.
    """
    package, name = SCHEMAS
    # Found, not imported: importing the package would bring in its own validator.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LookupError(f"the {package} package is not installed")
    text = (Path(spec.submodule_search_locations[0]) / name).read_text(encoding="utf-8")
    decoder = json.JSONDecoder()
    found: dict[str, Any] = {}
    todo = sorted({CORE + api_server_checks.DERIVED.get(kind, kind) for _, kind in TYPES})
    while todo:
        wanted = todo.pop()
        if wanted in found:
            continue
        key = json.dumps(wanted) + ":"
        at = text.find(key)
        if at < 0:
            raise LookupError(f"{wanted} is not defined in {package}'s {name}")
        start = at + len(key)
        if space := SPACE.match(text, start):  # it always matches, if only nothing
            start = space.end()
        definition, _ = decoder.raw_decode(text, start)
        found[wanted] = _bare(definition, todo)
    return found


def _bare(schema: Any, refs: list[str]) -> Any:
    """A schema without descriptions, its integer formats as bounds; its references into `refs`.

    `format: int32` is only an annotation to a JSON Schema validator, but the API
    server refuses a number past it (`containerPort: 2**40`).
    """
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF_PREFIX):
            refs.append(ref.removeprefix(REF_PREFIX))
        bare = {key: _bare(value, refs) for key, value in schema.items() if key != "description"}
        if (bits := INTEGER_FORMATS.get(str(schema.get("format")))) is not None:
            bare.setdefault("minimum", -(2 ** (bits - 1)))
            bare.setdefault("maximum", 2 ** (bits - 1) - 1)
        return bare
    if isinstance(schema, list):
        return [_bare(item, refs) for item in schema]
    return schema


def _items_are_maps(schema: Any) -> Any:
    """A schema whose lists of a type hold maps, never null.

    Every type is nullable, as Go reads a null field as an absent one; but a null list
    item is the item's type with nothing set, which the API server's validation
    refuses (a port without its number). A projected volume's source is the exception.
    """
    if isinstance(schema, list):
        return [_items_are_maps(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    held = {key: _items_are_maps(value) for key, value in schema.items()}
    items = held.get("items")
    if isinstance(items, dict) and items.get("$ref") not in (None, *NULL_ITEMS_TAKEN):
        held["items"] = {**items, "type": "object"}
    return held


def _required_strings_filled(kind: str, schema: Any) -> Any:
    """A schema whose required strings are not empty: the API server reads "" as absent.

    But for those it takes empty (api_server_checks.EMPTY_TAKEN).
    """
    required = schema.get("required") if isinstance(schema, dict) else None
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not required or not isinstance(properties, dict):
        return schema
    filled = dict(properties)
    for name in required:
        found = filled.get(name)
        if not isinstance(found, dict) or (kind, name) in api_server_checks.EMPTY_TAKEN:
            continue
        types = found.get("type")
        if types == "string" or (isinstance(types, list) and "string" in types):
            filled[name] = {**found, "minLength": 1}
    return {**schema, "properties": filled}


def parts_schema() -> dict[str, Any]:
    """One schema for the spec: each part's Kubernetes type where `TYPES` places it.

    Nothing else of the spec is constrained here (the spec model checked it), so the
    whole spec is checked in one call.
    """
    root: dict[str, Any] = {}
    for path, kind in TYPES:
        node = root
        for step in path:
            node = (
                node.setdefault("items", {})
                if step == "*"
                else (node.setdefault("properties", {}).setdefault(step, {}))
            )
        node["$ref"] = f"{REF_PREFIX}{CORE}{kind}"
    return root


@functools.cache
def validator() -> jsonschema_rs.Draft202012Validator:
    """The compiled validator of every part (compiled once, when first needed).

    Quantities are held to what the API server can parse (`1Gb` is no quantity), and
    each type to what the API server checks beyond its schema (api_server_checks).
    """
    defined = {
        kind: _required_strings_filled(kind.removeprefix(CORE), _items_are_maps(schema))
        for kind, schema in definitions().items()
    }
    defined[QUANTITY] = QUANTITY_SCHEMA
    for kind, absent in api_server_checks.OPTIONAL.items():
        schema = defined[CORE + kind]
        required = [name for name in schema.get("required", []) if name not in absent]
        defined[CORE + kind] = {**schema, "required": required}
    for kind, (rule, _) in api_server_checks.RULES.items():
        if kind not in api_server_checks.DERIVED:
            name = kind if "." in kind else CORE + kind
            defined[name] = {"allOf": [defined[name], rule]}
    # A derived type is its base's schema (rows included) beside rows of its own.
    for kind, base in api_server_checks.DERIVED.items():
        defined[CORE + kind] = {"allOf": [defined[CORE + base], api_server_checks.RULES[kind][0]]}
    return jsonschema_rs.Draft202012Validator(
        {"$defs": defined, **parts_schema()},
        mask=MASK,
        formats={"quantity": lambda text: quantity.parse(text) is not None},
        validate_formats=True,
    )


def _part(
    where: list[str | int],
) -> tuple[tuple[str | int, ...], tuple[str | int, ...], str]:
    """Split where a value is into the part it is in, where in that part, and the part's type."""
    for path, kind in TYPES:
        if len(where) >= len(path) and all(
            isinstance(at, int) if step == "*" else at == step
            for step, at in zip(path, where, strict=False)
        ):
            return tuple(where[: len(path)]), tuple(where[len(path) :]), kind
    return tuple(where), (), "pod"


def check(origin: Provenance) -> None:
    """Refuse a spec one of whose parts its Kubernetes type's schema refuses.

    Raises:
        FlavorError: (or its SpecError form) naming the part, what is wrong within it,
            and where it came from.
    """
    parts = validator()
    if parts.is_valid(origin.data):
        return
    error = next(iter(parts.iter_errors(origin.data)))
    loc, inner, kind = _part(list(error.instance_path))
    shown = "".join(f"[{at}]" if isinstance(at, int) else f".{at}" for at in inner).lstrip(".")
    # The layer blamed is the one that set the wrong value: a key that should not be
    # there, or the value of another type; `resources` may come from several.
    culprit = [*inner]
    if isinstance(error.kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties):
        culprit.append(error.kind.unexpected[0])
    kind = api_server_checks.SHOWN.get(kind, kind)
    message = f"{error.message} (as Kubernetes' {kind})"
    if error.instance is None and list(error.schema_path)[-2:] == ["items", "type"]:
        message = NULL_ITEM_SAID
    elif (rule := api_server_checks.row_that_refused(list(error.schema_path), CORE)) is not None:
        message = (
            f"must be {rule[1]} (as Kubernetes' {api_server_checks.SHOWN.get(rule[0], rule[0])})"
        )
    elif QUANTITY in error.schema_path:
        wrong = "not" if isinstance(error.instance, str) else f"{kind_of(error.instance)} is not"
        message = f"{wrong} a quantity: {QUANTITY_FORM}"
    raise origin.refuse(loc, f"{shown + ': ' if shown else ''}{message}", within=culprit)
