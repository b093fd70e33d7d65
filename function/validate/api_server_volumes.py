"""The API server's rules for a pod's volumes the typed spec can still trip (api_server_checks)."""

from __future__ import annotations

from typing import get_args

from function.models import names, pod
from function.validate.schema_forms import (
    MODE,
    MODE_SAID,
    OBJECT,
    OBJECT_SAID,
    Rules,
    enum,
    enum_or_empty,
    filled,
    one_of,
    one_of_filled,
    words,
)

ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
_ISCSI_NAME = r"^(iqn|eui|naa)\."
_HOST_PATH_TYPES = (
    "DirectoryOrCreate",
    "Directory",
    "FileOrCreate",
    "File",
    "Socket",
    "CharDevice",
    "BlockDevice",
)

ROWS: Rules = {
    # A volume's ConfigMap or Secret is named, though not held to a name's form.
    "ConfigMapVolumeSource": (
        {"required": ["name"], "properties": {"name": {"minLength": 1}}},
        {"name": "the ConfigMap's name (not empty)"},
    ),
    "SecretVolumeSource": (
        {"required": ["secretName"], "properties": {"secretName": {"minLength": 1}}},
        {"secretName": "the Secret's name (not empty)"},
    ),
    "DownwardAPIVolumeFile": (
        one_of("fieldRef", "resourceFieldRef"),
        {"": "set with exactly one of fieldRef and resourceFieldRef"},
    ),
    "DownwardAPIVolumeSource": (
        {"properties": {"defaultMode": MODE}},
        {"defaultMode": MODE_SAID},
    ),
    "ProjectedVolumeSource": ({"properties": {"defaultMode": MODE}}, {"defaultMode": MODE_SAID}),
    "SecretProjection": (filled("name"), {"name": "the Secret's name (not empty)"}),
    "ConfigMapProjection": (filled("name"), {"name": "the ConfigMap's name (not empty)"}),
    "CinderVolumeSource": (
        {"properties": {"secretRef": filled("name")}},
        {"name": "the Secret's name (not empty)"},
    ),
    "NFSVolumeSource": (
        {"properties": {"path": {"pattern": "^/"}}},
        {"path": "an absolute path"},
    ),
    "HostPathVolumeSource": (
        {"properties": {"type": enum_or_empty(*_HOST_PATH_TYPES)}},
        {"type": words(*_HOST_PATH_TYPES)},
    ),
    "ImageVolumeSource": (
        {"properties": {"pullPolicy": enum_or_empty(*get_args(pod.PullPolicy))}},
        {"pullPolicy": "Always, IfNotPresent or Never"},
    ),
    "CSIVolumeSource": (
        {
            "properties": {
                "driver": {
                    "maxLength": 63,
                    "pattern": r"^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$",
                },
                "nodePublishSecretRef": {"required": ["name"], "properties": {"name": OBJECT}},
            }
        },
        {
            "driver": "a driver's name: letters, digits, '-' and '.' (at most 63)",
            "name": OBJECT_SAID,
        },
    ),
    "ScaleIOVolumeSource": (filled("volumeName"), {"volumeName": "the volume's name"}),
    "StorageOSVolumeSource": (
        {
            "required": ["volumeName"],
            "properties": {
                "volumeName": {"pattern": names.DNS_LABEL, "maxLength": 63},
                "secretRef": filled("name"),
            },
        },
        {"volumeName": "the volume's name: a DNS label", "name": "the Secret's name (not empty)"},
    ),
    "FlockerVolumeSource": (
        {
            **one_of_filled("datasetName", "datasetUUID"),
            "properties": {"datasetName": {"pattern": "^[^/]*$"}},
        },
        {"": "set with one of datasetName and datasetUUID", "datasetName": "a name without '/'"},
    ),
    "QuobyteVolumeSource": (
        {
            "properties": {
                "registry": {"pattern": r"^[^:,]+:[0-9]+(,[^:,]+:[0-9]+)*$"},
                "tenant": {"maxLength": 64},
            }
        },
        {"registry": "host:port pairs separated by commas", "tenant": "at most 64 characters"},
    ),
    "FCVolumeSource": (
        {
            "if": {"type": "object"},
            "then": {
                "oneOf": [
                    {
                        "required": ["targetWWNs", "lun"],
                        "properties": {"targetWWNs": {"minItems": 1}},
                    },
                    {"required": ["wwids"], "properties": {"wwids": {"minItems": 1}}},
                ]
            },
            "properties": {"lun": {"minimum": 0, "maximum": 255}},
        },
        {"": "set with targetWWNs and lun, or with wwids", "lun": "from 0 to 255"},
    ),
    "ISCSIVolumeSource": (
        {
            "properties": {
                "lun": {"minimum": 0, "maximum": 255},
                "iqn": {"pattern": _ISCSI_NAME},
                "initiatorName": {"pattern": _ISCSI_NAME},
            },
            "if": {
                "anyOf": [
                    {
                        "required": ["chapAuthDiscovery"],
                        "properties": {"chapAuthDiscovery": {"const": True}},
                    },
                    {
                        "required": ["chapAuthSession"],
                        "properties": {"chapAuthSession": {"const": True}},
                    },
                ]
            },
            "then": {"required": ["secretRef"], "properties": {"secretRef": {"type": "object"}}},
        },
        {
            "lun": "from 0 to 255",
            "iqn": "an iSCSI name (iqn., eui. or naa.)",
            "initiatorName": "an iSCSI name (iqn., eui. or naa.)",
            "": "set with a secretRef to use CHAP",
        },
    ),
    "AzureDiskVolumeSource": (
        {
            "properties": {
                "kind": enum("Dedicated", "Managed", "Shared"),
                "cachingMode": enum("None", "ReadOnly", "ReadWrite"),
            },
            # A managed disk is named by its resource id, any other by its blob's URL.
            "if": {"required": ["kind"], "properties": {"kind": {"const": "Managed"}}},
            "then": {"properties": {"diskURI": {"pattern": "^/subscriptions/"}}},
            "else": {"properties": {"diskURI": {"pattern": "^https://"}}},
        },
        {
            "kind": "Dedicated, Managed or Shared",
            "cachingMode": "None, ReadOnly or ReadWrite",
            "diskURI": "a managed disk's resource id (/subscriptions/...), else a blob's https URL",
        },
    ),
    "GCEPersistentDiskVolumeSource": (
        {"properties": {"partition": {"minimum": 0, "maximum": 255}}},
        {"partition": "from 0 to 255"},
    ),
    "AWSElasticBlockStoreVolumeSource": (
        {"properties": {"partition": {"minimum": 0, "maximum": 255}}},
        {"partition": "from 0 to 255"},
    ),
    "PersistentVolumeClaimSpec": (
        {
            "required": ["accessModes"],
            "properties": {
                "accessModes": {
                    "minItems": 1,
                    "items": {"enum": [*ACCESS_MODES]},
                }
            },
        },
        {"accessModes": "at least one of " + words(*ACCESS_MODES)},
    ),
    "EphemeralVolumeSource": (
        {
            "required": ["volumeClaimTemplate"],
            "properties": {"volumeClaimTemplate": {"type": "object"}},
        },
        {"volumeClaimTemplate": "a claim template"},
    ),
}
