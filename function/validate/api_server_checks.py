"""The API server's rules the typed spec can still trip, beyond its types' schemas (docs/flavors.md, "What gets refused").

Each row was found by the real API server in the test suite (tests/cluster), over
generated actors within the typed spec, not by reading its source: a row is the
schema it adds to its Kubernetes type and the words a refusal says instead of the
validator's. kube_schemas applies them with the types. A rule no generated actor
trips is left to the API server, whose refusal the status reports (docs/flavors.md, "What gets refused").
"""

from __future__ import annotations

from typing import get_args

from function.models import pod
from function.validate import api_server_scheduling, api_server_volumes
from function.validate.schema_forms import (
    ID,
    ID_SAID,
    OBJECT,
    OBJECT_SAID,
    PORT,
    Rules,
    enum,
    enum_or_empty,
    one_of,
    present,
    words,
)

# A path inside a volume: relative, never through `..`.
_DESCENDING = {"pattern": r"^(?!/)(?!(.*/)?\.\.(/|$))"}
_DESCENDING_SAID = "a relative path inside the volume, no '..'"


_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_WINDOWS_USER = r'^([^\\]*\\)?[^"/\\:;|=,+*?<>@\[\]]{1,104}$'
_SYSCTL = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"
# A liveness or startup probe succeeds once.
_ONCE = {"properties": {"successThreshold": {"maximum": 1}}}
_SCHEMES = ("HTTP", "HTTPS")
_PROFILE_TYPES = ("RuntimeDefault", "Unconfined", "Localhost")
# A profile's localhostProfile is its own only with the type Localhost.
_PROFILE = (
    {
        "properties": {"type": enum(*_PROFILE_TYPES)},
        "if": {
            "required": ["localhostProfile"],
            "properties": {"localhostProfile": {"type": "string"}},
        },
        "then": {"required": ["type"], "properties": {"type": {"const": "Localhost"}}},
    },
    {"type": words(*_PROFILE_TYPES), "": "of type Localhost when it sets localhostProfile"},
)
_NAMED_SOURCE = (
    {"required": ["name"], "properties": {"name": OBJECT}},
    {"name": OBJECT_SAID},
)


# Types that are another with rows of their own (an init container is a Container the API
# server holds to more), and how messages name them.
DERIVED = {"InitContainer": "Container"}
SHOWN = {"InitContainer": "Container"}
# What only an init container that runs beside the others (restartPolicy Always) may set:
# probes and hooks, an empty lifecycle too (one of a stop signal alone is taken: a cluster
# without that feature's gate drops it).
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_ONE_HOOK = {
    "type": "object",
    "anyOf": [present("postStart"), present("preStop"), {"maxProperties": 0}],
}

