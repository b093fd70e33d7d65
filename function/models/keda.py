"""KEDA's names: its API, its annotations on a ScaledObject, and the HPA it makes for one."""

from __future__ import annotations

import hashlib

from function.models import names

API_VERSION = "keda.sh/v1alpha1"
# KEDA's annotations on a ScaledObject (`paused`, `paused-replicas`, …) share this prefix.
ANNOTATION_PREFIX = "autoscaling.keda.sh/"
PAUSED_REPLICAS = ANNOTATION_PREFIX + "paused-replicas"

# KEDA names the HPA of a ScaledObject this, then the ScaledObject's name; from 2.20 its
# webhook refuses a ScaledObject whose HPA name is past a label value's 63 characters.
HPA_PREFIX = "keda-hpa-"
_HPA_DIGEST = 8


def autoscaler_name(actor: str) -> str:
    """The HPA KEDA makes for an actor: KEDA's own name where it fits, else one cut to fit.

    A cut name keeps as much of the actor's as fits, and a digest of the whole, so
    that two long actors of one namespace never share an HPA.
    """
    name = HPA_PREFIX + actor
    if len(name) <= names.MAX_LABEL:
        return name
    room = names.MAX_LABEL - len(HPA_PREFIX) - 1 - _HPA_DIGEST
    digest = hashlib.sha256(actor.encode()).hexdigest()[:_HPA_DIGEST]
    return f"{HPA_PREFIX}{actor[:room].rstrip('-')}-{digest}"
