"""The sidecar's Prometheus metrics in the AsyncActor spec: on or off, and custom ones.

Upstream's sidecar serves its metrics on `ASYA_METRICS_ADDR` (`:8080`) and registers
the custom metrics `ASYA_CUSTOM_METRICS` lists (a JSON list of `{name, type, help,
labels, buckets}`); it refuses to start on a list Prometheus' client refuses, so the
same rules are checked here: Prometheus names, known types, names and labels once,
buckets for a histogram only, ascending.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, FiniteFloat, StringConstraints, model_validator

from function.models.spec_base import SpecSection

# Prometheus' data model: a metric name, and a label name (`__` starts Prometheus' own).
METRIC_NAME = r"^[a-zA-Z_:][a-zA-Z0-9_:]*$"
LABEL_NAME = r"^[a-zA-Z_][a-zA-Z0-9_]*$"
MetricName = Annotated[str, StringConstraints(pattern=METRIC_NAME, max_length=200)]
LabelName = Annotated[str, StringConstraints(pattern=LABEL_NAME, max_length=100)]


class CustomMetric(SpecSection):
    """One metric the actor's handler reports through the sidecar."""

    name: MetricName
    type: Literal["counter", "gauge", "histogram"]
    help: str = ""
    labels: list[LabelName] = Field(default_factory=list)
    buckets: list[FiniteFloat] = Field(
        default_factory=list, description="Histogram buckets, ascending."
    )

    @model_validator(mode="after")
    def _consistent(self) -> CustomMetric:
        if reserved := [label for label in self.labels if label.startswith("__")]:
            raise ValueError(f"metric {self.name!r}: label {reserved[0]!r} is Prometheus' own (__)")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"metric {self.name!r} names a label twice")
        if self.buckets and self.type != "histogram":
            raise ValueError(f"metric {self.name!r} is a {self.type}: only a histogram has buckets")
        if any(b >= a for b, a in zip(self.buckets, self.buckets[1:], strict=False)):
            raise ValueError(f"metric {self.name!r}: buckets must ascend, each once")
        return self


class Metrics(SpecSection):
    """The sidecar's metrics endpoint (on by default) and the actor's custom metrics."""

    enabled: bool = Field(
        True, description="Serve metrics and label the pods asya.sh/metrics. Default: true."
    )
    custom: list[CustomMetric] = Field(
        default_factory=list,
        description="Metrics the handler reports through the sidecar (ASYA_CUSTOM_METRICS).",
    )

    @model_validator(mode="after")
    def _named_once(self) -> Metrics:
        names = [metric.name for metric in self.custom]
        if twice := sorted({name for name in names if names.count(name) > 1}):
            raise ValueError(f"metric {twice[0]!r} is defined twice")
        return self
