"""What the API server checks beyond the schemas of the pod's types, written as schema.

Kubernetes' pod validation refuses values its OpenAPI schemas allow: a port past 65535,
an image pull policy it does not know, a file mode past 0777, a subPath that climbs out
of its volume, a field an env var cannot be read from, a Secret named as no object can
be. Each rule below is one of them, as the schema it adds to its type and the words a
refusal says instead of the validator's; a container's probes and hooks have theirs in
probe_rules, taken in here. kube_schemas applies them with the types.
"""

from __future__ import annotations

from typing import Any

from function.models import names
from function.resolve import probe_rules

# A path never through `..`; inside a volume, relative as well.
_NO_BACKSTEPS = r"^(?!(.*/)?\.\.(/|$))"
_DESCENDING = r"^(?!/)(?!(.*/)?\.\.(/|$))"
_MODE = {"minimum": 0, "maximum": 0o777}
_MODE_SAID = "a file mode from 0 to 0777 (511 in decimal)"
_FILE_PATH = {"pattern": _DESCENDING + r"(?!\.\.)[\s\S]+$"}
_FILE_PATH_SAID = "a relative path inside the volume: not starting with '/' or '..', no '..'"
_OBJECT_NAME = {"pattern": names.OBJECT_NAME, "maxLength": names.MAX_OBJECT_NAME}
_OBJECT_NAME_SAID = names.OBJECT_NAME_WORDS
_KEY = {"pattern": names.CONFIG_KEY, "maxLength": names.MAX_OBJECT_NAME}
_KEY_SAID = names.CONFIG_KEY_WORDS
# One label or annotation, by a key the API server takes (a qualified name).
_ONE_LABEL = (
    rf"metadata\.labels\['{names.QUALIFIED_NAME}'\]"
    rf"|metadata\.annotations\['{names.ANNOTATION_KEY}'\]"
)
_ENV_FIELDS = (
    rf"^(metadata\.(name|namespace|uid)|{_ONE_LABEL}"
    r"|spec\.(nodeName|host|serviceAccountName)|status\.(hostIPs?|podIPs?))$"
)
# A downward API volume's files: the pod's identity, its labels and annotations.
_VOLUME_FIELDS = rf"^(metadata\.(name|namespace|uid|labels|annotations)|{_ONE_LABEL})$"

# The one API version a field of the pod is read by.
_V1 = {"enum": [None, "", "v1"]}
_V1_SAID = "v1 (or empty)"
# A divisor written as a JSON number reads as a plain decimal quantity (`1000` is `1k`);
# one written as text is checked by the validator's `cpu-divisor` or `size-divisor`
# format (kube_schemas), as the API server compares its canonical text.
CPU_DIVISOR_NUMBERS = (0, 0.001, 1)
SIZE_DIVISOR_NUMBERS = (0, 1, *(1000**power for power in range(1, 7)))


def _divisor(kind: str, numbers: tuple[float, ...]) -> dict[str, Any]:
    return {
        "anyOf": [
            {"type": "null"},
            {"enum": list(numbers)},
            {"type": "string", "format": f"{kind}-divisor"},
        ]
    }


