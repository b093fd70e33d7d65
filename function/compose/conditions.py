"""One condition per aspect of the actor, on the XR and its claim, and an event when one changes.

`kubectl describe asyncactor` shows them beside `FlavorsResolved`. Reasons come from
the closed set below (the README lists it); messages are the status's own. An event
(a result Crossplane records) is written only when an aspect's status or reason
differs from the condition the XR already carries: not on every call. An aspect the
XR carries no condition of yet (its first reconcile, or an XR written before these
conditions) has an event only for a problem: not for waiting or being ready.
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
        "PodsUnschedulable",
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


# What an actor being created goes through: no event on first sight.
QUIET_FIRST = frozenset({"Waiting", "Ready", "Available", "Disabled", "Unavailable"})


def changed(aspects: tuple[Aspect, ...], previous: Mapping[str, tuple[str, str]]) -> list[Aspect]:
    """The aspects to say an event for, given the XR's conditions (type → status, reason)."""
    found = []
    for aspect in aspects:
        before = previous.get(aspect.type)
        if before is None:
            if aspect.reason not in QUIET_FIRST:
                found.append(aspect)
        elif before != ("True" if aspect.ok else "False", aspect.reason):
            found.append(aspect)
    return found
