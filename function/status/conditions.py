"""One condition per aspect of the actor, on the XR and its claim, and an event when one changes.

`kubectl describe asyncactor` shows them beside `FlavorsResolved`. Reasons come from
the closed set below (the README lists it); messages are the status's own. An event
(a result Crossplane records) is written only when an aspect's status or reason
differs from the condition the XR already carries: not on every call. An aspect the
XR carries no condition of yet (its first reconcile, or an XR written before these
conditions) has an event only for a problem. Waiting and replicas starting (a scale-up)
are never events, nor is getting well from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

QUEUE = "QueueReady"
AUTOSCALER = "AutoscalerReady"
WORKLOAD = "WorkloadAvailable"

# Every reason an aspect's condition can carry, by aspect.
REASONS: dict[str, tuple[str, ...]] = {
    QUEUE: ("Ready", "Waiting", "ApplyFailed"),
    AUTOSCALER: ("Ready", "Disabled", "Paused", "Waiting", "ApplyFailed", "Refused", "Degraded"),
    WORKLOAD: (
        "Available",
        "Waiting",
        "ApplyFailed",
        "Unavailable",
        "PodsFailing",
        "PodsOOMKilled",
        "PodsUnschedulable",
        "PodsRefused",
        "DeploymentNotAccepted",
    ),
}


@dataclass(frozen=True)
class Aspect:
    """One aspect's condition."""

    type: str
    ok: bool
    reason: str
    message: str

    def __post_init__(self) -> None:
        """Hold every reason to the closed set."""
        if self.reason not in REASONS[self.type]:
            raise ValueError(f"{self.reason!r} is not a reason of {self.type}")


# What an actor goes through when nothing is wrong: being created, and replicas starting
# (a scale-up makes a Deployment unavailable for a while). Never news on their own.
QUIET = frozenset({"Waiting", "Unavailable"})


def changed(aspects: tuple[Aspect, ...], previous: Mapping[str, tuple[str, str]]) -> list[Aspect]:
    """The aspects to say an event for, given the XR's conditions (type → status, reason).

    A problem is news when it appears or changes; getting well, when it ends a problem.
    Waiting and starting replicas are not, nor is getting well from them.
    """
    found = []
    for aspect in aspects:
        before = previous.get(aspect.type)
        now = ("True" if aspect.ok else "False", aspect.reason)
        if before == now:
            continue
        if aspect.ok:
            if before is not None and before[0] == "False" and before[1] not in QUIET:
                found.append(aspect)
        elif aspect.reason not in QUIET:
            found.append(aspect)
    return found
