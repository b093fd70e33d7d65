"""The Input's AWS sections: the account and region, the SQS queues, and IRSA's role."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from function.models.input_base import ObjectName, Settings, object_name

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
