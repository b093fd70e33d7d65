"""One name, one actor: an actor whose name another XR uses in its namespace is refused.

Two AsyncActors of one namespace with the same `spec.actor` would compose the same
queue (`asya-<namespace>-<actor>`) and the same Deployment (`<actor>`), and deleting
either would delete the other's queue and messages. The function asks Crossplane for
the Deployments labelled `asya.sh/actor=<actor>` in the namespace; one that carries
another XR's `crossplane.io/composite` label means the name is taken. A Deployment
without that label (rendered before the function set it, or not by Crossplane) proves
nothing either way and is passed over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from function.errors import ActorTakenError
from function.models.pod import ACTOR_LABEL
from function.models.xr import COMPOSITE_LABEL, Composite


def _labels(body: Any) -> tuple[str, str, Mapping[str, Any]]:
    metadata = body.get("metadata") if isinstance(body, Mapping) else None
    if not isinstance(metadata, Mapping):
        return "", "", {}
    labels = metadata.get("labels")
    return (
        str(metadata.get("namespace") or ""),
        str(metadata.get("name") or ""),
        labels if isinstance(labels, Mapping) else {},
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
            raise ActorTakenError(
                f'invalid actor spec: actor: "{actor}" is taken in namespace "{namespace}" by '
                f'XR "{owner}" (its Deployment {namespace}/{name}): both would compose the queue '
                f"asya-{namespace}-{actor} and the Deployment {actor}, and deleting either "
                "would delete the other's; choose another spec.actor",
                path="actor",
            )
