"""The sidecar's retries and timeouts in the AsyncActor spec: policies, the rules choosing them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from function import durations
from function.models.spec_base import SpecSection


class Policy(SpecSection):
    """A retry policy of the sidecar."""

    max_attempts: int | None = Field(None, ge=1)
    backoff: Literal["constant", "linear", "exponential"] | None = None
    initial_delay: str | None = None
    max_interval: str | None = None
    max_duration: str | None = None
    jitter: bool | None = None
    on_exhausted: list[str] | None = None


class Rule(SpecSection):
    """Which errors a policy applies to."""

    errors: list[str] = Field(min_length=1)
    policy: str = Field(min_length=1)


class Resiliency(SpecSection):
    """Retries and timeouts applied by the sidecar."""

    policies: dict[str, Policy] = Field(
        default_factory=dict,
        description='Retry policies by name; "default" applies to unmatched errors.',
    )
    rules: list[Rule] = Field(default_factory=list)
    actor_timeout: str | None = None

    @field_validator("actor_timeout")
    @classmethod
    def _a_go_duration(cls, value: str | None) -> str | None:
        # The sidecar would refuse to start on anything else: refused here instead.
        if value is None:
            return value
        try:
            seconds = durations.go_duration_seconds(value)
        except durations.TooLongError:
            raise ValueError(
                f"must be within {durations.LONGEST} (about 292 years) either way"
            ) from None
        except ValueError:
            raise ValueError("must be a duration such as 30s, 5m or 1h30m") from None
        if seconds <= 0:
            raise ValueError("must be longer than zero")
        return value
