"""The API server's rules the typed spec can still trip, beyond its types' schemas (docs/flavors.md, "What gets refused").

Each row was found by the real API server in the test suite (tests/cluster), over
generated actors within the typed spec, not by reading its source: a row is the
schema it adds to its Kubernetes type and the words a refusal says instead of the
validator's. kube_schemas applies them with the types. A rule no generated actor
trips is left to the API server, whose refusal the status reports (docs/flavors.md, "What gets refused").
"""

from __future__ import annotations

from typing import Any, get_args

from function.models import pod

# Kubernetes type → (the schema it adds, what each of its properties must be; what the
# object as a whole must be under "", after "must be").
Rules = dict[str, tuple[dict[str, Any], dict[str, str]]]

PORT = {"minimum": 1, "maximum": 65535}
# A user or group id the API server takes.
_ID = {"minimum": 0, "maximum": 2**31 - 1}
_ID_SAID = "an id from 0 to 2147483647"
# A path inside a volume: relative, never through `..`.
_DESCENDING = {"pattern": r"^(?!/)(?!(.*/)?\.\.(/|$))"}
_DESCENDING_SAID = "a relative path inside the volume, no '..'"
_WEIGHT = ({"properties": {"weight": {"minimum": 1, "maximum": 100}}}, {"weight": "from 1 to 100"})


def _set(field: str) -> dict[str, Any]:
    return {"required": [field], "properties": {field: {"type": "object"}}}


RULES: Rules = {
    "TopologySpreadConstraint": (
        {
            "properties": {
                "maxSkew": {"minimum": 1},
                "minDomains": {"minimum": 1},
                "topologyKey": {"minLength": 1},
                "whenUnsatisfiable": {"enum": ["DoNotSchedule", "ScheduleAnyway"]},
            }
        },
        {
            "maxSkew": "greater than zero",
            "minDomains": "greater than zero",
            "topologyKey": "a label key (not empty)",
            "whenUnsatisfiable": "DoNotSchedule or ScheduleAnyway",
        },
    ),
    "NodeSelector": (
        {"properties": {"nodeSelectorTerms": {"minItems": 1}}},
        {"nodeSelectorTerms": "at least one node selector term"},
    ),
    "PreferredSchedulingTerm": _WEIGHT,
    "WeightedPodAffinityTerm": _WEIGHT,
    "PodAffinityTerm": (
        {"properties": {"topologyKey": {"minLength": 1}}},
        {"topologyKey": "a label key (not empty)"},
    ),
    "PodSecurityContext": (
        {
            "properties": {
                "runAsUser": _ID,
                "runAsGroup": _ID,
                "fsGroup": _ID,
                "fsGroupChangePolicy": {"enum": [None, "Always", "OnRootMismatch"]},
            }
        },
        {
            "runAsUser": _ID_SAID,
            "runAsGroup": _ID_SAID,
            "fsGroup": _ID_SAID,
            "fsGroupChangePolicy": "Always or OnRootMismatch",
        },
    ),
    "SecurityContext": (
        {"properties": {"runAsUser": _ID, "runAsGroup": _ID}},
        {"runAsUser": _ID_SAID, "runAsGroup": _ID_SAID},
    ),
    "ContainerPort": (
        {"properties": {"containerPort": PORT, "hostPort": {"minimum": 0, "maximum": 65535}}},
        {"containerPort": "a port from 1 to 65535", "hostPort": "0 or a port from 1 to 65535"},
    ),
    "Container": (
        {
            "properties": {
                # A user's container may leave it empty, as Kubernetes lets it.
                "imagePullPolicy": {"enum": [None, "", *get_args(pod.PullPolicy)]}
            }
        },
        {"imagePullPolicy": "Always, IfNotPresent or Never (or empty: by the image tag)"},
    ),
    "VolumeMount": (
        {"properties": {"subPath": _DESCENDING, "subPathExpr": _DESCENDING}},
        {"subPath": _DESCENDING_SAID, "subPathExpr": _DESCENDING_SAID},
    ),
    "EnvFromSource": (
        {"if": {"type": "object"}, "then": {"oneOf": [_set("configMapRef"), _set("secretRef")]}},
        {"": "set with exactly one source: configMapRef or secretRef"},
    ),
}


# Fields the strict schemas require but the API server takes absent.
OPTIONAL: dict[str, tuple[str, ...]] = {"SleepAction": ("seconds",), "HTTPHeader": ("value",)}


def row_that_refused(schema_path: list[str | int], prefix: str) -> tuple[str, str] | None:
    """(the type, what the value must be) when a row here refused it, else None.

    `schema_path` is where the validator found the error: a row's lies under its
    type's second `allOf` entry (kube_schemas puts it there); the innermost such row
    is the one that refused. Within it, the last property named is the field; none
    named, the row was the object's own.
    """
    found = None
    for at, step in enumerate(schema_path[:-1]):
        if step == "allOf" and schema_path[at + 1] == 1 and at > 0:
            kind = str(schema_path[at - 1]).removeprefix(prefix)
            if kind in RULES:
                found = at, kind
    if found is None:
        return None
    at, kind = found
    rest = schema_path[at + 2 :]
    owners = [i for i, step in enumerate(rest[:-1]) if step == "properties"]
    field = str(rest[owners[-1] + 1]) if owners else ""
    return (kind, RULES[kind][1][field]) if field in RULES[kind][1] else None
