"""Names, labels and wrapping shared by every renderer."""

from __future__ import annotations

from typing import Any

from function.models import pod
from function.models.plan import Plan
from function.models.scaling import QUEUE_TRIGGER
from function.models.xr import WRAPPER_API_VERSION

# Composition resource names: the same as upstream's composition, so a cluster
# can switch to this function without Crossplane recreating anything.
SERVICE_ACCOUNT = "serviceaccount"
TRIGGER_AUTHENTICATION = "triggerauthentication"
SCALED_OBJECT = "scaledobject"
DEPLOYMENT = "deployment"
POD_MONITOR = "podmonitor"

# The name a managed resource has in the cloud, when it differs from its own.
EXTERNAL_NAME = "crossplane.io/external-name"
SYSTEM_ACTORS = frozenset({"x-sink", "x-sump", "happy-end", "error-end"})
RESERVED_LABEL_PREFIXES = ("crossplane.io/", "app.kubernetes.io/")


def user_labels(plan: Plan) -> dict[str, str]:
    """The XR's labels minus Crossplane's and app.kubernetes.io ones: they go on every object."""
    return {
        key: value
        for key, value in plan.xr.labels.items()
        if not key.startswith(RESERVED_LABEL_PREFIXES)
    }


def labels(plan: Plan, component: str) -> dict[str, str]:
    """The standard labels of an object: user labels, then the ones the platform owns.

    The platform's come last, so a user label never replaces one of them.
    """
    return user_labels(plan) | {
        "app.kubernetes.io/name": plan.actor,
        pod.COMPONENT_LABEL: component,
        "app.kubernetes.io/part-of": "asya",
        "app.kubernetes.io/managed-by": "crossplane",
        pod.ACTOR_LABEL: plan.actor,
    }


def compose(
    plan: Plan,
    manifest: dict[str, Any],
    *,
    watch: bool,
    management_policies: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """Return a Kubernetes object as Crossplane should compose it.

    A namespaced (Crossplane v2) XR composes it directly; a legacy XR wraps it in a
    provider-kubernetes Object, as the upstream composition does, labelled as the
    object it wraps.
    """
    if plan.xr.namespaced:
        return manifest
    return {
        "apiVersion": WRAPPER_API_VERSION,
        "kind": "Object",
        "metadata": {"labels": dict(manifest["metadata"]["labels"])},
        "spec": {
            "watch": watch,
            **({"managementPolicies": list(management_policies)} if management_policies else {}),
            "forProvider": {"manifest": manifest},
            "providerConfigRef": {"name": plan.settings.kubernetes.provider_config_name},
        },
    }


def trigger(kind: str, metadata: dict[str, str], authentication: str | None) -> dict[str, Any]:
    """A KEDA trigger on the actor's queue, authenticated when `authentication` names a TriggerAuthentication."""
    body: dict[str, Any] = {"type": kind, "name": QUEUE_TRIGGER}
    if authentication is not None:
        body["authenticationRef"] = {"name": authentication}
    body["metadata"] = metadata
    return body


def env_from_secret(secret: str) -> list[dict[str, Any]]:
    """A container's envFrom of one Secret, or none when no Secret is named."""
    return [{"secretRef": {"name": secret}}] if secret else []


def trigger_authentication_name(plan: Plan) -> str:
    """`<actor>-trigger-auth`: the TriggerAuthentication the ScaledObject refers to."""
    return f"{plan.actor}-trigger-auth"


# The v2 form's ServiceAccount of each actor: asya-<actor>.
SERVICE_ACCOUNT_PREFIX = "asya-"


def service_account_name(plan: Plan) -> str:
    """The ServiceAccount the actor's pods run as: shared (v1 form) or the actor's own (v2).

    Two v2 XRs cannot control one object, so there each actor has its own.
    """
    if plan.xr.namespaced:
        return SERVICE_ACCOUNT_PREFIX + plan.actor
    return plan.settings.irsa.service_account_name


def managed(
    plan: Plan,
    kind: str,
    api_versions: tuple[str, str],
    provider_config: str,
    metadata: dict[str, Any],
    for_provider: dict[str, Any],
) -> dict[str, Any]:
    """A managed resource as each XR form composes it.

    Args:
        plan: the actor.
        kind: the managed resource's kind.
        api_versions: (cluster-scoped apiVersion, namespaced `.m.` apiVersion).
        provider_config: the provider config's name.
        metadata: its labels and annotations.
        for_provider: its `spec.forProvider`.

    The v1 form composes the cluster-scoped kind with `deletionPolicy: Delete`; the v2
    form the namespaced `.m.` kind, which has no deletionPolicy and names a
    ClusterProviderConfig.
    """
    legacy, namespaced = api_versions
    spec: dict[str, Any] = {"forProvider": for_provider}
    if plan.xr.namespaced:
        spec["providerConfigRef"] = {"kind": "ClusterProviderConfig", "name": provider_config}
    else:
        spec["providerConfigRef"] = {"name": provider_config}
        spec["deletionPolicy"] = "Delete"
    return {
        "apiVersion": namespaced if plan.xr.namespaced else legacy,
        "kind": kind,
        "metadata": metadata,
        "spec": spec,
    }
