"""Timeouts that contradict the actor's: each a warning naming both values and who set them.

What governs a message in flight, per transport (README, "Timeouts"):

- SQS: the sidecar receives with its own visibility timeout, `ASYA_SQS_VISIBILITY_TIMEOUT`
  (seconds) or else twice the actor's timeout; the queue's `visibilityTimeoutSeconds`
  is only the default for other consumers. SQS allows at most 12 hours.
- Pub/Sub: the sidecar pulls and acknowledges without extending the lease, so the
  subscription's `ackDeadlineSeconds` governs: past it, the message is delivered again
  while the first pod still works on it. Unless the Input sets it, the function sets it
  to the actor's timeout, up to Pub/Sub's longest (600 s).
- RabbitMQ: a delivery stays unacknowledged until the sidecar acks it; the broker's
  `consumer_timeout` (30 minutes by default) closes a channel holding one longer.

The pod's grace period follows the actor's timeout (models.timeouts), so it never
contradicts it.
"""

from __future__ import annotations

from function.models.input import Input
from function.resolve.layers import Resolution
from function.resolve.paths import Item, Path
from function.resolve.provenance import DEFAULT

SQS_VISIBILITY_ENV = "ASYA_SQS_VISIBILITY_TIMEOUT"
SQS_MAX_VISIBILITY_SECONDS = 43200
RABBITMQ_CONSUMER_TIMEOUT_SECONDS = 1800
ACTOR_TIMEOUT: Path = ("resiliency", "actorTimeout")


def _seconds(value: float) -> str:
    return f"{value:g}s"


def _actor_timeout(resolution: Resolution) -> tuple[float, str]:
    """The actor's timeout and how messages name it, with who set it."""
    resiliency = resolution.spec.resiliency
    text = resiliency.actor_timeout if resiliency else None
    seconds = resolution.spec.actor_timeout_seconds
    if not text:
        return seconds, f"the actor timeout ({_seconds(seconds)}, the sidecar's default)"
    origin = resolution.provenance.source(ACTOR_TIMEOUT)
    return seconds, f"the actor timeout {text} (from {origin})"


def _sidecar_visibility(resolution: Resolution) -> tuple[int, str] | None:
    """The sidecar's own SQS visibility timeout, when `sidecar.env` sets it as a number."""
    sidecar = resolution.spec.sidecar
    for item in sidecar.env if sidecar else []:
        if item.name == SQS_VISIBILITY_ENV and item.value and item.value.strip().isdigit():
            origin = resolution.provenance.source(("sidecar", "env", Item(SQS_VISIBILITY_ENV)))
            where = f" (from {origin})" if origin != DEFAULT else ""
            return int(item.value), f"{SQS_VISIBILITY_ENV}={item.value}{where}"
    return None


def contradictions(resolution: Resolution, settings: Input) -> list[str]:
    """Every timeout shorter than the actor's, or a limit it passes, said once each."""
    seconds, actor = _actor_timeout(resolution)
    found = []
    if settings.transport == "sqs":
        visibility = _sidecar_visibility(resolution)
        if visibility is not None and visibility[0] < seconds:
            found.append(
                f"{visibility[1]} is shorter than {actor}: SQS delivers a message again to "
                "another pod while the first still works on it; leave it unset (twice the "
                "actor timeout) or raise it"
            )
        elif visibility is None and 2 * seconds > SQS_MAX_VISIBILITY_SECONDS:
            found.append(
                f"{actor} is longer than 6h: the sidecar asks SQS to hide a message for twice "
                "that, and SQS allows at most 12h"
            )
    elif settings.transport == "pubsub":
        deadline = settings.pubsub.ack_deadline_for(seconds)
        if deadline < seconds:
            set_by = (
                "from the Input"
                if "ack_deadline_seconds" in settings.pubsub.model_fields_set
                else "Pub/Sub's longest"
            )
            found.append(
                f"the subscription's ackDeadlineSeconds {deadline} ({set_by}) is shorter "
                f"than {actor}: Pub/Sub delivers a message again to another pod while the "
                "first still works on it"
            )
    elif seconds > RABBITMQ_CONSUMER_TIMEOUT_SECONDS:
        found.append(
            f"{actor} is longer than RabbitMQ's default consumer_timeout (30m): the broker "
            "closes the channel and delivers the message again unless the platform raised it"
        )
    return found
