"""Where an actor's pods may run, in the AsyncActor spec: tolerations, node selector labels."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from function.models import crd_schema, names
from function.models.spec_base import SpecSection

# Checked by pydantic's own patterns; provenance says what a mismatch means.
LabelKey = Annotated[str, StringConstraints(pattern=names.LABEL_KEY)]
LabelValue = Annotated[str, StringConstraints(pattern=names.LABEL_VALUE)]


class Toleration(SpecSection):
    """A pod toleration, typed and checked as the API server takes it (its value is a string)."""

    # The XRD keeps a toleration's unknown fields for the function to refuse by name, as
    # it always has (pruned, they would vanish without a word).
    model_config = ConfigDict(json_schema_extra=crd_schema.KEEP_UNKNOWN_FIELDS)

    key: Annotated[str, StringConstraints(pattern=names.TOLERATION_KEY)] | None = None
    # Empty means Equal, as an empty effect means every effect: the API server takes both.
    operator: Literal["Exists", "Equal", ""] | None = None
    value: str | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute", ""] | None = None
    toleration_seconds: int | None = Field(None, ge=-(2**63), le=2**63 - 1)  # int64

    @model_validator(mode="after")
    def _as_the_api_server_takes_it(self) -> Toleration:
        if not self.key and self.operator != "Exists":
            raise ValueError("a toleration without a key matches every taint: operator Exists")
        if self.toleration_seconds is not None and self.effect != "NoExecute":
            raise ValueError("tolerationSeconds is for effect NoExecute only")
        if self.operator == "Exists" and self.value:
            raise ValueError("operator Exists takes no value")
        if self.operator != "Exists" and (problem := names.label_value_problem(self.value or "")):
            raise ValueError(problem)
        return self
