"""What the platform lets an actor's pod be: the Pod Security level and the volume kinds.

The levels are Kubernetes' Pod Security Standards; the volume kinds are the sources of a
core/v1 Volume. By default an actor may use the kinds Pod Security `restricted` permits,
which are the kinds an actor needs.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

PodSecurityLevel = Literal["privileged", "baseline", "restricted"]

# Every source a Kubernetes Volume may have (core/v1 VolumeSource).
VolumeKind = Literal[
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "cephfs",
    "cinder",
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "fc",
    "flexVolume",
    "flocker",
    "gcePersistentDisk",
    "gitRepo",
    "glusterfs",
    "hostPath",
    "image",
    "iscsi",
    "nfs",
    "persistentVolumeClaim",
    "photonPersistentDisk",
    "portworxVolume",
    "projected",
    "quobyte",
    "rbd",
    "scaleIO",
    "secret",
    "storageos",
    "vsphereVolume",
]

VOLUME_KINDS: Final = frozenset(get_args(VolumeKind))

# The kinds Pod Security `restricted` permits (restrictedVolumes): the default allow-list.
RESTRICTED_VOLUMES: Final[tuple[VolumeKind, ...]] = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
)
