"""What the API server checks of a volume's source beyond its schema, written as schema.

The sources a volume of an allowed kind names (ConfigMaps, Secrets, claims, CSI drivers,
images) must be named; the files a volume projects stay inside it, with modes a file
can have. Each rule is one of Kubernetes' volume validations, as the schema it adds to
its type and the words a refusal says; kube_rules takes them in with the rest.
"""

from __future__ import annotations

from function.resolve import rule_parts as parts

# A downward API volume's files: the pod's identity, its labels and annotations.
_VOLUME_FIELDS = rf"^(metadata\.(name|namespace|uid|labels|annotations)|{parts.ONE_LABEL})$"
# What a CSI driver may be called: a DNS subdomain in any case, at most 63 characters.
_CSI_DRIVER = {
    "pattern": r"^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*$",
    "maxLength": 63,
}
# The sources one item of a projected volume may have (VolumeProjection's fields).
PROJECTIONS = (
    "clusterTrustBundle",
    "configMap",
    "downwardAPI",
    "podCertificate",
    "secret",
    "serviceAccountToken",
)

RULES: parts.Rules = {
    "ConfigMapVolumeSource": (
        {"required": ["name"], "properties": {"defaultMode": parts.MODE, "name": parts.SET}},
        {"defaultMode": parts.MODE_SAID, "name": "the ConfigMap's name", "": "given a name"},
    ),
    "SecretVolumeSource": (
        {
            "required": ["secretName"],
            "properties": {"defaultMode": parts.MODE, "secretName": parts.SET},
        },
        {
            "defaultMode": parts.MODE_SAID,
            "secretName": "the Secret's name",
            "": "given a secretName",
        },
    ),
    **{
        source: ({"properties": {"defaultMode": parts.MODE}}, {"defaultMode": parts.MODE_SAID})
        for source in ("ProjectedVolumeSource", "DownwardAPIVolumeSource")
    },
    "PersistentVolumeClaimVolumeSource": (
        {"required": ["claimName"], "properties": {"claimName": parts.SET}},
        {"claimName": "the claim's name", "": "given a claimName"},
    ),
    "CSIVolumeSource": (
        {
            "properties": {
                "driver": _CSI_DRIVER,
                "nodePublishSecretRef": {
                    "required": ["name"],
                    "properties": {"name": parts.OBJECT_NAME},
                },
            }
        },
        {
            "driver": "a CSI driver's name: a DNS subdomain (letters, digits, '-' and '.') of at "
            "most 63 characters",
            "nodePublishSecretRef": "given the Secret's name",
            "name": parts.OBJECT_NAME_SAID,
        },
    ),
    "ImageVolumeSource": (
        {"properties": {"pullPolicy": parts.PULL_POLICY}},
        {"pullPolicy": parts.PULL_POLICY_SAID},
    ),
    "VolumeProjection": (
        # Kubernetes takes an item with no source; two it refuses.
        parts.at_most_one(*PROJECTIONS),
        {"": f"set with at most one source: {', '.join(PROJECTIONS)}"},
    ),
    "ServiceAccountTokenProjection": (
        {
            "properties": {
                "expirationSeconds": {"minimum": 600, "maximum": 2**32},
                "path": parts.FILE_PATH,
            }
        },
        {
            "expirationSeconds": "from 600 (ten minutes) to 4294967296 (2^32) seconds",
            "path": parts.FILE_PATH_SAID,
        },
    ),
    "KeyToPath": (
        {"properties": {"mode": parts.MODE, "path": parts.FILE_PATH}},
        {"mode": parts.MODE_SAID, "path": parts.FILE_PATH_SAID},
    ),
    "DownwardAPIVolumeFile": (
        {
            "properties": {
                "mode": parts.MODE,
                "path": parts.FILE_PATH,
                "fieldRef": {
                    "properties": {
                        "fieldPath": {"pattern": _VOLUME_FIELDS},
                        "apiVersion": parts.V1,
                    }
                },
                # In a volume, the container whose resources a file reads must be named.
                "resourceFieldRef": {
                    "required": ["containerName"],
                    "properties": {"containerName": parts.SET},
                },
            },
            "allOf": [
                parts.not_both("fieldRef", "resourceFieldRef"),
                {
                    "anyOf": [
                        {"required": [field]} for field in ("fieldRef", "resourceFieldRef", "user")
                    ]
                },
            ],
        },
        {
            "mode": parts.MODE_SAID,
            "path": parts.FILE_PATH_SAID,
            "fieldPath": "metadata.name, metadata.namespace, metadata.uid, metadata.labels, "
            "metadata.annotations, or one label or annotation: metadata.labels['<key>'] or "
            "metadata.annotations['<key>'], <key> a label key (an annotation's in any case)",
            "apiVersion": parts.V1_SAID,
            "containerName": "the name of the container whose resources the file reads",
            "resourceFieldRef": "given the containerName whose resources the file reads",
            "": "set with one of fieldRef or resourceFieldRef, not both",
        },
    ),
}
