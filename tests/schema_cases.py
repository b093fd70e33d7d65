"""Actors that set each leaf the typed spec admits to the values at its edges, from the schemas.

The pod parts an actor or a flavor may set (sidecars, init containers, env, volumes, mounts,
security contexts, affinity, spread) land in the pod as Kubernetes types; the gate holds
each to its type's strict schema (validate/kube_schemas.py). These cases come from the
same schemas: for every leaf of every part (to a depth), each value at its type's edges
(0, negative, the largest int32 and one past it, empty strings, names that are no DNS
label, paths, over-long names, quantities at their edges, each enum value and one that is
none), every object left empty, and every object with two of its optional objects set (a
one-of with none or two members). The real API server judges them (tests/cluster).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from function.validate import kube_schemas

CORE = kube_schemas.CORE
QUANTITY = kube_schemas.QUANTITY
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
# How deep below a part the leaves are explored (Container.livenessProbe.httpGet.port is 3).
DEPTH = 4

# Each part an actor may set, where it sits in the spec, and a minimal valid one. The
# runtime's mount needs the volume it names.
VOLUME = {"name": "vol", "emptyDir": {}}
PARTS: dict[str, tuple[str, Any, dict[str, Any]]] = {
    "sidecars": ("Container", {"name": "extra", "image": "e:1"}, {}),
    "initContainers": ("Container", {"name": "setup", "image": "s:1"}, {}),
    "env": ("EnvVar", {"name": "X", "value": "v"}, {}),
    "envFrom": ("EnvFromSource", {"configMapRef": {"name": "c"}}, {}),
    # Its name only: each case sets its source (none set, the API server makes it emptyDir).
    "volumes": ("Volume", {"name": "vol"}, {}),
    "volumeMounts": ("VolumeMount", {"name": "vol", "mountPath": "/data"}, {"volumes": [VOLUME]}),
    "resources": ("ResourceRequirements", None, {}),
    "securityContext": ("SecurityContext", None, {}),
    "podSecurityContext": ("PodSecurityContext", None, {}),
    "affinity": ("Affinity", None, {}),
    "topologySpreadConstraints": (
        "TopologySpreadConstraint",
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
        {},
    ),
}
LISTS = {"sidecars", "initContainers", "env", "envFrom", "volumes", "volumeMounts"}
LISTS |= {"topologySpreadConstraints"}

INT32 = 2**31 - 1
STRINGS = ("", "UPPER", "a/b", "a.b", "-a", "x" * 64, "x" * 254)
# Not past int64 or 2**53: a Struct carries numbers as float64, and the API server reads a
# float far past int32 into an int32 field as some other number, without a word.
INTEGERS = (0, -1, 1, 2, INT32, INT32 + 1)
QUANTITIES = ("0", "-1", "0.5", "1m", "1e3", "1Gi", "2Ti")
INT_OR_STRINGS = (0, -1, 65536, "", "UPPER", "http", "x" * 16)
NAMED_EDGES = {QUANTITY: QUANTITIES, INT_OR_STRING: INT_OR_STRINGS}
TYPED_EDGES: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("integer", INTEGERS),
    ("number", (0, -1.5)),
    ("boolean", (True, False)),
    ("string", STRINGS),
)
# What a required field holds when a case needs its object and sets something else of it:
# a value the API server takes, so that each case is judged on the one leaf it sets.
REQUIRED: dict[str, Any] = {
    "port": 80,
    "containerPort": 8081,
    "operator": "Exists",
    "fieldPath": "metadata.name",
    "resource": "limits.cpu",
    "mountPath": "/mnt/x",
    "devicePath": "/dev/x",
    "topologyKey": "zone",
    "whenUnsatisfiable": "DoNotSchedule",
    "maxSkew": 1,
    "key": "k",
    "path": "p",
    "name": "n",
    "type": "RuntimeDefault",
    "resourceName": "cpu",
    "restartPolicy": "NotRequired",
    "volumeName": "vol",
    "values": ["a"],
    "command": ["true"],
    "iqn": "iqn.2001-04.com.example:disk",
    "targetPortal": "10.0.0.1:3260",
    "registry": "registry:7861",
    "volume": "v",
    "monitors": ["10.0.0.1:6789"],
    "gateway": "https://gateway",
    "system": "s",
    "targetWWNs": ["500a0981891b8dc5"],
    "lun": 0,
    "diskName": "d",
    "diskURI": "https://disk",
    "secretName": "s",
    "shareName": "s",
    "volumeID": "vol-1",
    "pdName": "pd",
    "pdID": "pd",
    "endpoints": "ep",
    "server": "10.0.0.1",
    "repository": "https://example.com/repo.git",
    "driver": "csi.example.com",
    "claimName": "c",
    "datasetName": "d",
    "signerName": "example.com/signer",
    "accessModes": ["ReadWriteOnce"],
    "action": "Restart",
}
# Some objects are valid only with one member of a group set: a probe or hook its handler.
TYPE_MINIMAL: dict[str, Any] = {
    "Probe": {"exec": {"command": ["true"]}},
    "LifecycleHandler": {"exec": {"command": ["true"]}},
}
# The same field of some types holds something else: an absolute path, a handler.
TYPE_REQUIRED: dict[tuple[str, str], Any] = {
    ("HostPathVolumeSource", "path"): "/data",
    ("NFSVolumeSource", "path"): "/exports",
    ("GlusterfsVolumeSource", "path"): "vol",
    ("ContainerResizePolicy", "restartPolicy"): "NotRequired",
    ("ContainerRestartRule", "action"): "Restart",
}


@dataclass(frozen=True)
class Case:
    """One actor: its spec's pod parts, and what the case set where (for messages)."""

    name: str
    spec: dict[str, Any]


