"""What to ask Crossplane for: the actor's flavors, the Deployments of its name, its Pods.

For each flavor its EnvironmentConfig and, where it is safe, a ConfigMap of the
same name in the actor's namespace; the Deployments labelled with the actor's
name in that namespace, to find another actor already using the name; and, only
while its Deployment is not fully available, the actor's Pods, to say why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from function.models import keda, names, observed, pod, queues
from function.models.requirement import Requirement
from function.models.xr import WRAPPER_API_VERSION, Composite


def key_for(flavor: str) -> str:
    """Return the requirement key of a flavor's EnvironmentConfig: `flavor-<name>`."""
    return f"flavor-{flavor}"


def config_map_key_for(flavor: str) -> str:
    """Return the requirement key of a flavor's ConfigMap: `namespace-flavor-<name>`."""
    return f"namespace-flavor-{flavor}"


def possible_keys(flavors: Sequence[str]) -> set[str]:
    """Every requirement key the flavors may be asked for under, in any namespace mode."""
    return {key for name in flavors for key in (key_for(name), config_map_key_for(name))}


def for_flavors(flavors: Sequence[str], namespace: str | None = None) -> list[Requirement]:
    """Return the requirements for the flavors, in the actor's order (identical every call).

    With a namespace, each flavor is also looked for as a ConfigMap of that name in it.
    """
    wanted = []
    for name in flavors:
        wanted.append(Requirement(key=key_for(name), flavor=name))
        if namespace:
            wanted.append(
                Requirement(
                    key=config_map_key_for(name),
                    flavor=name,
                    api_version="v1",
                    kind="ConfigMap",
                    namespace=namespace,
                )
            )
    return wanted


# The Deployments of an actor's name in its namespace.
WORKLOADS_KEY = "actor-deployments"


def for_workloads(actor: Any, namespace: str, by_name: bool = False) -> list[Requirement]:
    """Ask for the Deployments labelled with the actor's name in its namespace (or of its name).

    None for a name no label can carry: the spec's validation refuses it anyway.
    """
    if by_name:
        return _named(WORKLOADS_KEY, "apps/v1", "Deployment", actor, namespace)
    return _labelled(WORKLOADS_KEY, "apps/v1", "Deployment", actor, namespace)


# The v1 form's Deployment is a manifest inside provider-kubernetes' (cluster-scoped)
# Object, which exists as soon as Crossplane composes it; the Deployment itself only once
# the provider has applied it. The Objects that wrap an actor's Deployment, by its labels.
WRAPPED_WORKLOADS_KEY = "actor-objects"


def for_wrapped_workloads(actor: Any) -> list[Requirement]:
    """Ask for the Objects that wrap a Deployment of the actor's name (v1 form)."""
    workload = (pod.COMPONENT_LABEL, pod.WORKLOAD_COMPONENT)
    return _labelled(WRAPPED_WORKLOADS_KEY, WRAPPER_API_VERSION, "Object", actor, "", workload)


# The Deployments of the actors of other namespaces whose queue would bear this actor's
# queue's name: asya-<namespace>-<actor> splits at any '-', so `team-a`/`echo` and
# `team`/`a-echo` would share asya-team-a-echo. Keyed by that namespace.
NAMESAKES_KEY_PREFIX = "queue-namesake-"


def for_queue_namesakes(actor: Any, namespace: str, by_name: bool = False) -> list[Requirement]:
    """Ask for the Deployments of each actor whose queue would bear this one's name."""
    ask = _named if by_name else _labelled
    return [
        requirement
        for other_namespace, other in queues.namesakes(actor, namespace)
        for requirement in ask(
            NAMESAKES_KEY_PREFIX + other_namespace, "apps/v1", "Deployment", other, other_namespace
        )
    ]


# The actor's Pods, asked for only while its Deployment is not fully available.
PODS_KEY = "actor-pods"


def for_pods(actor: Any, namespace: str) -> list[Requirement]:
    """Ask for the Pods labelled with the actor's name in its namespace."""
    return _labelled(PODS_KEY, "v1", "Pod", actor, namespace)


# KEDA's HPA for the actor's ScaledObject (it carries the ScaledObject's labels).
AUTOSCALER_KEY = "actor-hpa"


def for_autoscaler(actor: Any, namespace: str, by_name: bool = False) -> list[Requirement]:
    """Ask for the HPAs labelled with the actor's name in its namespace: KEDA's, for scaling status.

    By name, the one the function has KEDA name (`keda.autoscaler_name`).
    """
    if by_name:
        if not isinstance(actor, str) or names.label_problem(actor):
            return []
        hpa = keda.autoscaler_name(actor)
        return _named(AUTOSCALER_KEY, "autoscaling/v2", "HorizontalPodAutoscaler", hpa, namespace)
    return _labelled(AUTOSCALER_KEY, "autoscaling/v2", "HorizontalPodAutoscaler", actor, namespace)


def _labelled(
    key: str, api_version: str, kind: str, actor: Any, namespace: str, *also: tuple[str, str]
) -> list[Requirement]:
    """Objects labelled `asya.sh/actor: <actor>` and `also`, in the namespace (every namespace on 1.x).

    An empty `namespace` asks for a cluster-scoped kind. Crossplane 1.x ignores a selector's namespace: its answer holds the actor's
    namesakes of every namespace, which the readers filter by namespace.
    """
    if not isinstance(actor, str) or names.label_problem(actor):
        return []
    return [
        Requirement(
            key=key,
            flavor="",
            api_version=api_version,
            kind=kind,
            namespace=namespace,
            match_labels=((pod.ACTOR_LABEL, actor), *also),
            anywhere_on_legacy=True,
        )
    ]


def _named(key: str, api_version: str, kind: str, name: Any, namespace: str) -> list[Requirement]:
    """The object of this name in the namespace (none for a name no label can carry)."""
    if not isinstance(name, str) or names.label_problem(name) or not namespace:
        return []
    return [
        Requirement(key=key, flavor=name, api_version=api_version, kind=kind, namespace=namespace)
    ]


def actors_own(
    xr: Composite, deployment: Mapping[str, Any] | None, by_name: bool = False
) -> list[Requirement]:
    """The Deployments of the actor's name and of its queue's, KEDA's HPA, and its Pods while unhealthy.

    The HPA is asked for whether or not the actor scales (its flavors may say either;
    none exists when it does not): the requirements must not change once they resolve.
    Its Pods say why its observed Deployment is not available; a healthy actor's are never read.

    `by_name` (a caller that honours a selector's namespace): the Deployments and the
    HPA by name. Crossplane answers a label selector by testing every object of the
    kind in the namespace, each fetch of a 1,000-actor namespace scanning 1,000
    Deployments; a name is one lookup. The names are the ones the function renders, so
    nothing else is found: the readers keep only objects labelled with the actor.
    """
    actor = xr.spec.get("actor")
    wanted = [
        *for_workloads(actor, xr.namespace, by_name),
        *for_queue_namesakes(actor, xr.namespace, by_name),
        *for_autoscaler(actor, xr.namespace, by_name),
    ]
    if not xr.namespaced:
        wanted += for_wrapped_workloads(actor)
    if observed.needs_pods(deployment):
        wanted += for_pods(actor, xr.namespace)
    return wanted
