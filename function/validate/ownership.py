"""One name, one actor: an actor whose name or queue another XR has already is refused.

Two AsyncActors of one namespace with the same `spec.actor` would compose the same
queue (`asya-<namespace>-<actor>`) and the same Deployment (`<actor>`), and deleting
either would delete the other's queue and messages. The function asks Crossplane for
the Deployments labelled `asya.sh/actor=<actor>` in the namespace; one that carries
another XR's `crossplane.io/composite` label means the name is taken. A Deployment
without that label (rendered before the function set it, or not by Crossplane) proves
nothing either way and is passed over.

A queue's name cannot tell its namespace from its actor either: `team-a`/`echo` and
`team`/`a-echo` would both be asya-team-a-echo. The function asks for the Deployments of
every such actor (queues.namesakes); when one belongs to another XR, the
actor whose Deployment is older keeps the queue and the other is refused, so that the
function never composes both, nor refuses both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from function.errors import ActorTakenError
from function.models import queues
from function.models.plain import MAP
from function.models.pod import ACTOR_LABEL, SIDECAR, value_at
from function.models.xr import COMPOSITE_LABEL, Composite


def _labels(body: Any) -> tuple[str, str, Mapping[str, Any]]:
    metadata = body.get("metadata") if isinstance(body, MAP) else None
    if not isinstance(metadata, MAP):
        return "", "", {}
    labels = metadata.get("labels")
    return (
        str(metadata.get("namespace") or ""),
        str(metadata.get("name") or ""),
        labels if isinstance(labels, MAP) else {},
    )


def refuse_if_taken(xr: Composite, actor: str, deployments: Sequence[Any] | None) -> None:
    """Refuse the actor when another XR's Deployment in its namespace carries its name.

    Raises:
        ActorTakenError: naming the XR that has the name, and its Deployment.
    """
    for body in deployments or ():
        namespace, name, labels = _labels(body)
        # Crossplane 1.x looks in every namespace: only the actor's own counts.
        if namespace != xr.namespace or labels.get(ACTOR_LABEL) != actor:
            continue
        owner = labels.get(COMPOSITE_LABEL)
        if isinstance(owner, str) and owner and owner != xr.name:
            raise _taken(actor, namespace, owner, name)


def _taken(actor: str, namespace: str, owner: str, deployment: str) -> ActorTakenError:
    return ActorTakenError(
        f'invalid actor spec: actor: "{actor}" is taken in namespace "{namespace}" by '
        f'XR "{owner}" (its Deployment {namespace}/{deployment}): both would compose the queue '
        f"{queues.queue_name(namespace, actor)} and the Deployment {actor}, and deleting either "
        "would delete the other's; choose another spec.actor",
        path="actor",
    )


def refuse_if_wrapped_taken(xr: Composite, actor: str, objects: Sequence[Any] | None) -> None:
    """Refuse the actor when an older XR's Object wraps a Deployment of its name (v1 form).

    Each XR's Objects have names of their own, so two of them can exist at once
    (Crossplane composed both before either saw the other's): the older keeps the
    name, and the other is refused, so the two are never both refused.

    Raises:
        ActorTakenError: naming the XR that has the name, and its Deployment.
    """
    ours: tuple[str, str] | None = None
    others: list[tuple[str, str, str]] = []
    for body in objects or ():
        manifest = value_at(body, ("spec", "forProvider", "manifest"))
        namespace, name, labels = _labels(manifest)
        owner = labels.get(COMPOSITE_LABEL)
        if namespace != xr.namespace or labels.get(ACTOR_LABEL) != actor:
            continue
        if not isinstance(owner, str) or not owner:
            continue
        age = (_created(body), owner)
        if owner == xr.name:
            ours = age if ours is None else min(ours, age)
        else:
            others.append((*age, name))
    for created, owner, name in sorted(others):
        if ours is None or (created, owner) < ours:
            raise _taken(actor, xr.namespace, owner, name)


def refuse_if_queue_taken(
    xr: Composite,
    actor: str,
    own: Sequence[Any] | None,
    namesakes: Mapping[tuple[str, str], Sequence[Any] | None],
    broker: Mapping[str, str],
) -> None:
    """Refuse the actor when an older actor of another namespace has its queue.

    `own` holds what was fetched of the actor's own Deployments; `namesakes`, for each
    (namespace, actor) whose queue bears the same name, what was fetched of theirs;
    `broker`, the sidecar env that says where the actor's queue is. A namesake's queue
    is the actor's only where its sidecar's says the same: on another transport,
    region, project or broker it is another queue of the same name.

    Raises:
        ActorTakenError: naming the actor, namespace and XR that have the queue.
    """
    ours = _age(xr.namespace, actor, xr.name, own)
    for (namespace, other), deployments in namesakes.items():
        for body in deployments or ():
            found_namespace, name, labels = _labels(body)
            owner = labels.get(COMPOSITE_LABEL)
            if (
                found_namespace != namespace
                or labels.get(ACTOR_LABEL) != other
                or not isinstance(owner, str)
                or not owner
                or any(_sidecar_env(body).get(key, "") != value for key, value in broker.items())
            ):
                continue
            if ours is not None and ours < (_created(body), namespace):
                continue  # ours is the older: the other actor is the one refused
            raise ActorTakenError(
                f"invalid actor spec: actor: the queue {queues.queue_name(xr.namespace, actor)} is "
                f"the queue of "
                f'actor "{other}" in namespace "{namespace}" already (XR "{owner}", its '
                f"Deployment {namespace}/{name}): a queue's name cannot tell a namespace from an "
                "actor, and the two would share it; choose another spec.actor",
                path="actor",
            )


def _age(namespace: str, actor: str, xr: str, own: Sequence[Any] | None) -> tuple[str, str] | None:
    """When the actor's own Deployment was made, and its namespace (None: there is none yet).

    One without the XR label (rendered before the function set it) is its own too:
    refuse_if_taken has found no other XR's of the name.
    """
    for body in own or ():
        found_namespace, _, labels = _labels(body)
        if (
            found_namespace == namespace
            and labels.get(ACTOR_LABEL) == actor
            and labels.get(COMPOSITE_LABEL) in (xr, None)
        ):
            return _created(body), namespace
    return None


def _sidecar_env(body: Any) -> dict[str, str]:
    """The plain values of a Deployment's Asya sidecar's env."""
    containers = value_at(body, ("spec", "template", "spec", "containers"))
    for container in containers if isinstance(containers, list) else ():
        if isinstance(container, MAP) and container.get("name") == SIDECAR:
            env = container.get("env")
            return {
                str(item.get("name")): str(item.get("value", ""))
                for item in (env if isinstance(env, list) else ())
                if isinstance(item, MAP)
            }
    return {}


def _created(body: Any) -> str:
    """A Deployment's creationTimestamp (RFC 3339, which sorts as text); '' when unknown."""
    created = value_at(body, ("metadata", "creationTimestamp"))
    return created if isinstance(created, str) else ""
