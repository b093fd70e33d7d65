"""The transports a Composition's Input may choose, by name."""

from __future__ import annotations

from function.compose.renderers.pubsub import PubSub
from function.compose.renderers.rabbitmq import RabbitMQ
from function.compose.renderers.sqs import SQS
from function.compose.renderers.transport import Transport
from function.models.plan import Plan

TRANSPORTS: dict[str, Transport] = {t.name: t for t in (SQS(), RabbitMQ(), PubSub())}


def of(plan: Plan) -> Transport:
    """Return the transport the Input chose."""
    return TRANSPORTS[plan.settings.transport]
