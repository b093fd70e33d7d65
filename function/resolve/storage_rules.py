"""What the API server checks of storage a volume attaches beyond its schema, written as schema.

A claim made for the pod (`ephemeral`) must say what it asks for: its access modes and
storage, in a template whose metadata holds only labels and annotations. The older
network and cloud disks (iSCSI, Fibre Channel, GCE and AWS disks, Ceph, Gluster, Azure,
Cinder, vSphere and the rest) must name what they attach, not only carry its key. Each
rule is one of Kubernetes' volume validations (validate<Source>VolumeSource,
ValidatePersistentVolumeClaimSpec), as the schema it adds to its type and the words a
refusal says; kube_rules takes them in with the rest.
"""

from __future__ import annotations

from typing import Any

from function.models import names
from function.resolve import rule_parts as parts

ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
# A string or a list the API server requires: present, and neither empty.
_FILLED = {"minLength": 1, "minItems": 1}
_FILLED_SAID = "set (not empty)"
# What each older source must name (validate<Source>VolumeSource: Required when empty).
_MUST_NAME: dict[str, tuple[str, ...]] = {
    "ISCSIVolumeSource": ("targetPortal", "iqn"),
    "GCEPersistentDiskVolumeSource": ("pdName",),
    "AWSElasticBlockStoreVolumeSource": ("volumeID",),
    "RBDVolumeSource": ("monitors", "image"),
    "CephFSVolumeSource": ("monitors",),
    "GlusterfsVolumeSource": ("endpoints", "path"),
    "QuobyteVolumeSource": ("registry", "volume"),
    "FlexVolumeSource": ("driver",),
    "AzureDiskVolumeSource": ("diskName", "diskURI"),
    "AzureFileVolumeSource": ("secretName", "shareName"),
    "CinderVolumeSource": ("volumeID",),
    "PortworxVolumeSource": ("volumeID",),
    "VsphereVirtualDiskVolumeSource": ("volumePath",),
    "PhotonPersistentDiskVolumeSource": ("pdID",),
    "ScaleIOVolumeSource": ("gateway", "system", "volumeName"),
    "StorageOSVolumeSource": ("volumeName",),
}
# A disk's partition, a target's LUN: 0 to 255.
_BYTE = {"minimum": 0, "maximum": 255}
_BYTE_SAID = "from 0 to 255"
# A secret named by a source that names one (its name is not checked further).
_NAMED_REF = {"required": ["name"], "properties": {"name": parts.SET}}
_NAMED_REF_SAID = "given the Secret's name"
# An option of a flex driver in Kubernetes' own namespaces (kubernetes.io, k8s.io).
_RESERVED_OPTION = r"^([^/]*\.)?([kK][uU][bB][eE][rR][nN][eE][tT][eE][sS]|[kK]8[sS])\.[iI][oO](/|$)"
_DNS_LABEL = {"pattern": names.DNS_LABEL, "maxLength": names.MAX_LABEL}
_DNS_LABEL_SAID = f"a DNS label: lowercase letters, digits and '-', at most {names.MAX_LABEL}"


def _must_name(fields: tuple[str, ...]) -> dict[str, Any]:
    return {"properties": dict.fromkeys(fields, _FILLED)}


def _only_one_of(first: str, second: str) -> dict[str, Any]:
    """Exactly one of two fields set: null, empty or absent is unset, as Go's len() reads it."""

    def filled(field: str) -> dict[str, Any]:
        return {"required": [field], "properties": {field: {"not": {"enum": [None, "", []]}}}}

    return {"if": {"type": "object"}, "then": {"oneOf": [filled(first), filled(second)]}}


_OLDER: parts.Rules = {
    kind: (_must_name(fields), dict.fromkeys(fields, _FILLED_SAID))
    for kind, fields in _MUST_NAME.items()
}
_OLDER["ISCSIVolumeSource"] = (
    {
        "properties": {
            **_must_name(_MUST_NAME["ISCSIVolumeSource"])["properties"],
            "iqn": {**_FILLED, "pattern": "^(iqn|eui|naa)"},
            "lun": _BYTE,
        }
    },
    {"targetPortal": _FILLED_SAID, "iqn": "set, starting with iqn, eui or naa", "lun": _BYTE_SAID},
)
for _disk in ("GCEPersistentDiskVolumeSource", "AWSElasticBlockStoreVolumeSource"):
    _OLDER[_disk] = (
        {"properties": {**_must_name(_MUST_NAME[_disk])["properties"], "partition": _BYTE}},
        {**_OLDER[_disk][1], "partition": _BYTE_SAID},
    )
