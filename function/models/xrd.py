"""The AsyncActor API's two XRDs, built from one set of pieces so the forms cannot drift.

The v1 form (apiextensions.crossplane.io/v1) is a cluster-scoped XAsyncActor with a
namespaced AsyncActor claim; the v2 form a namespaced AsyncActor that is itself the
composite resource. Both define AsyncActor in the same group, so a cluster installs
one or the other. Their one version (its schema from the Spec and Status models, its
printer columns and scale subresource) is the same object in both.
"""

from __future__ import annotations

from typing import Any

from function.models import crd_schema, status
from function.models import spec as spec_model

GROUP = "asya.sh"
VERSION = "v1alpha1"
# What an actor is called: the v2 form's names, the v1 form's claim's.
ACTOR_NAMES: dict[str, Any] = {
    "kind": "AsyncActor",
    "plural": "asyncactors",
    "shortNames": ["asya", "asyas"],
}
COMPOSITE_NAMES: dict[str, Any] = {
    "kind": "XAsyncActor",
    "plural": "xasyncactors",
    "shortNames": ["xasya", "xasyas"],
}
# The cluster's transport: asyncactor-sqs, asyncactor-rabbitmq or asyncactor-pubsub (with
# -namespaced in the v2 form). An actor may pick another with compositionRef or
# compositionSelector (label asya.sh/transport).
DEFAULT_COMPOSITION = "asyncactor-sqs"

# `kubectl get`'s columns: (name, type, JSON path, shown only with -o wide).
COLUMNS = (
    ("Actor", "string", ".spec.actor", False),
    ("Status", "string", ".status.phase", False),
    ("Running", "integer", ".status.infrastructure.workload.running", False),
    ("Pending", "integer", ".status.infrastructure.workload.pending", False),
    ("Failing", "integer", ".status.infrastructure.workload.failing", False),
    ("Min", "integer", ".status.scaling.minReplicas", False),
    ("Max", "integer", ".status.scaling.maxReplicas", False),
    ("Age", "date", ".metadata.creationTimestamp", False),
    ("Desired", "integer", ".status.scaling.desiredReplicas", True),
    ("Last-Scale", "date", ".status.scaling.lastScaleTime", True),
    ("Queued", "integer", ".status.scaling.queueLength", True),
    ("Replicas", "integer", ".status.infrastructure.workload.replicas", True),
    ("Transport", "string", ".status.transport", True),
    ("Queue", "string", ".status.queueUrl", True),
)
# `kubectl scale` (Crossplane >= 2.3; older Crossplane's XRD schema has no such field and
# the API server refuses it) pins spec.scaling.pinnedReplicas; the function fills the
# status path.
SCALE = {
    "specReplicasPath": ".spec.scaling.pinnedReplicas",
    "statusReplicasPath": ".status.infrastructure.workload.replicas",
}


def schema() -> dict[str, Any]:
    """The actor's openAPIV3Schema: its spec and status, from their models."""
    return {
        "type": "object",
        "properties": {
            "spec": crd_schema.of(spec_model.Spec.model_json_schema(by_alias=True)),
            "status": crd_schema.of(status.Status.model_json_schema(by_alias=True)),
        },
    }


def version() -> dict[str, Any]:
    """The API's one version, the same in both forms."""
    columns = [
        {"name": name, "type": kind, "jsonPath": path} | ({"priority": 1} if wide else {})
        for name, kind, path, wide in COLUMNS
    ]
    return {
        "name": VERSION,
        "served": True,
        "referenceable": True,
        "subresources": {"scale": dict(SCALE)},
        "additionalPrinterColumns": columns,
        "schema": {"openAPIV3Schema": schema()},
    }


def _xrd(api_version: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"apiextensions.crossplane.io/{api_version}",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": f"{name}.{GROUP}"},
        "spec": spec | {"versions": [version()]},
    }


def v1() -> dict[str, Any]:
    """The v1 form: a cluster-scoped XAsyncActor, claimed by a namespaced AsyncActor."""
    return _xrd(
        "v1",
        COMPOSITE_NAMES["plural"],
        {
            "group": GROUP,
            "names": dict(COMPOSITE_NAMES),
            "claimNames": dict(ACTOR_NAMES),
            "defaultCompositionRef": {"name": DEFAULT_COMPOSITION},
        },
    )


def v2() -> dict[str, Any]:
    """The v2 form: a namespaced AsyncActor, composed in its own namespace (no claim)."""
    return _xrd(
        "v2",
        ACTOR_NAMES["plural"],
        {
            "scope": "Namespaced",
            "group": GROUP,
            "names": dict(ACTOR_NAMES),
            "defaultCompositionRef": {"name": f"{DEFAULT_COMPOSITION}-namespaced"},
        },
    )
