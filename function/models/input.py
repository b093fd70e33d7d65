"""The function's Input: cluster-wide settings a platform team sets on the Composition step."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any, Final, Literal

from pydantic import (
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from function import durations
from function.errors import InputError
from function.models import messages, pod
from function.models.brokers import PubSub, RabbitMQ
from function.models.settings import (
    AbsolutePath,
    Image,
    KeyName,
    ObjectName,
    OptionalObjectName,
    Settings,
    object_name,
)

API_VERSION: Final = "asya.fn.crossplane.io/v1beta1"
KIND: Final = "Input"

# One pattern each, for the validator's message and the Input CRD's schema alike.
REGION = r"^[a-z]{2}(-[a-z]+)+-\d+$"
ACCOUNT_ID = r"^(\d{12})?$"
# SQS's tags: of these characters (Unicode letters and digits), not in AWS's own prefix.
AWS_PREFIX = "aws:"
_TAG_TEXT = re.compile(r"[\w\s.:/=+\-@]*")
_TAG_CHARACTERS = "letters, digits, spaces and _.:/=+-@"
# An IAM role's ARN, in any AWS partition (or empty: none).
IAM_ROLE_ARN = r"^(arn:aws[a-z-]*:iam::\d{12}:role/.+)?$"
_IAM_ROLE_ARN = re.compile(IAM_ROLE_ARN)
_AWS_PATTERNS = {
    "region": (re.compile(REGION), "an AWS region (such as us-east-1)"),
    "account_id": (re.compile(ACCOUNT_ID), "an AWS account id (12 digits)"),
}


class AWS(Settings):
    """Where and how queues are created."""

    region: str = Field(
        "us-east-1",
        pattern=REGION,
        description="AWS region of the queues, such as us-east-1.",
    )
    account_id: str = Field(
        "",
        pattern=ACCOUNT_ID,
        description="The 12-digit AWS account id. When set: DLQ redrive policy and ACCOUNT_ID in role ARNs.",
    )

    @field_validator("region", "account_id", mode="before")
    @classmethod
    def _matches(cls, value: Any, info: ValidationInfo) -> Any:
        pattern, what = _AWS_PATTERNS[str(info.field_name)]
        if isinstance(value, str) and not pattern.match(value):
            raise ValueError(f"{value!r} is not {what}")
        return value

    provider_config_name: ObjectName = Field("default", description="provider-aws ProviderConfig.")
    tags: dict[str, str] = Field(default_factory=dict, description="Extra tags on every queue.")

    @field_validator("tags")
    @classmethod
    def _tags_sqs_takes(cls, tags: dict[str, str]) -> dict[str, str]:
        # SQS's tag rules (the Developer Guide's quotas): `aws:` is AWS's own, in keys and values.
        for key, value in tags.items():
            if not _TAG_TEXT.fullmatch(key) or not 1 <= len(key) <= 128:
                raise ValueError(f"{key!r} is no tag key: 1 to 128 of {_TAG_CHARACTERS}")
            if not _TAG_TEXT.fullmatch(value) or len(value) > 256:
                raise ValueError(f"the value of {key!r} is not at most 256 of {_TAG_CHARACTERS}")
            if key.startswith(AWS_PREFIX) or value.startswith(AWS_PREFIX):
                raise ValueError(f"the tag {key!r} uses AWS's own prefix {AWS_PREFIX}")
        return tags


class DLQ(Settings):
    """Dead-letter redrive settings."""

    max_receive_count: int = Field(3, ge=1, le=1000)  # SQS's own limit


class SQS(Settings):
    """Queue attributes."""

    # SQS's own limits: 0 s to 12 hours, 60 s to 14 days.
    visibility_timeout_seconds: int = Field(30, ge=0, le=43200)
    message_retention_seconds: int = Field(345600, ge=60, le=1209600)
    receive_wait_time_seconds: int = Field(20, ge=0, le=20)
    dlq: DLQ = Field(default_factory=DLQ)


class IRSA(Settings):
    """IAM Roles for Service Accounts."""

    enabled: bool = False
    service_account_name: str = "asya-actors"
    role_arn: str = Field("", description="Used as is when set.")
    role_arn_pattern: str = "arn:aws:iam::ACCOUNT_ID:role/asya-actors-{namespace}"

    # Read only with IRSA on: unused, they may be anything.
    @field_validator("role_arn")
    @classmethod
    def _an_iam_role(cls, arn: str, info: ValidationInfo) -> str:
        if info.data.get("enabled") and not _IAM_ROLE_ARN.fullmatch(arn):
            raise ValueError("not an IAM role's ARN (arn:aws:iam::<account>:role/<name>)")
        return arn

    @field_validator("role_arn_pattern")
    @classmethod
    def _only_known_placeholders(cls, pattern: str, info: ValidationInfo) -> str:
        if info.data.get("enabled") and "{" in pattern.replace("{namespace}", ""):
            raise ValueError("fills in only {namespace} and ACCOUNT_ID")
        return pattern

    @field_validator("service_account_name")
    @classmethod
    def _a_name_when_used(cls, name: str, info: ValidationInfo) -> str:
        # Read only with IRSA on (the v1 form's shared ServiceAccount): unused, it may be anything.
        if info.data.get("enabled"):
            object_name(name)
        return name


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
    image_pull_policy: Literal["Always", "IfNotPresent", "Never"] = "IfNotPresent"
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
    rabbitmq: RabbitMQ = Field(default_factory=RabbitMQ)
    pubsub: PubSub = Field(default_factory=PubSub)
    namespaced_flavors: Literal["Auto", "Enabled", "Disabled"] = Field(
        "Auto",
        description="Flavors from ConfigMaps in the actor's namespace: Auto turns them on "
        "on Crossplane 2 (capabilities advertised, or a namespaced XR).",
    )
    ttl: str = Field("60s", description="How long Crossplane may cache the response.")

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
        message = messages.said(error)
        # Checks across sections name their own paths.
        parts.append(f"{path}: {message}" if path else message)
    return "; ".join(parts)