RULES: Rules = {
    **api_server_volumes.ROWS,
    **api_server_scheduling.ROWS,
    "InitContainer": (
        {
            "if": {
                "anyOf": [
                    *(present(probe) for probe in _PROBES),
                    {"required": ["lifecycle"], "properties": {"lifecycle": _ONE_HOOK}},
                ]
            },
            "then": {
                "required": ["restartPolicy"],
                "properties": {"restartPolicy": {"const": "Always"}},
            },
        },
        {
            "": "set with restartPolicy Always to set lifecycle or a probe (it then runs beside the others)"
        },
    ),
    "PodSecurityContext": (
        {
            "properties": {
                "runAsUser": ID,
                "runAsGroup": ID,
                "fsGroup": ID,
                "fsGroupChangePolicy": {"enum": [None, "Always", "OnRootMismatch"]},
                "seLinuxChangePolicy": enum("Recursive"),
                "supplementalGroupsPolicy": enum("Merge", "Strict"),
                "supplementalGroups": {"items": ID},
            }
        },
        {
            "runAsUser": ID_SAID,
            "runAsGroup": ID_SAID,
            "fsGroup": ID_SAID,
            "fsGroupChangePolicy": "Always or OnRootMismatch",
            "seLinuxChangePolicy": "Recursive (MountOption is behind a feature gate)",
            "supplementalGroupsPolicy": "Merge or Strict",
            "supplementalGroups": "ids from 0 to 2147483647",
        },
    ),
    "SecurityContext": (
        {
            "properties": {
                "runAsUser": ID,
                "runAsGroup": ID,
                "procMount": enum("Default", "Unmasked"),
            }
        },
        {
            "runAsUser": ID_SAID,
            "runAsGroup": ID_SAID,
            "procMount": "Default or Unmasked",
        },
    ),
    "ContainerPort": (
        {
            "properties": {
                "containerPort": PORT,
                "hostPort": {"minimum": 0, "maximum": 65535},
                "protocol": enum_or_empty("TCP", "UDP", "SCTP"),
                # An IANA service name: at most 15 lower case letters, digits and '-'.
                "name": {
                    "pattern": r"^((?=.{1,15}$)(?=.*[a-z])[a-z0-9]([a-z0-9]|-(?=[a-z0-9]))*)?$"
                },
            }
        },
        {
            "containerPort": "a port from 1 to 65535",
            "hostPort": "0 or a port from 1 to 65535",
            "protocol": "TCP, UDP or SCTP",
            "name": "a service name: at most 15 lower case letters, digits and single '-', "
            "with a letter (or empty)",
        },
    ),
    "Container": (
        {
            "properties": {
                # A user's container may leave it empty, as Kubernetes lets it.
                "imagePullPolicy": {"enum": [None, "", *get_args(pod.PullPolicy)]},
                "terminationMessagePolicy": enum_or_empty("File", "FallbackToLogsOnError"),
                "livenessProbe": _ONCE,
                "startupProbe": _ONCE,
                "restartPolicy": enum("Always", "Never", "OnFailure"),
            },
            "dependentRequired": {"restartPolicyRules": ["restartPolicy"]},
        },
        {
            "imagePullPolicy": "Always, IfNotPresent or Never (or empty: by the image tag)",
            "terminationMessagePolicy": "File or FallbackToLogsOnError",
            "successThreshold": "1 for a liveness or startup probe (0: the API server makes it 1)",
            "restartPolicy": "Always, Never or OnFailure",
            "": "set with a restartPolicy to set restartPolicyRules",
        },
    ),
    "VolumeMount": (
        {
            "properties": {
                "subPath": _DESCENDING,
                "subPathExpr": _DESCENDING,
                "mountPropagation": enum_or_empty("None", "HostToContainer", "Bidirectional"),
                "recursiveReadOnly": enum_or_empty("Disabled", "IfPossible", "Enabled"),
            }
        },
        {
            "subPath": _DESCENDING_SAID,
            "subPathExpr": _DESCENDING_SAID,
            "mountPropagation": "None, HostToContainer or Bidirectional",
            "recursiveReadOnly": "Disabled, IfPossible or Enabled",
        },
    ),
    "Probe": (
        one_of(*_HANDLERS),
        {"": "set with exactly one handler: exec, httpGet, tcpSocket or grpc"},
    ),
    "LifecycleHandler": (
        one_of("exec", "httpGet", "tcpSocket", "sleep"),
        {"": "set with exactly one handler: exec, httpGet, tcpSocket or sleep"},
    ),
    "ExecAction": (
        {"required": ["command"], "properties": {"command": {"minItems": 1}}},
        {"command": "a command (not empty)"},
    ),
    "HTTPGetAction": (
        {"properties": {"scheme": enum_or_empty(*_SCHEMES)}},
        {"scheme": words(*_SCHEMES)},
    ),
    "GRPCAction": ({"properties": {"port": PORT}}, {"port": "a port from 1 to 65535"}),
    "ConfigMapEnvSource": _NAMED_SOURCE,
    "SecretEnvSource": _NAMED_SOURCE,
    "SeccompProfile": _PROFILE,
    "AppArmorProfile": _PROFILE,
    "WindowsSecurityContextOptions": (
        {
            "properties": {
                "runAsUserName": {"minLength": 1, "pattern": _WINDOWS_USER},
                "gmsaCredentialSpec": {"minLength": 1},
                "gmsaCredentialSpecName": OBJECT,
                # A host process needs the host's network, which an actor's pod never has.
                "hostProcess": {"enum": [None, False]},
            }
        },
        {
            "runAsUserName": "a user name ([DOMAIN\\]User: the user at most 104 characters, "
            'none of "/\\:;|=,+*?<>@[])',
            "gmsaCredentialSpec": "a credential spec (not empty)",
            "gmsaCredentialSpecName": OBJECT_SAID,
            "hostProcess": "false: an actor's pod does not run on the host's network",
        },
    ),
    "Sysctl": (
        {"properties": {"name": {"maxLength": 253, "pattern": _SYSCTL}}},
        {"name": "a sysctl name: lower case words joined by '.' or '/'"},
    ),
    "ContainerResizePolicy": (
        {
            "properties": {
                "resourceName": {"enum": ["cpu", "memory"]},
                "restartPolicy": {"enum": ["NotRequired", "RestartContainer"]},
            }
        },
        {"resourceName": "cpu or memory", "restartPolicy": "NotRequired or RestartContainer"},
    ),
    "ContainerRestartRuleOnExitCodes": (
        {"properties": {"operator": {"enum": ["In", "NotIn"]}}},
        {"operator": "In or NotIn"},
    ),
    "EnvVarSource": (
        one_of("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"),
        {"": "set with exactly one source"},
    ),
    "EnvFromSource": (
        {
            "if": {"type": "object"},
            "then": {"oneOf": [present("configMapRef"), present("secretRef")]},
        },
        {"": "set with exactly one source: configMapRef or secretRef"},
    ),
}


# Required strings the API server takes empty (every other is filled: kube_schemas).
EMPTY_TAKEN = frozenset({("Sysctl", "value")})
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
            if schema_path[at - 1] == 0 and at >= 3 and schema_path[at - 2] == "allOf":
                # The base's own rows, inside a derived type's first allOf entry.
                derived = str(schema_path[at - 3]).removeprefix(prefix)
                kind = DERIVED.get(derived, kind)
            if kind in RULES:
                found = at, kind
    if found is None:
        return None
    at, kind = found
    rest = schema_path[at + 2 :]
    owners = [i for i, step in enumerate(rest[:-1]) if step == "properties"]
    field = str(rest[owners[-1] + 1]) if owners else ""
    return (kind, RULES[kind][1][field]) if field in RULES[kind][1] else None
