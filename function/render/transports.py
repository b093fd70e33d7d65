"""The transports a Composition's Input may choose, by name."""

from __future__ import annotations

from function.models.plan import Plan
from function.render.pubsub import PubSub
from function.render.rabbitmq import RabbitMQ
from function.render.sqs import SQS
from function.render.transport import Transport

TRANSPORTS: dict[str, Transport] = {t.name: t for t in (SQS(), RabbitMQ(), PubSub())}


def of(plan: Plan) -> Transport:
    """Return the transport the Input chose."""
    return TRANSPORTS[plan.settings.transport]
