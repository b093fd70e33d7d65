"""What the API server checks beyond the schemas of the pod's types, written as schema.

Kubernetes' pod validation refuses values its OpenAPI schemas allow: a port past 65535,
an image pull policy it does not know, a file mode past 0777, a subPath that climbs out
of its volume, a field an env var cannot be read from, a Secret named as no object can
be. Each rule below is one of them, as the schema it adds to its type and the words a
refusal says instead of the validator's. kube_schemas applies them with the types.
"""

from __future__ import annotations

from typing import Any

from function.models import names

# A path never through `..`; inside a volume, relative as well.
_NO_BACKSTEPS = r"^(?!(.*/)?\.\.(/|$))"
_DESCENDING = r"^(?!/)(?!(.*/)?\.\.(/|$))"
_MODE = {"minimum": 0, "maximum": 0o777}
_MODE_SAID = "a file mode from 0 to 0777 (511 in decimal)"
_FILE_PATH = {"pattern": _DESCENDING + r"(?!\.\.)[\s\S]+$"}
_FILE_PATH_SAID = "a relative path inside the volume: not starting with '/' or '..', no '..'"
_OBJECT_NAME = {"pattern": names.OBJECT_NAME, "maxLength": names.MAX_OBJECT_NAME}
_OBJECT_NAME_SAID = (
    f"an object name: lowercase letters, digits, '-' and '.', at most {names.MAX_OBJECT_NAME} "
    "characters"
)
_KEY = {"pattern": r"^(?!\.\.)(?!\.$)[-._a-zA-Z0-9]+$", "maxLength": names.MAX_OBJECT_NAME}
_KEY_SAID = "a key: letters, digits, '-', '_' and '.', not starting with '..'"
_ENV_FIELDS = (
    r"^(metadata\.(name|namespace|uid)|metadata\.(labels|annotations)\['[^']+'\]"
    r"|spec\.(nodeName|host|serviceAccountName)|status\.(hostIPs?|podIPs?))$"
)
# A downward API volume's files: the pod's identity, its labels and annotations.
_VOLUME_FIELDS = (
    r"^metadata\.(name|namespace|uid|labels|annotations|(labels|annotations)\['[^']+'\])$"
)

# Kubernetes type → (the schema it adds, what each of its properties must be).
RULES: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    "ContainerPort": (
        {
            "properties": {
                "containerPort": {"minimum": 1, "maximum": 65535},
                "hostPort": {"minimum": 0, "maximum": 65535},
                "name": {"pattern": r"^(?!.*--)(?=.*[a-z])[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$"},
            }
        },
        {
            "containerPort": "a port from 1 to 65535",
            "hostPort": "0 or a port from 1 to 65535",
            "name": "at most 15 lowercase letters, digits and single '-', with a letter",
        },
    ),
    "Container": (
        {
            "properties": {
                "imagePullPolicy": {"enum": [None, "", "Always", "IfNotPresent", "Never"]}
            }
        },
        {"imagePullPolicy": "Always, IfNotPresent or Never (or empty: by the image tag)"},
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
    "KeyToPath": (
        {"properties": {"mode": _MODE, "path": _FILE_PATH}},
        {"mode": _MODE_SAID, "path": _FILE_PATH_SAID},
    ),
    "DownwardAPIVolumeFile": (
        {
            "properties": {
                "mode": _MODE,
                "path": _FILE_PATH,
                "fieldRef": {"properties": {"fieldPath": {"pattern": _VOLUME_FIELDS}}},
            }
        },
        {
            "mode": _MODE_SAID,
            "path": _FILE_PATH_SAID,
            "fieldPath": "metadata.name, metadata.namespace, metadata.uid, metadata.labels, "
            "metadata.annotations, or one label or annotation: metadata.labels['<key>']",
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
        {"properties": {"fieldRef": {"properties": {"fieldPath": {"pattern": _ENV_FIELDS}}}}},
        {
            "fieldPath": "metadata.name, metadata.namespace, metadata.uid, "
            "metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, "
            "spec.serviceAccountName, status.hostIP(s) or status.podIP(s)"
        },
    ),
    "ResourceFieldSelector": (
        {
            "properties": {
                "resource": {
                    "pattern": r"^(limits|requests)\.(cpu|memory|ephemeral-storage|hugepages-.+)$"
                }
            }
        },
        {"resource": "limits. or requests. and cpu, memory, ephemeral-storage or hugepages-<size>"},
    ),
    **{
        selector: (
            {"properties": {"name": _OBJECT_NAME, "key": _KEY}, "required": ["name"]},
            {"name": _OBJECT_NAME_SAID, "key": _KEY_SAID},
        )
        for selector in ("SecretKeySelector", "ConfigMapKeySelector")
    },
}


def said(schema_path: list[str | int], prefix: str) -> tuple[str, str] | None:
    """(the type, what the value must be) when a rule here refused it, else None.

    `schema_path` is where the validator found the error: a rule's lies under its
    type's second `allOf` entry (kube_schemas puts it there).
    """
    for at, step in enumerate(schema_path[:-2]):
        if step == "allOf" and schema_path[at + 1] == 1 and at > 0:
            kind = str(schema_path[at - 1]).removeprefix(prefix)
            owners = [i for i, s in enumerate(schema_path) if s == "properties"]
            if kind in RULES and owners and owners[-1] + 1 < len(schema_path):
                field = str(schema_path[owners[-1] + 1])
                if field in RULES[kind][1]:
                    return kind, RULES[kind][1][field]
    return None
