"""The Prometheus Operator PodMonitor that scrapes the actor's sidecars (Input `metrics.podMonitor`)."""

from __future__ import annotations

from typing import Any

from function.compose.renderers import meta
from function.models import pod
from function.models.plan import Plan


def render(plan: Plan) -> dict[str, Any] | None:
    """One PodMonitor per actor, selecting its pods only, while the Input asks and metrics are on."""
    settings = plan.settings.metrics
    if not settings.pod_monitor or not plan.spec.metrics.enabled:
        return None
    manifest = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PodMonitor",
        "metadata": {
            "name": plan.actor,
            "namespace": plan.namespace,
            "labels": meta.labels(plan, "podmonitor"),
        },
        "spec": {
            # The actor's label is its own within the namespace (ownership refuses a namesake).
            "selector": {"matchLabels": {pod.ACTOR_LABEL: plan.actor, pod.METRICS_LABEL: "true"}},
            "podMetricsEndpoints": [
                {"port": pod.METRICS_PORT_NAME, "path": "/metrics", "interval": settings.interval}
            ],
        },
    }
    return meta.compose(plan, manifest, watch=False)
