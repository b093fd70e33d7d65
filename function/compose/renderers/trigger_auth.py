"""The KEDA TriggerAuthentication that lets KEDA read the queue."""

from __future__ import annotations

from typing import Any

from function.compose.renderers import meta, transports
from function.models import keda
from function.models.plan import Plan


def render(plan: Plan) -> dict[str, Any] | None:
    """Render the TriggerAuthentication, or nothing when scaling is disabled or the trigger needs none."""
    spec = transports.of(plan).authentication(plan)
    if not plan.spec.scaling.enabled or spec is None:
        return None
    manifest = {
        "apiVersion": keda.API_VERSION,
        "kind": "TriggerAuthentication",
        "metadata": {
            "name": meta.trigger_authentication_name(plan),
            "namespace": plan.namespace,
            "labels": meta.labels(plan, "triggerauthentication"),
        },
        "spec": spec,
    }
    return meta.compose(plan, manifest, watch=False)
