"""The function's Input: cluster-wide settings a platform team sets on the Composition step."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final, Literal

from pydantic import (
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from function import durations
from function.errors import InputError
from function.models import messages, pod
from function.models.aws import AWS, IAM_ROLE_ARN, IRSA, SQS
from function.models.brokers import PubSub, RabbitMQ
from function.models.input_base import (
    AbsolutePath,
    Image,
    KeyName,
    ObjectName,
    OptionalObjectName,
    Settings,
)
from function.models.security import RESTRICTED_VOLUMES, PodSecurityLevel, VolumeKind

API_VERSION: Final = "asya.fn.crossplane.io/v1beta1"
# A duration as the PodMonitor CRD takes it.
PROMETHEUS_DURATION = (
    r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"
)
KIND: Final = "Input"


class KedaSecretRef(Settings):
    """The Secret KEDA reads AWS keys from in secret mode."""

    name: OptionalObjectName = ""
    access_key_id_key: KeyName = "AWS_ACCESS_KEY_ID"
    secret_access_key_key: KeyName = "AWS_SECRET_ACCESS_KEY"  # noqa: S105  # A key's name.


class KedaAWS(Settings):
    """Which AWS identity KEDA reads queue lengths with (podIdentity mode).

    KEDA's `identityOwner: keda` is its operator's own role; `workload` is the role of
    the scaled workload's ServiceAccount (IRSA); `roleArn` a role KEDA's operator
    assumes. The two are mutually exclusive (KEDA's CRD).
    """

    identity_owner: Literal["keda", "workload"] = Field(
        "keda", description="keda or workload; not with roleArn."
    )
    role_arn: str = Field(
        "",
        pattern=IAM_ROLE_ARN,
        description="An IAM role KEDA's operator assumes; not with identityOwner.",
    )

    @model_validator(mode="after")
    def _one_of_them(self) -> KedaAWS:
        if "identity_owner" in self.model_fields_set and self.role_arn:
            raise ValueError("set keda.aws.identityOwner or keda.aws.roleArn, not both")
        return self

    def pod_identity(self) -> dict[str, str]:
        """KEDA's podIdentity for AWS, saying whose identity it is."""
        if self.role_arn:
            return {"provider": "aws", "roleArn": self.role_arn}
        return {"provider": "aws", "identityOwner": self.identity_owner}


class Keda(Settings):
    """How KEDA authenticates to read queue metrics."""

    auth_provider: Literal["podIdentity", "secret"] = "podIdentity"
    secret_ref: KedaSecretRef = Field(default_factory=KedaSecretRef)
    aws: KedaAWS = Field(default_factory=KedaAWS)


class Tracing(Settings):
    """OpenTelemetry export defaults for the sidecar."""

    endpoint: str = ""
    protocol: str = ""


class Sidecar(Settings):
    """The Asya sidecar and how the runtime is wired to it."""

    image: Image = "ghcr.io/deliveryhero/asya-sidecar:latest"
    image_pull_policy: pod.PullPolicy = "IfNotPresent"
    socket_dir: AbsolutePath = "/var/run/asya"
    runtime_config_map: ObjectName = "asya-runtime"
    runtime_mount_path: AbsolutePath = "/opt/asya/asya_runtime.py"
    aws_creds_secret: OptionalObjectName = ""
    sqs_endpoint: str = ""
    tracing: Tracing = Field(default_factory=Tracing)

    @model_validator(mode="after")
    def _mounts_apart(self) -> Sidecar:
        # Each is a mount of the runtime container, where a path may be mounted once.
        mounts = {
            "the pod's /tmp": pod.TMP_PATH,
            "the state proxies' sockets": pod.STATE_SOCKETS,
            "sidecar.socketDir": self.socket_dir,
            "sidecar.runtimeMountPath": self.runtime_mount_path,
        }
        seen: dict[str, str] = {}
        for what, path in mounts.items():
            normal = pod.normal_path(path)
            if normal in seen:
                raise ValueError(f"{what} is {path}, where {seen[normal]} is mounted already")
            seen[normal] = what
        return self


class Metrics(Settings):
    """Where the sidecar serves its metrics, and whether each actor gets a PodMonitor."""

    port: int = Field(
        pod.SIDECAR_METRICS_PORT, ge=1, le=65535, description="The sidecar's metrics port (:8080)."
    )
    pod_monitor: bool = Field(
        False,
        description="Compose a PodMonitor (monitoring.coreos.com/v1) per actor that scrapes "
        "its pods; needs the Prometheus Operator's CRDs.",
    )
    interval: str = Field(
        "15s",
        pattern=PROMETHEUS_DURATION,
        description="How often the PodMonitor scrapes (a Prometheus duration: 15s, 1m).",
    )


class Kubernetes(Settings):
    """provider-kubernetes settings for wrapped objects."""

    provider_config_name: ObjectName = "in-cluster"


class Input(Settings):
    """The Composition step's input; every field has a default, so an empty Input works."""

    api_version: Literal["asya.fn.crossplane.io/v1beta1"] = Field(API_VERSION, alias="apiVersion")
    kind: Literal["Input"] = KIND
    transport: Literal["sqs", "rabbitmq", "pubsub"] = "sqs"
    aws: AWS = Field(default_factory=AWS)
    sqs: SQS = Field(default_factory=SQS)
    irsa: IRSA = Field(default_factory=IRSA)
    keda: Keda = Field(default_factory=Keda)
    sidecar: Sidecar = Field(default_factory=Sidecar)
    kubernetes: Kubernetes = Field(default_factory=Kubernetes)
    metrics: Metrics = Field(default_factory=Metrics)
    rabbitmq: RabbitMQ = Field(default_factory=RabbitMQ)
    pubsub: PubSub = Field(default_factory=PubSub)
    namespaced_flavors: Literal["Auto", "Enabled", "Disabled"] = Field(
        "Auto",
        description="Flavors from ConfigMaps in the actor's namespace: Auto turns them on "
        "on Crossplane 2 (capabilities advertised, or a namespaced XR).",
    )
    ttl: str = Field("60s", description="How long Crossplane may cache the response.")
    pod_security: PodSecurityLevel = Field(
        "baseline",
        description="The Pod Security Standard every actor's pod meets, the platform's "
        "containers included: baseline, restricted, or privileged (no check).",
    )
    allowed_volumes: tuple[VolumeKind, ...] = Field(
        RESTRICTED_VOLUMES,
        description="The volume kinds an actor or flavor may use; by default those Pod "
        "Security restricted permits. hostPath also needs podSecurity: privileged.",
    )

    @field_validator("allowed_volumes", mode="before")
    @classmethod
    def _volumes_as_listed(cls, value: Any) -> Any:
        # YAML gives a list; the Input is immutable (and hashable), so it keeps a tuple.
        return tuple(value) if isinstance(value, list) else value

    @field_validator("ttl")
    @classmethod
    def _ttl_is_a_duration(cls, value: str) -> str:
        # Read as Go reads it; within Go's int64 of nanoseconds, so within protobuf's Duration.
        try:
            seconds = durations.go_duration_seconds(value)
        except durations.TooLongError:
            raise ValueError(f"must be within {durations.LONGEST}") from None
        except ValueError:
            raise ValueError("must be a duration such as 60s, 5m or 1h30m") from None
        if seconds < 0:
            raise ValueError("must not be negative")
        return value

    @model_validator(mode="after")
    def _what_the_transport_needs(self) -> Input:
        if (
            self.transport == "sqs"
            and self.keda.auth_provider == "secret"
            and not self.keda.secret_ref.name
        ):
            raise ValueError("keda.secretRef.name is required with keda.authProvider: secret")
        if (
            self.transport == "sqs"
            and self.keda.auth_provider == "podIdentity"
            and self.keda.aws.identity_owner == "workload"
            and not self.irsa.enabled
        ):
            raise ValueError(
                "keda.aws.identityOwner: workload needs irsa.enabled: KEDA then reads the "
                "queue with the role of the actor's ServiceAccount, which only IRSA gives it"
            )
        # Every container of the pod but a sidecar given AWS keys assumes the role (the
        # runtime, a state proxy's connector, the user's own), and KEDA may.
        if (
            self.transport == "sqs"
            and self.irsa.enabled
            and not self.irsa.role_arn
            and "ACCOUNT_ID" in self.irsa.role_arn_pattern
            and not self.aws.account_id
        ):
            raise ValueError(
                "irsa.enabled needs aws.accountId (the role ARN pattern's ACCOUNT_ID) or "
                "irsa.roleArn: the ServiceAccount would name no role"
            )
        if self.transport == "pubsub" and not self.pubsub.project:
            raise ValueError("pubsub.project is required with transport: pubsub")
        return self

    def broker(self) -> dict[str, str]:
        """The sidecar's env that says which broker holds the actor's queue ('' for unset).

        Two actors whose queues bear one name share a queue only where these agree.
        """
        where = {
            "sqs": {
                "ASYA_AWS_REGION": self.aws.region,
                "ASYA_SQS_ENDPOINT": self.sidecar.sqs_endpoint,
            },
            "rabbitmq": {"ASYA_RABBITMQ_URL": self.rabbitmq.url},
            "pubsub": {
                "ASYA_PUBSUB_PROJECT_ID": self.pubsub.project,
                "ASYA_PUBSUB_ENDPOINT": self.pubsub.endpoint,
            },
        }
        return {"ASYA_TRANSPORT": self.transport, **where[self.transport]}

    def ttl_delta(self) -> timedelta:
        """Return the response TTL as a timedelta."""
        return timedelta(seconds=durations.go_duration_seconds(self.ttl))


def parse(data: dict[str, Any]) -> Input:
    """Validate a step's input into an Input.

    Args:
        data: the step's `input` block as a plain dict (empty when there is none).

    Returns:
        The validated Input with defaults filled in.

    Raises:
        InputError: naming every unknown or invalid key, with its path.
    """
    try:
        return Input.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"invalid function input: {describe(exc)}") from None


def describe(exc: ValidationError) -> str:
    """Render pydantic errors as `path: message` joined by semicolons."""
    parts = []
    for error in exc.errors(include_url=False):
        path = ".".join(str(p) for p in error["loc"])
        message = messages.in_words(error)
        # Checks across sections name their own paths.
        parts.append(f"{path}: {message}" if path else message)
    return "; ".join(parts)
