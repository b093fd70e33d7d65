"""The transports a Composition's Input may choose, by name."""

from __future__ import annotations

from function.compose.render.pubsub import PubSub
from function.compose.render.rabbitmq import RabbitMQ
from function.compose.render.sqs import SQS
from function.compose.render.transport import Transport
from function.models.plan import Plan

TRANSPORTS: dict[str, Transport] = {t.name: t for t in (SQS(), RabbitMQ(), PubSub())}


def of(plan: Plan) -> Transport:
    """Return the transport the Input chose."""
    return TRANSPORTS[plan.settings.transport]
