"""The Deployment that runs the actor: runtime, sidecar, connectors and the user's containers."""

from __future__ import annotations

from typing import Any

from function.errors import InputError
from function.models.plan import Plan
from function.models.spec import as_data
from function.render import containers, meta, transports

PLATFORM_VOLUMES = frozenset({"socket-dir", "tmp", "asya-runtime", "state-sockets"})


def _volumes(plan: Plan) -> list[dict[str, Any]]:
    volumes: list[dict[str, Any]] = [
        {"name": "socket-dir", "emptyDir": {}},
        {"name": "tmp", "emptyDir": {}},
        {
            "name": "asya-runtime",
            "configMap": {"name": plan.settings.sidecar.runtime_config_map, "defaultMode": 0o755},
        },
    ]
    if plan.spec.state_proxy:
        volumes.append({"name": "state-sockets", "emptyDir": {}})
    for volume in plan.spec.volumes:
        if volume.get("name") in PLATFORM_VOLUMES:
            raise InputError(
                f'invalid volumes: "{volume.get("name")}" is a volume the platform adds; pick another name'
            )
        volumes.append(volume)
    return volumes


def pod_labels(plan: Plan) -> dict[str, str]:
    """Labels of the pods: user labels and the ones that select and inject them."""
    return meta.user_labels(plan) | {
        "app.kubernetes.io/name": plan.actor,
        "app.kubernetes.io/component": "actor",
        "asya.sh/actor": plan.actor,
        "asya.sh/inject": "true",
    }


def render(plan: Plan) -> dict[str, Any]:
    """Render the Deployment.

    `spec.replicas` is left out while KEDA scales the Deployment, so applying it
    never fights the HPA; with scaling disabled it is the actor's `replicas`.
    """
    spec = plan.spec
    url = transports.of(plan).queue_url(plan)
    pod: dict[str, Any] = {"terminationGracePeriodSeconds": 30}
    if plan.settings.irsa.enabled:
        pod["serviceAccountName"] = plan.settings.irsa.service_account_name
    if spec.init_containers:
        pod["initContainers"] = [as_data(container) for container in spec.init_containers]
    pod["containers"] = [
        containers.runtime(plan),
        containers.sidecar(plan, url),
        *containers.connectors(plan),
        *(as_data(container) for container in spec.sidecars),
    ]
    pod["volumes"] = _volumes(plan)
    if spec.node_selector:
        pod["nodeSelector"] = spec.node_selector
    if spec.tolerations:
        pod["tolerations"] = spec.tolerations
    deployment_spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app.kubernetes.io/name": plan.actor}},
        "template": {"metadata": {"labels": pod_labels(plan)}, "spec": pod},
    }
    if not spec.scaling.enabled:
        deployment_spec = {"replicas": spec.replicas} | deployment_spec
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": plan.actor,
            "namespace": plan.namespace,
            "labels": meta.labels(plan, "actor") | {"asya.sh/inject": "true"},
        },
        "spec": deployment_spec,
    }
    return meta.compose(plan, manifest, watch=True)
