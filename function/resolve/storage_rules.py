"""What the API server checks of a claim made for the pod beyond its schema, written as schema.

A claim made for the pod (`ephemeral`) must say what it asks for: its access modes and
storage, in a template whose metadata holds only labels and annotations
(ValidatePersistentVolumeClaimSpec), as the schema it adds to its type and the words a
refusal says; kube_rules takes them in with the rest. The older network and cloud disks
(iSCSI, Fibre Channel, Ceph, Flocker, StorageOS and the rest) are not checked here: an
actor may use them only where the platform adds them to the Input's `allowedVolumes`,
and then the API server's refusal shows on the actor's status.
"""

from __future__ import annotations

from function.models import names
from function.resolve import rule_parts as parts

ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
# A string or a list the API server requires: present, and neither empty.
_FILLED = {"minLength": 1, "minItems": 1}
_FILLED_SAID = "set (not empty)"
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

RULES: parts.Rules = _CLAIMS
