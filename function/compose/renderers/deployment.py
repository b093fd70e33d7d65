"""The Deployment that runs the actor: runtime, sidecar, connectors and the user's containers."""

from __future__ import annotations

from typing import Any

from function.cache import short_digest
from function.compose.renderers import containers, meta, transports
from function.models import pod, security, timeouts
from function.models.plan import Plan
from function.models.spec import as_data
from function.models.xr import COMPOSITE_LABEL


def _volumes(plan: Plan) -> list[dict[str, Any]]:
    volumes: list[dict[str, Any]] = [
        {"name": pod.SOCKET_VOLUME, "emptyDir": {}},
        {"name": pod.TMP_VOLUME, "emptyDir": {}},
        {
            "name": pod.RUNTIME_VOLUME,
            "configMap": {"name": plan.settings.sidecar.runtime_config_map, "defaultMode": 0o755},
        },
    ]
    if plan.spec.state_proxy:
        volumes.append({"name": pod.STATE_VOLUME, "emptyDir": {}})
    # The validation stage has kept user volumes off the platform's names.
    volumes.extend(plan.spec.volumes)
    return volumes


def pod_labels(plan: Plan) -> dict[str, str]:
    """Labels of the pods: user labels and the ones that select and inject them."""
    labels = meta.user_labels(plan) | {
        "app.kubernetes.io/name": plan.actor,
        "app.kubernetes.io/component": "actor",
        pod.ACTOR_LABEL: plan.actor,
        "asya.sh/inject": "true",
    }
    if plan.spec.metrics.enabled:
        labels[pod.METRICS_LABEL] = "true"
    return labels


def _placement(plan: Plan) -> dict[str, Any]:
    """The pod's fields an actor or flavor passes through: security, pull Secrets, scheduling."""
    spec = plan.spec
    found: dict[str, Any] = {}
    if context := security.pod_context(plan.settings.pod_security, spec.pod_security_context):
        found["securityContext"] = context
    if spec.image_pull_secrets:
        found["imagePullSecrets"] = [as_data(secret) for secret in spec.image_pull_secrets]
    if spec.priority_class_name:
        found["priorityClassName"] = spec.priority_class_name
    if spec.affinity:
        found["affinity"] = spec.affinity
    if spec.topology_spread_constraints:
        found["topologySpreadConstraints"] = [dict(c) for c in spec.topology_spread_constraints]
    if spec.node_selector:
        found["nodeSelector"] = spec.node_selector
    if spec.tolerations:
        found["tolerations"] = [as_data(toleration) for toleration in spec.tolerations]
    return found


def render(plan: Plan) -> dict[str, Any]:
    """Render the Deployment.

    `spec.replicas` is left out while KEDA scales the Deployment, so applying it
    never fights the HPA; with scaling disabled it is the actor's `replicas`, or the
    count `kubectl scale` pinned.
    """
    spec = plan.spec
    grace = timeouts.grace_period_seconds(spec.actor_timeout_seconds)
    template_spec: dict[str, Any] = {"terminationGracePeriodSeconds": grace}
    if transports.of(plan).credentials(plan).irsa:
        template_spec["serviceAccountName"] = meta.service_account_name(plan)
    if spec.init_containers:
        template_spec["initContainers"] = [as_data(container) for container in spec.init_containers]
    template_spec["containers"] = [
        containers.runtime(plan),
        containers.sidecar(plan),
        *containers.connectors(plan),
        *(as_data(container) for container in spec.sidecars),
    ]
    template_spec["volumes"] = _volumes(plan)
    template_spec |= _placement(plan)
    deployment_spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app.kubernetes.io/name": plan.actor}},
        "template": {"metadata": {"labels": pod_labels(plan)}, "spec": template_spec},
    }
    if not spec.scaling.enabled:
        # A pin (`kubectl scale`) holds the fixed count too; KEDA holds it otherwise.
        replicas = spec.scaling.pinned_replicas
        deployment_spec = {"replicas": spec.replicas if replicas is None else replicas} | (
            deployment_spec
        )
    metadata: dict[str, Any] = {
        "name": plan.actor,
        "namespace": plan.namespace,
        # The XR's name, as Crossplane labels what it composes, also on a wrapped
        # Deployment: how another actor of the same name finds it taken.
        "labels": meta.labels(plan, pod.WORKLOAD_COMPONENT)
        | {"asya.sh/inject": "true", COMPOSITE_LABEL: plan.xr.name},
    }
    manifest = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata}
    manifest["spec"] = deployment_spec
    if plan.xr.namespaced:
        metadata["annotations"] = _marks(plan, manifest)
    return meta.compose(plan, manifest, watch=True)


def _marks(plan: Plan, manifest: dict[str, Any]) -> dict[str, str]:
    """What the v2 form's status compares with the observed Deployment (status/accepted.py).

    In the v1 form provider-kubernetes reports a refused Deployment itself, so only the
    v2 form carries them. Annotations of the Deployment, not of its pods: a new mark
    never rolls them.
    """
    # Of the Deployment as rendered, before its marks.
    marks = {pod.RENDERED_ANNOTATION: short_digest(manifest, 16)}
    if plan.origin is not None:
        sources = plan.origin.digests()
        marks[pod.RENDERED_FROM_ANNOTATION] = ",".join(f"{k}={v}" for k, v in sources.items())
    return marks
