"""The KEDA ScaledObject that scales the Deployment on the queue's length."""

from __future__ import annotations

from typing import Any

from function.compose.renderers import meta, transports
from function.models import keda
from function.models.plan import Plan
from function.models.spec import as_data

# Scale up fast, scale down gradually.
BEHAVIOR = {
    "scaleDown": {
        "stabilizationWindowSeconds": 300,
        "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
    },
    "scaleUp": {
        "stabilizationWindowSeconds": 0,
        "policies": [
            {"type": "Pods", "value": 10, "periodSeconds": 60},
            {"type": "Percent", "value": 100, "periodSeconds": 60},
        ],
    },
}


def render(plan: Plan) -> dict[str, Any] | None:
    """Render the ScaledObject once scaling is on and the transport waits for nothing."""
    scaling = plan.spec.scaling
    transport = transports.of(plan)
    if not scaling.enabled or transport.scaler_waits_for(plan):
        return None
    advanced: dict[str, Any] = {}
    restore = scaling.advanced.restore_to_original_replica_count if scaling.advanced else None
    if restore is not None:
        advanced["restoreToOriginalReplicaCount"] = restore
    autoscaler: dict[str, Any] = {"behavior": BEHAVIOR}
    if (hpa := keda.autoscaler_name(plan.actor)) != keda.HPA_PREFIX + plan.actor:
        autoscaler["name"] = hpa
    advanced["horizontalPodAutoscalerConfig"] = autoscaler
    if scaling.advanced is not None and scaling.advanced.formula and scaling.advanced.target:
        modifiers = {"formula": scaling.advanced.formula, "target": scaling.advanced.target}
        if scaling.advanced.activation_target is not None:
            modifiers["activationTarget"] = scaling.advanced.activation_target
        if scaling.advanced.metric_type is not None:
            modifiers["metricType"] = scaling.advanced.metric_type
        advanced["scalingModifiers"] = modifiers
    authenticated = transport.authentication(plan) is not None
    authentication = meta.trigger_authentication_name(plan) if authenticated else None
    triggers = [
        transport.trigger(plan, authentication),
        *(as_data(trigger) for trigger in scaling.additional_triggers),
    ]
    metadata: dict[str, Any] = {
        "name": plan.actor,
        "namespace": plan.namespace,
        "labels": meta.labels(plan, "scaledobject"),
    }
    if scaling.pinned_replicas is not None:
        # KEDA scales the Deployment to this count and stops autoscaling until it goes.
        metadata["annotations"] = {keda.PAUSED_REPLICAS: str(scaling.pinned_replicas)}
    manifest = {
        "apiVersion": keda.API_VERSION,
        "kind": "ScaledObject",
        "metadata": metadata,
        "spec": {
            "scaleTargetRef": {"name": plan.actor, "kind": "Deployment"},
            "minReplicaCount": scaling.min_replica_count,
            "maxReplicaCount": scaling.max_replica_count,
            "pollingInterval": scaling.polling_interval,
            "cooldownPeriod": scaling.cooldown_period,
            "triggers": triggers,
            "advanced": advanced,
        },
    }
    return meta.compose(plan, manifest, watch=True)