_OLDER["FlexVolumeSource"] = (
    {
        "properties": {
            "driver": _FILLED,
            "options": {"propertyNames": {"not": {"pattern": _RESERVED_OPTION}}},
        }
    },
    {"driver": _FILLED_SAID, "options": "keyed outside Kubernetes' kubernetes.io and k8s.io"},
)
_OLDER["AzureDiskVolumeSource"] = (
    {
        "properties": {
            "diskName": _FILLED,
            "diskURI": _FILLED,
            "cachingMode": {"enum": [None, "None", "ReadOnly", "ReadWrite"]},
            "kind": {"enum": [None, "Shared", "Dedicated", "Managed"]},
        },
        "allOf": [
            {
                "if": {"required": ["kind"], "properties": {"kind": {"const": "Managed"}}},
                "then": {"properties": {"diskURI": {"pattern": "^/subscriptions/"}}},
            },
            {
                # No kind is Shared: Kubernetes defaults it so (SetDefaults_AzureDiskVolumeSource).
                "if": {"not": {"required": ["kind"], "properties": {"kind": {"const": "Managed"}}}},
                "then": {"properties": {"diskURI": {"pattern": "^https://"}}},
            },
        ],
    },
    {
        "diskName": _FILLED_SAID,
        "diskURI": "set: /subscriptions/... for a Managed disk, https://... for a blob disk",
        "cachingMode": "None, ReadOnly or ReadWrite",
        "kind": "Shared, Dedicated or Managed",
    },
)
_OLDER["StorageOSVolumeSource"] = (
    {
        "properties": {
            "volumeName": {**_FILLED, **_DNS_LABEL},
            "volumeNamespace": {"anyOf": [{"enum": [None, ""]}, _DNS_LABEL]},
            "secretRef": _NAMED_REF,
        }
    },
    {
        "volumeName": _DNS_LABEL_SAID,
        "volumeNamespace": _DNS_LABEL_SAID,
        "secretRef": _NAMED_REF_SAID,
        "name": "the Secret's name",
    },
)
_OLDER["CinderVolumeSource"] = (
    {"properties": {"volumeID": _FILLED, "secretRef": _NAMED_REF}},
    {"volumeID": _FILLED_SAID, "secretRef": _NAMED_REF_SAID, "name": "the Secret's name"},
)
_OLDER["QuobyteVolumeSource"] = (
    {"properties": {"registry": _FILLED, "volume": _FILLED, "tenant": {"maxLength": 64}}},
    {"registry": _FILLED_SAID, "volume": _FILLED_SAID, "tenant": "a UUID of at most 64 characters"},
)
_OLDER["FCVolumeSource"] = (
    {
        "allOf": [
            _only_one_of("targetWWNs", "wwids"),
            {
                "if": {
                    "required": ["targetWWNs"],
                    "properties": {"targetWWNs": {"type": "array", "minItems": 1}},
                },
                "then": {"required": ["lun"], "properties": {"lun": {"type": "integer", **_BYTE}}},
            },
        ]
    },
    {
        "": "set with one of targetWWNs or wwids, not both, and with targetWWNs a lun",
        "lun": _BYTE_SAID,
    },
)
_OLDER["FlockerVolumeSource"] = (
    {
        "allOf": [_only_one_of("datasetName", "datasetUUID")],
        "properties": {"datasetName": {"pattern": "^[^/]*$"}},
    },
    {"": "set with one of datasetName or datasetUUID, not both", "datasetName": "without '/'"},
)

_CLAIMS: parts.Rules = {
    "EphemeralVolumeSource": (
        {
            "required": ["volumeClaimTemplate"],
            "properties": {"volumeClaimTemplate": {"type": "object"}},
        },
        {"": "given a volumeClaimTemplate", "volumeClaimTemplate": "the claim to make for the pod"},
    ),
    "PersistentVolumeClaimTemplate": (
        {
            "properties": {
                # Other fields only at their zero value (validateFieldAllowList).
                "metadata": {
                    "additionalProperties": {"enum": [None, "", 0]},
                    "properties": {
                        "labels": {
                            "propertyNames": {"pattern": names.LABEL_KEY},
                            "additionalProperties": {"pattern": names.LABEL_VALUE},
                        },
                        "annotations": {"propertyNames": {"pattern": f"^{names.ANNOTATION_KEY}$"}},
                    },
                }
            }
        },
        {
            "metadata": "labels and annotations only (others unset): the claim's name and the "
            "rest are the pod's",
            "labels": "label keys and values",
            "annotations": "keyed by qualified names",
        },
    ),
    "PersistentVolumeClaimSpec": (
        {
            "required": ["accessModes", "resources"],
            "properties": {
                "accessModes": {
                    "type": "array",
                    "minItems": 1,
                    "items": {"enum": list(ACCESS_MODES)},
                    "not": {
                        "allOf": [
                            {"contains": {"const": "ReadWriteOncePod"}},
                            {"contains": {"not": {"const": "ReadWriteOncePod"}}},
                        ]
                    },
                },
                "resources": {
                    "required": ["requests"],
                    "properties": {"requests": {"required": ["storage"]}},
                },
                "volumeMode": {"enum": [None, "Block", "Filesystem"]},
                "storageClassName": {"anyOf": [{"enum": [None, ""]}, parts.OBJECT_NAME]},
            },
        },
        {
            "accessModes": "at least one of "
            + ", ".join(ACCESS_MODES)
            + " (ReadWriteOncePod alone)",
            "": "given its accessModes and the storage it requests (resources.requests.storage)",
            "resources": "given the storage it requests (resources.requests.storage)",
            "requests": "given the storage the claim requests (storage)",
            "volumeMode": "Block or Filesystem",
            "storageClassName": "a storage class's name: " + parts.OBJECT_NAME_SAID,
        },
    ),
}

RULES: parts.Rules = {**_OLDER, **_CLAIMS}
