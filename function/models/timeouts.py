"""How long an actor's call may take, and what follows from it for its pods.

The sidecar reads `resiliency.actorTimeout` as a Go duration (time.ParseDuration:
`300ms`, `30s`, `5m`, `1h30m`) and waits 5 minutes when it is unset. A pod asked
to stop (a KEDA scale-in, a rollout, a node drain) has its grace period to finish
the message in flight and hand the result on; past it the kubelet kills it and the
message is processed again later. So the grace period follows the actor's timeout.
"""

from __future__ import annotations

import math

from function import durations

# The sidecar's own default actor timeout.
DEFAULT_ACTOR_TIMEOUT_SECONDS = 300.0
# Time for the sidecar to send the result on and acknowledge the message after the
# handler returned.
HANDOFF_SECONDS = 30


def actor_timeout_seconds(actor_timeout: str | None) -> float:
    """The actor's timeout in seconds: its own, else the sidecar's default."""
    if not actor_timeout:
        return DEFAULT_ACTOR_TIMEOUT_SECONDS
    return durations.go_duration_seconds(actor_timeout)


def grace_period_seconds(actor_timeout_seconds: float) -> int:
    """The pod's termination grace period: the actor's timeout and the hand-off after it."""
    return math.ceil(actor_timeout_seconds) + HANDOFF_SECONDS