# Kubernetes type → (the schema it adds, what each of its properties must be; what the
# object as a whole must be under "", after "must be").
RULES: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    **probe_rules.RULES,
    "ContainerPort": (
        {
            "properties": {
                "containerPort": probe_rules.PORT,
                "hostPort": {"minimum": 0, "maximum": 65535},
                "name": {"pattern": probe_rules.PORT_NAME},
            }
        },
        {
            "containerPort": "a port from 1 to 65535",
            "hostPort": "0 or a port from 1 to 65535",
            "name": probe_rules.PORT_NAME_SAID,
        },
    ),
    "Container": (
        {
            "properties": {
                "imagePullPolicy": {"enum": [None, "", "Always", "IfNotPresent", "Never"]},
                "livenessProbe": probe_rules.ONE_SUCCESS,
                "startupProbe": probe_rules.ONE_SUCCESS,
                "readinessProbe": {
                    "properties": {"terminationGracePeriodSeconds": {"type": "null"}}
                },
            }
        },
        {
            "imagePullPolicy": "Always, IfNotPresent or Never (or empty: by the image tag)",
            "successThreshold": "1 for a liveness or startup probe",
            "terminationGracePeriodSeconds": "unset on a readiness probe",
        },
    ),
    "EnvFromSource": (
        {
            "properties": {"prefix": {"pattern": r"^[ -<>-~]*$"}},
            **probe_rules.exactly_one("configMapRef", "secretRef"),
        },
        {
            "": "set with exactly one source: configMapRef or secretRef",
            "prefix": "printable ASCII other than '='",
        },
    ),
    "HostPathVolumeSource": (
        {
            "properties": {
                "path": {"pattern": _NO_BACKSTEPS},
                "type": {
                    "enum": [
                        None,
                        "",
                        "DirectoryOrCreate",
                        "Directory",
                        "FileOrCreate",
                        "File",
                        "Socket",
                        "CharDevice",
                        "BlockDevice",
                    ]
                },
            }
        },
        {
            "path": "a path without '..'",
            "type": "empty or one of DirectoryOrCreate, Directory, FileOrCreate, File, Socket, "
            "CharDevice, BlockDevice",
        },
    ),
    **{
        source: ({"properties": {"defaultMode": _MODE}}, {"defaultMode": _MODE_SAID})
        for source in (
            "SecretVolumeSource",
            "ConfigMapVolumeSource",
            "ProjectedVolumeSource",
            "DownwardAPIVolumeSource",
        )
    },
    "ServiceAccountTokenProjection": (
        {
            "properties": {
                "expirationSeconds": {"minimum": 600, "maximum": 2**32},
                "path": _FILE_PATH,
            }
        },
        {
            "expirationSeconds": "from 600 (ten minutes) to 4294967296 (2^32) seconds",
            "path": _FILE_PATH_SAID,
        },
    ),
    "KeyToPath": (
        {"properties": {"mode": _MODE, "path": _FILE_PATH}},
        {"mode": _MODE_SAID, "path": _FILE_PATH_SAID},
    ),
    "DownwardAPIVolumeFile": (
        {
            "properties": {
                "mode": _MODE,
                "path": _FILE_PATH,
                "fieldRef": {
                    "properties": {"fieldPath": {"pattern": _VOLUME_FIELDS}, "apiVersion": _V1}
                },
            }
        },
        {
            "mode": _MODE_SAID,
            "path": _FILE_PATH_SAID,
            "fieldPath": "metadata.name, metadata.namespace, metadata.uid, metadata.labels, "
            "metadata.annotations, or one label or annotation: metadata.labels['<key>'] or "
            "metadata.annotations['<key>'], <key> a label key (an annotation's in any case)",
            "apiVersion": _V1_SAID,
        },
    ),
    "VolumeMount": (
        {
            "properties": {
                "subPath": {"pattern": _DESCENDING},
                "subPathExpr": {"pattern": _DESCENDING},
            }
        },
        {
            "subPath": "a relative path inside the volume, no '..'",
            "subPathExpr": "a relative path inside the volume, no '..'",
        },
    ),
    "EnvVarSource": (
        {
            "properties": {
                "fieldRef": {
                    "properties": {"fieldPath": {"pattern": _ENV_FIELDS}, "apiVersion": _V1}
                }
            }
        },
        {
            "fieldPath": "metadata.name, metadata.namespace, metadata.uid, "
            "metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, "
            "spec.serviceAccountName, status.hostIP(s) or status.podIP(s); <key> a label key "
            "(an annotation's in any case)",
            "apiVersion": _V1_SAID,
        },
    ),
    "ResourceFieldSelector": (
        {
            "properties": {
                "resource": {
                    "pattern": r"^(limits|requests)\.(cpu|memory|ephemeral-storage|hugepages-.+)$"
                }
            },
            "allOf": [
                {
                    "if": {"properties": {"resource": {"pattern": r"\.cpu$"}}},
                    "then": {"properties": {"divisor": _divisor("cpu", CPU_DIVISOR_NUMBERS)}},
                },
                {
                    "if": {"properties": {"resource": {"pattern": r"\.(?!cpu$)"}}},
                    "then": {"properties": {"divisor": _divisor("size", SIZE_DIVISOR_NUMBERS)}},
                },
            ],
        },
        {
            "resource": "limits. or requests. and cpu, memory, ephemeral-storage or hugepages-<size>",
            "divisor": "1m or 1 for cpu; 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi or 1Ei "
            "for memory, storage and huge pages, as the API server reads it (1000 is 1k; 1e3 "
            "and 1024 are neither)",
        },
    ),
    **{
        source: (
            {"properties": {"name": _OBJECT_NAME}, "required": ["name"]},
            {"name": _OBJECT_NAME_SAID, "": "set with a name"},
        )
        for source in ("ConfigMapEnvSource", "SecretEnvSource")
    },
    **{
        selector: (
            {"properties": {"name": _OBJECT_NAME, "key": _KEY}, "required": ["name"]},
            {"name": _OBJECT_NAME_SAID, "key": _KEY_SAID},
        )
        for selector in ("SecretKeySelector", "ConfigMapKeySelector")
    },
}


# Fields the strict schemas require but the API server takes absent.
OPTIONAL = probe_rules.OPTIONAL


def said(schema_path: list[str | int], prefix: str) -> tuple[str, str] | None:
    """(the type, what the value must be) when a rule here refused it, else None.

    `schema_path` is where the validator found the error: a rule's lies under its
    type's second `allOf` entry (kube_schemas puts it there); the innermost such rule
    is the one that refused. Within it, the last property named is the field; none
    named, the rule was the object's own.
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
    if field in RULES[kind][1]:
        return kind, RULES[kind][1][field]
    return None
