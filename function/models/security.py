"""What the platform lets an actor's pod be: the Pod Security level and the volume kinds.

The levels are Kubernetes' Pod Security Standards; the volume kinds are the sources of a
core/v1 Volume. By default an actor may use the kinds Pod Security `restricted` permits,
which are the kinds an actor needs.
"""

from __future__ import annotations

import copy
from typing import Any, Final, Literal, get_args

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


# What Pod Security `restricted` requires of each of the platform's containers, and of the
# pod; an actor's own securityContext and podSecurityContext are laid over them.
RESTRICTED_CONTAINER: Final[dict[str, Any]] = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
}
RESTRICTED_POD: Final[dict[str, Any]] = {
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def container_context(level: PodSecurityLevel, own: dict[str, Any] | None) -> dict[str, Any]:
    """A platform container's securityContext: the actor's, over restricted's when that is the level."""
    own = own or {}
    if level == "restricted":
        capabilities = {**RESTRICTED_CONTAINER["capabilities"], **(own.get("capabilities") or {})}
        own = {**RESTRICTED_CONTAINER, **own, "capabilities": capabilities}
    return copy.deepcopy(own)


def pod_context(level: PodSecurityLevel, own: dict[str, Any] | None) -> dict[str, Any]:
    """The pod's securityContext: the actor's, over restricted's when that is the level."""
    own = own or {}
    return copy.deepcopy({**RESTRICTED_POD, **own} if level == "restricted" else own)
