"""How long an actor's call may take, and what follows from it for its pods.

The sidecar reads `resiliency.actorTimeout` as a Go duration (time.ParseDuration:
`300ms`, `30s`, `5m`, `1h30m`) and waits 5 minutes when it is unset. A pod asked
to stop (a KEDA scale-in, a rollout, a node drain) has its grace period to finish
the message in flight and hand the result on; past it the kubelet kills it and the
message is processed again later. So the grace period follows the actor's timeout.
"""

from __future__ import annotations

import math
import re

# The sidecar's own default actor timeout.
DEFAULT_ACTOR_TIMEOUT_SECONDS = 300.0
# Time for the sidecar to send the result on and acknowledge the message after the
# handler returned.
HANDOFF_SECONDS = 30

_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "\u00b5s": 1e-6,
    "\u03bcs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([^0-9.]+)")


def go_duration_seconds(text: str) -> float:
    """Read a Go duration as time.ParseDuration does, in seconds.

    Raises:
        ValueError: when Go would refuse it.
    """
    sign, body = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(f"time: invalid duration {text!r}")
    total, at = 0.0, 0
    while at < len(body):
        part = _PART.match(body, at)
        if part is None or part.group(1) in ("", ".") or part.group(2) not in _UNITS:
            raise ValueError(f"time: invalid duration {text!r}")
        total += float(part.group(1)) * _UNITS[part.group(2)]
        at = part.end()
    return -total if sign == "-" else total


def actor_timeout_seconds(actor_timeout: str | None) -> float:
    """The actor's timeout in seconds: its own, else the sidecar's default."""
    if not actor_timeout:
        return DEFAULT_ACTOR_TIMEOUT_SECONDS
    return go_duration_seconds(actor_timeout)


def grace_period_seconds(actor_timeout_seconds: float) -> int:
    """The pod's termination grace period: the actor's timeout and the hand-off after it."""
    return math.ceil(actor_timeout_seconds) + HANDOFF_SECONDS
