"""KEDA autoscaling in the AsyncActor spec: counts, more triggers, a formula over them."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from function.models import crd_schema
from function.models.spec_base import SpecSection

_FORMULA_NEEDS_TARGET = "formula requires target"


class Advanced(SpecSection):
    """KEDA's advanced scaling options: a formula over the triggers and its target."""

    # The XRD refuses a formula without a target, even an empty one, as it always has;
    # the model takes an empty formula for none.
    model_config = ConfigDict(
        json_schema_extra=crd_schema.cel(
            "!has(self.formula) || has(self.target)", _FORMULA_NEEDS_TARGET
        )
    )

    restore_to_original_replica_count: bool | None = None
    formula: str | None = None
    target: str | None = None
    activation_target: str | None = None
    # KEDA's CRD takes these two for scalingModifiers (and its webhook refuses Utilization).
    metric_type: Literal["AverageValue", "Value"] | None = None

    @model_validator(mode="after")
    def _formula_needs_target(self) -> Advanced:
        if self.formula and self.target is None:
            raise ValueError(_FORMULA_NEEDS_TARGET)
        return self


# KEDA's ScaledObject holds its counts as int32 (keda.sh_scaledobjects.yaml).
INT32_MAX = 2**31 - 1


class AuthenticationRef(SpecSection):
    """The TriggerAuthentication (or ClusterTriggerAuthentication) a trigger uses."""

    name: str = Field(min_length=1)
    kind: Literal["TriggerAuthentication", "ClusterTriggerAuthentication"] | None = None


# The name of the trigger the function puts on the actor's queue, kept stable (the
# observed ScaledObject's is found by it).
QUEUE_TRIGGER = "queue"


class Trigger(SpecSection):
    """One more KEDA trigger, as KEDA's ScaledObject CRD takes it: its metadata are strings."""

    # The XRD keeps a trigger's unknown fields for the function to refuse by name, as
    # it always has (pruned, they would vanish without a word).
    model_config = ConfigDict(json_schema_extra=crd_schema.KEEP_UNKNOWN_FIELDS)

    type: str = Field(min_length=1)
    metadata: dict[str, str]
    name: str | None = None
    authentication_ref: AuthenticationRef | None = None
    metric_type: Literal["AverageValue", "Value", "Utilization"] | None = None
    use_cached_metrics: bool | None = None


class Scaling(SpecSection):
    """KEDA autoscaling; defaults come from the function's lowest layer."""

    enabled: bool = Field(
        True, description="Scale with KEDA; false runs spec.replicas pods. Default: true."
    )
    min_replica_count: int = Field(0, ge=0, le=INT32_MAX, description="Default: 0 (scale to zero).")
    max_replica_count: int = Field(10, ge=1, le=INT32_MAX, description="Default: 10.")
    polling_interval: int = Field(
        30, ge=1, le=INT32_MAX, description="Seconds between queue checks. Default: 30."
    )
    cooldown_period: int = Field(
        300, ge=0, le=INT32_MAX, description="Seconds before scaling down. Default: 300."
    )
    queue_length: int = Field(
        5, ge=1, le=INT32_MAX, description="Target messages per replica. Default: 5."
    )
    advanced: Advanced | None = None
    additional_triggers: list[Trigger] = Field(
        default_factory=list, description="KEDA triggers added after the queue trigger."
    )
    # Set by `kubectl scale` (the XRD's scale subresource): held at this count, autoscaling
    # paused (KEDA's paused-replicas); 0 pauses the actor. Absent, KEDA scales as usual.
    pinned_replicas: int | None = Field(
        None,
        ge=0,
        le=INT32_MAX,
        description="Hold the actor at this many pods, autoscaling paused (0 pauses it). Set by "
        "kubectl scale; remove it to resume autoscaling.",
    )
