"""The RabbitMQ transport: no composed queue (the sidecar declares it), the rabbitmq trigger.

Names come from `spec.actor`, as for SQS (differs from upstream, whose RabbitMQ
composition reads the claim name and can route to a queue nobody consumes).
"""

from __future__ import annotations

from typing import Any

from function.compose.renderers import meta
from function.compose.renderers.transport import Credentials, QueueState
from function.models.input import Input
from function.models.plan import Plan
from function.models.requirement import Requirement
from function.models.xr import Composite


class RabbitMQ:
    """A RabbitMQ broker the platform runs; the sidecar declares and binds the queue over AMQP."""

    name = "rabbitmq"

    def wanted(self, settings: Input, xr: Composite) -> list[Requirement]:
        """Nothing: RabbitMQ needs nothing fetched."""
        return []

    def refuse(self, plan: Plan) -> None:
        """Nothing: every queue name the actor's spec allows is one RabbitMQ takes."""

    def resources(self, plan: Plan) -> dict[str, dict[str, Any]]:
        """Nothing: the queue is declared by the sidecar when it starts."""
        return {}

    def readiness(self, plan: Plan, queue: QueueState) -> dict[str, bool]:
        """No composed resources of its own."""
        return {}

    def queue(self, plan: Plan) -> QueueState:
        """Always ready: the sidecar declares the queue (durable) before it consumes."""
        return QueueState(True, "", identifier=plan.queue_name)

    def scaler_waits_for(self, plan: Plan) -> str:
        """Nothing: the trigger names the queue, which needs no cloud resource first."""
        return ""

    def authentication(self, plan: Plan) -> dict[str, Any]:
        """The broker's URL (`host`) from the Secret the platform provides."""
        ref = plan.settings.rabbitmq.keda.secret_ref
        return {"secretTargetRef": [{"parameter": "host", "name": ref.name, "key": ref.host_key}]}

    def trigger(self, plan: Plan, authentication: str | None) -> dict[str, Any]:
        """Scale on the queue's length."""
        metadata = {
            "queueName": plan.queue_name,
            "mode": "QueueLength",
            "value": str(plan.spec.scaling.queue_length),
        }
        return meta.trigger("rabbitmq", metadata, authentication)

    def sidecar_env(self, plan: Plan) -> list[dict[str, Any]]:
        """The transport, and the broker URL when the Input sets one."""
        env = [{"name": "ASYA_TRANSPORT", "value": self.name}]
        if plan.settings.rabbitmq.url:
            env.append({"name": "ASYA_RABBITMQ_URL", "value": plan.settings.rabbitmq.url})
        return env

    def credentials(self, plan: Plan) -> Credentials:
        """Broker credentials from `rabbitmq.credsSecret`, when set; no cloud identity."""
        return Credentials(plan.settings.rabbitmq.creds_secret)
