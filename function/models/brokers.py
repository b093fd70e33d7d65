"""The Input's sections for the brokers the function does not create: RabbitMQ and Pub/Sub."""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic import Field, field_validator

from function.models.input_base import KeyName, ObjectName, OptionalObjectName, Settings

# GCP's rule for a project id: 6-30 lowercase letters, digits and hyphens, starting
# with a letter and not ending with a hyphen (empty: not set).
GCP_PROJECT = r"^([a-z][a-z0-9-]{4,28}[a-z0-9])?$"
# Pub/Sub's longest ack deadline.
MAX_ACK_DEADLINE = 600
# How long a Subscription keeps messages, in seconds (the provider's CRD).
MIN_RETENTION, MAX_RETENTION = 600, 2678400


class RabbitMQSecretRef(Settings):
    """The Secret KEDA reads the broker's URL from."""

    name: ObjectName = "rabbitmq-keda-secret"
    host_key: KeyName = "host"


class RabbitMQKeda(Settings):
    """How KEDA reaches the broker."""

    secret_ref: RabbitMQSecretRef = Field(default_factory=RabbitMQSecretRef)


class RabbitMQ(Settings):
    """transport: rabbitmq. The platform runs the broker; the sidecar declares the queues."""

    url: str = Field("", description="The sidecar's ASYA_RABBITMQ_URL, when set.")
    creds_secret: OptionalObjectName = Field(
        "", description="A Secret the sidecar reads with envFrom, when set."
    )
    keda: RabbitMQKeda = Field(default_factory=RabbitMQKeda)


class PubSubSecretRef(Settings):
    """The Secret holding a service-account key, for keda.authProvider: secret."""

    name: ObjectName = "gcp-keda-secret"
    credentials_key: KeyName = "credentials.json"


class ExternalScaler(Settings):
    """A KEDA external scaler for Pub/Sub (such as asya-scaler-pubsub)."""

    address: str = Field("", description="host:port; when set, KEDA's external trigger is used.")


class PubSubKeda(Settings):
    """How KEDA reads a subscription's backlog."""

    secret_ref: PubSubSecretRef = Field(default_factory=PubSubSecretRef)
    external_scaler: ExternalScaler = Field(default_factory=ExternalScaler)


class PubSub(Settings):
    """transport: pubsub. One project for the managed resources, KEDA and the sidecar."""

    project: str = Field(
        "",
        pattern=GCP_PROJECT,
        description="The GCP project id; required with transport: pubsub.",
    )
    provider_config_name: ObjectName = Field("default", description="provider-gcp ProviderConfig.")
    endpoint: str = Field("", description="An emulator endpoint for the sidecar.")
    ack_deadline_seconds: int = Field(
        300,
        ge=10,
        le=MAX_ACK_DEADLINE,
        description="Unset: 300, or the actor's timeout up to Pub/Sub's 600 when longer.",
    )
    # The Subscription CRD's words: from ten minutes to 31 days, in seconds (fractions too).
    message_retention_duration: str = Field("604800s", pattern=r"^\d+(\.\d{1,9})?s$")
    keda: PubSubKeda = Field(default_factory=PubSubKeda)

    @field_validator("message_retention_duration")
    @classmethod
    def _within_what_pubsub_keeps(cls, value: str) -> str:
        if not MIN_RETENTION <= float(value.removesuffix("s")) <= MAX_RETENTION:
            raise ValueError(
                f"must be from {MIN_RETENTION}s (ten minutes) to {MAX_RETENTION}s (31 days)"
            )
        return value

    @field_validator("project", mode="before")
    @classmethod
    def _a_project_id(cls, value: Any) -> Any:
        if isinstance(value, str) and not re.match(GCP_PROJECT, value):
            raise ValueError(
                f"{value!r} is not a GCP project id (6-30 lowercase letters, digits and "
                "hyphens, starting with a letter, not ending with a hyphen)"
            )
        return value

    def ack_deadline_for(self, actor_timeout_seconds: float) -> int:
        """The subscription's ack deadline: the Input's, else long enough for the actor's calls."""
        if "ack_deadline_seconds" in self.model_fields_set:
            return self.ack_deadline_seconds
        return max(
            self.ack_deadline_seconds, min(MAX_ACK_DEADLINE, math.ceil(actor_timeout_seconds))
        )