def _resolved(schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A schema's referenced type (its name and definition), or ('', the schema)."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.removeprefix(kube_schemas.REF_PREFIX)
        return name, kube_schemas.definitions().get(name, {})
    return "", schema


def _types(schema: dict[str, Any]) -> set[str]:
    found = schema.get("type", [])
    return {found} if isinstance(found, str) else set(found)


def _edges(schema: dict[str, Any]) -> tuple[Any, ...]:
    """The values at the edges of a leaf's type."""
    name, schema = _resolved(schema)
    if name in NAMED_EDGES:
        return NAMED_EDGES[name]
    if enum := [v for v in schema.get("enum", []) if v is not None]:
        return (*enum, "Bogus")
    types = _types(schema)
    return next((values for kind, values in TYPED_EDGES if kind in types), ())


def _leaves(
    schema: dict[str, Any], path: tuple[str | int, ...], depth: int, seen: frozenset[str]
) -> Iterator[tuple[tuple[str | int, ...], tuple[Any, ...]]]:
    """Every (path, values) below a schema: a leaf's edges, an object empty or with two set."""
    name, schema = _resolved(schema)
    if name in seen or depth > DEPTH:
        return
    seen = seen | {name} if name else seen
    types = _types(schema)
    if "array" in types and isinstance(schema.get("items"), dict):
        items = schema["items"]
        if values := _edges(items):
            yield path, tuple([value] for value in values)
        yield from _leaves(items, (*path, 0), depth + 1, seen)
        return
    properties = schema.get("properties")
    if isinstance(properties, dict) and properties:
        objects = [key for key, sub in properties.items() if _is_object(sub)]
        if path:
            yield path, ({}, *([_two(schema, objects)] if len(objects) >= 2 else []))
        for key, sub in sorted(properties.items()):
            yield from _leaves(sub, (*path, key), depth + 1, seen)
        return
    if isinstance(schema.get("additionalProperties"), dict) and path:
        yield path, ({"UPPER/x": "v"}, {"a": ""}, {"x" * 64: "v"})
        return
    if values := _edges(schema):
        yield path, values


def _is_object(schema: dict[str, Any]) -> bool:
    _, resolved = _resolved(schema)
    return "object" in _types(resolved) and bool(resolved.get("properties"))


def _two(schema: dict[str, Any], objects: list[str]) -> dict[str, Any]:
    """The object with its first two object-typed members set, as minimal as they come."""
    return {key: _minimal(schema["properties"][key]) for key in sorted(objects)[:2]}


def _minimal(schema: dict[str, Any]) -> Any:
    """The least value of a schema: its required fields only, each its least value."""
    name, schema = _resolved(schema)
    kind = name.removeprefix(CORE)
    if kind in TYPE_MINIMAL:
        return copy.deepcopy(TYPE_MINIMAL[kind])
    types = _types(schema)
    if "array" in types:
        return []
    if "object" in types or schema.get("properties"):
        properties = schema.get("properties", {})
        return {
            key: TYPE_REQUIRED.get(
                (kind, key), REQUIRED.get(key, _minimal(properties.get(key, {})))
            )
            for key in schema.get("required", [])
        }
    if "integer" in types or "number" in types:
        return 1
    if "boolean" in types:
        return False
    return "a"


def _set(base: Any, schema: dict[str, Any], path: tuple[str | int, ...], value: Any) -> Any:
    """A copy of `base` with `value` at `path`, each object on the way made with what it requires."""
    if not path:
        return value
    _, schema = _resolved(schema)
    step, rest = path[0], path[1:]
    if isinstance(step, int):
        items = schema.get("items", {})
        return [_set(_minimal(items), items, rest, value)]
    held = copy.deepcopy(base) if isinstance(base, dict) else _minimal(schema)
    sub = schema.get("properties", {}).get(step, {})
    held[step] = _set(held.get(step), sub, rest, value)
    return held


def cases() -> list[Case]:
    """Every case, in a fixed order: a part's leaves, each value in turn, after its base."""
    found: list[Case] = []
    for part, (kind, base, beside) in PARTS.items():
        schema = {"$ref": f"{kube_schemas.REF_PREFIX}{CORE}{kind}"}
        start = base if base is not None else {}
        found.append(Case(f"{part}: as least", _spec(part, start, beside)))
        for path, values in _leaves(schema, (), 0, frozenset()):
            where = ".".join(str(step) for step in path)
            for index, value in enumerate(values):
                body = _set(start, schema, path, value)
                found.append(Case(f"{part}.{where} #{index}", _spec(part, body, beside)))
    return found


def _spec(part: str, body: Any, beside: dict[str, Any]) -> dict[str, Any]:
    return {part: [body] if part in LISTS else body, **beside}
