"""The Google Pub/Sub transport: a Topic and a Subscription, the gcp-pubsub (or external) trigger.

One project setting (`pubsub.project`) feeds the managed resources, KEDA and the
sidecar, and an empty one is refused (differs from upstream, which has two
settings that default to empty and renders `projects//subscriptions/...`).
"""

from __future__ import annotations

from typing import Any

from function.compose.renderers import meta
from function.compose.renderers.transport import Credentials, QueueState
from function.models import observed
from function.models.input import Input
from function.models.plan import Plan
from function.models.requirement import Requirement
from function.models.xr import Composite

TOPIC = "pubsub-topic"
SUBSCRIPTION = "pubsub-subscription"


def subscription_path(plan: Plan) -> str:
    """`projects/<project>/subscriptions/asya-<ns>-<actor>`: how KEDA and GCP name it."""
    return f"projects/{plan.settings.pubsub.project}/subscriptions/{plan.queue_name}"


def _ready(plan: Plan, name: str) -> bool:
    return observed.is_true(observed.manifest_status(plan.observed.get(name)), "Ready")


class PubSub:
    """Google Cloud Pub/Sub, through provider-upjet-gcp."""

    name = "pubsub"

    def _managed(
        self, plan: Plan, kind: str, component: str, for_provider: dict[str, Any]
    ) -> dict[str, Any]:
        settings = plan.settings.pubsub
        return meta.managed(
            plan,
            kind,
            ("pubsub.gcp.upbound.io/v1beta2", "pubsub.gcp.m.upbound.io/v1beta1"),
            settings.provider_config_name,
            {
                "annotations": {meta.EXTERNAL_NAME: plan.queue_name},
                "labels": meta.labels(plan, component),
            },
            {"project": settings.project, **for_provider},
        )

    def wanted(self, settings: Input, xr: Composite) -> list[Requirement]:
        """Nothing: Google Pub/Sub needs nothing fetched."""
        return []

    def refuse(self, plan: Plan) -> None:
        """Nothing: every queue name the actor's spec allows is one Google Pub/Sub takes."""

    def resources(self, plan: Plan) -> dict[str, dict[str, Any]]:
        """The Topic, and the Subscription that selects it by controller reference."""
        settings = plan.settings.pubsub
        return {
            TOPIC: self._managed(plan, "Topic", "topic", {}),
            SUBSCRIPTION: self._managed(
                plan,
                "Subscription",
                "subscription",
                {
                    "topicSelector": {"matchControllerRef": True},
                    "ackDeadlineSeconds": settings.ack_deadline_for(
                        plan.spec.actor_timeout_seconds
                    ),
                    "messageRetentionDuration": settings.message_retention_duration,
                    # An empty ttl: the subscription never expires.
                    "expirationPolicy": {"ttl": ""},
                },
            ),
        }

    def readiness(self, plan: Plan, queue: QueueState) -> dict[str, bool]:
        """Each managed resource is ready when it says Ready=True."""
        return {TOPIC: _ready(plan, TOPIC), SUBSCRIPTION: _ready(plan, SUBSCRIPTION)}

    def queue(self, plan: Plan) -> QueueState:
        """Ready when both the Topic and the Subscription are Ready=True."""
        identifier = subscription_path(plan)
        for name, what in ((TOPIC, "topic"), (SUBSCRIPTION, "subscription")):
            body = plan.observed.get(name)
            if body is None:
                return QueueState(False, f"waiting for the {what} to be created", "", identifier)
            if failure := observed.apply_failure(body):
                return QueueState(False, f"{what} {failure}", "", identifier)
            status = observed.manifest_status(body)
            if not observed.is_true(status, "Ready"):
                found = observed.describe(observed.condition(status, "Ready"), "Ready")
                return QueueState(
                    False, f"waiting for the {what} to become ready: {found}", "", identifier
                )
        return QueueState(True, "", "", identifier)

    def scaler_waits_for(self, plan: Plan) -> str:
        """The subscription, until it is ready once; an existing ScaledObject is kept."""
        if _ready(plan, SUBSCRIPTION) or meta.SCALED_OBJECT in plan.observed:
            return ""
        return "the subscription"

    def authentication(self, plan: Plan) -> dict[str, Any] | None:
        """Workload Identity or a key Secret; none for the external scaler."""
        settings = plan.settings.pubsub
        if settings.keda.external_scaler.address:
            return None
        if plan.settings.keda.auth_provider == "podIdentity":
            return {"podIdentity": {"provider": "gcp"}}
        ref = settings.keda.secret_ref
        return {
            "secretTargetRef": [
                {
                    "parameter": "GoogleApplicationCredentials",
                    "name": ref.name,
                    "key": ref.credentials_key,
                }
            ]
        }

    def trigger(self, plan: Plan, authentication: str | None) -> dict[str, Any]:
        """Scale on the subscription's backlog: KEDA's gcp-pubsub, or an external scaler."""
        value = str(plan.spec.scaling.queue_length)
        address = plan.settings.pubsub.keda.external_scaler.address
        if address:
            metadata = {
                "scalerAddress": address,
                "subscriptionName": subscription_path(plan),
                "targetValue": value,
            }
            return meta.trigger("external", metadata, None)
        metadata = {
            "subscriptionName": subscription_path(plan),
            "mode": "SubscriptionSize",
            "value": value,
        }
        return meta.trigger("gcp-pubsub", metadata, authentication)

    def sidecar_env(self, plan: Plan) -> list[dict[str, Any]]:
        """The transport, the project, and an emulator endpoint when set."""
        settings = plan.settings.pubsub
        env = [
            {"name": "ASYA_TRANSPORT", "value": self.name},
            {"name": "ASYA_PUBSUB_PROJECT_ID", "value": settings.project},
        ]
        if settings.endpoint:
            env.append({"name": "ASYA_PUBSUB_ENDPOINT", "value": settings.endpoint})
        return env

    def credentials(self, plan: Plan) -> Credentials:
        """Neither: the sidecar authenticates with Workload Identity (a key file cannot come from envFrom)."""
        return Credentials()
