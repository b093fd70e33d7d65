"""The ScaledObject's conditions as KEDA 2.19, 2.20 and 2.21 write them.

- `Ready`: on 2.19 and 2.21 the ScaledObject is valid and its scalers work (Unknown with
  `PartialTriggerError` when some triggers fail). On 2.20 it also follows the HPA's
  health: False with reason `HPAMetricsUnavailable` (only the HPA fails) or
  `ScalingDegraded` (its scalers too) while the ScaledObject is valid (KEDA PR #7669),
  flapping with the HPA.
- `HPAActive` (2.21, PR #7928): the HPA's own `ScalingActive`; True with reason
  `ScalingDisabled` while KEDA keeps the target at zero.
- `Paused`: scaling is paused by annotation; replicas stay where they are.
- `Fallback`: the scalers fail and KEDA holds the fallback replica count.

A running actor must not drop back to `Creating` because the HPA's health flaps: an
autoscaler that is valid but unhealthy is *degraded*, which the status says with
KEDA's reason, and the actor keeps its phase's meaning.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from function.compose import observed
from function.compose.render import meta
from function.models import quantity

# `Ready` not True for a valid ScaledObject whose scaling is unhealthy: 2.20's HPA health
# (HPAMetricsUnavailable when only the HPA fails, ScalingDegraded when its scalers fail
# too), and Unknown with PartialTriggerError when some of its triggers fail (every version).
VALID_BUT_DEGRADED = frozenset({"ScalingDegraded", "HPAMetricsUnavailable", "PartialTriggerError"})


@dataclass(frozen=True)
class Autoscaler:
    """What the ScaledObject's conditions say."""

    # KEDA accepted the ScaledObject and scales with it (Ready, or 2.20's ScalingDegraded).
    valid: bool
    # What the status says: why it is not ready, why scaling is degraded, or that it is paused.
    message: str = ""
    # Ready is False (not merely unknown yet): KEDA refused it or its scalers fail.
    refused: bool = False
    # Valid, and scaling does not work: an unhealthy HPA, or KEDA's fallback replicas.
    degraded: bool = False
    # The Active condition: whether a trigger reports work (None before KEDA says).
    active: bool | None = None
    # Its condition's reason (conditions.REASONS).
    reason: str = "Ready"

    @property
    def healthy(self) -> bool:
        """Valid and scaling: what the status and the AutoscalerReady condition call ready."""
        return self.valid and not self.degraded


def _said(found: Mapping[str, Any], kind: str) -> str:
    reason = str(found.get("reason") or "")
    message = observed.describe(found, kind)
    return f"{reason}: {message}" if reason and reason != message else message


def read(status: Mapping[str, Any]) -> Autoscaler:
    """Read a ScaledObject's status block."""
    found = observed.condition(status, "Active")
    active = None if found is None else str(found.get("status")) == "True"
    ready = observed.condition(status, "Ready")
    if ready is None or str(ready.get("status")) != "True":
        return _not_ready(ready, active)
    hpa = observed.condition(status, "HPAActive")
    if hpa is not None and str(hpa.get("status")) == "False":
        return _degraded(f"KEDA's HPA is not scaling: {_said(hpa, 'HPAActive')}", active)
    if observed.is_true(status, "Fallback"):
        fallback = observed.condition(status, "Fallback") or {}
        return _degraded(f"KEDA holds the fallback replicas: {_said(fallback, 'Fallback')}", active)
    if observed.is_true(status, "Paused"):
        message = "scaling is paused (autoscaling.keda.sh/paused): replicas stay as they are"
        return Autoscaler(True, message, active=active, reason="Paused")
    return Autoscaler(True, active=active)


def _not_ready(ready: Mapping[str, Any] | None, active: bool | None) -> Autoscaler:
    """Ready is absent, Unknown or False: not read yet, refused, or valid and degraded."""
    if ready is not None and observed.text(ready, "reason") in VALID_BUT_DEGRADED:
        return _degraded(f"KEDA's autoscaler is degraded: {_said(ready, 'Ready')}", active)
    message = f"ScaledObject is not ready: {observed.describe(ready, 'Ready')}"
    if ready is not None and str(ready.get("status")) == "False":
        return Autoscaler(False, message, refused=True, active=active, reason="Refused")
    return Autoscaler(False, message, active=active, reason="Waiting")


def _degraded(message: str, active: bool | None) -> Autoscaler:
    return Autoscaler(
        True, observed.bounded(message), degraded=True, active=active, reason="Degraded"
    )


def hpa_name(status: Mapping[str, Any], actor: str) -> str:
    """The HPA KEDA made for an actor's ScaledObject: named in its status, else as it was rendered."""
    named = status.get("hpaName")
    return named if isinstance(named, str) and named else meta.autoscaler_name(actor)


def scaling(hpa: Mapping[str, Any]) -> dict[str, Any]:
    """What an HPA says of the actor's scaling: replicas desired and current, the last scale, the queue."""
    status = hpa.get("status")
    if not isinstance(status, Mapping):
        return {}
    found: dict[str, Any] = {}
    for key in ("desiredReplicas", "currentReplicas"):
        value = status.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            found[key] = value
    last = status.get("lastScaleTime")
    if isinstance(last, str) and last:
        found["lastScaleTime"] = last
    queued = _queue_length(status, found.get("currentReplicas", 0))
    if queued is not None:
        found["queueLength"] = queued
    return found


def _queue_length(status: Mapping[str, Any], replicas: int) -> int | None:
    """The queue length KEDA last read, from the HPA's metric of the actor's trigger (s0-…).

    KEDA gives the HPA a per-replica average (metricType AverageValue, the default) or
    the value itself (Value): the length is the one, or the other times the replicas.
    """
    for metric in observed.as_list(status.get("currentMetrics")):
        external = observed.dig(metric, "external")
        name = observed.dig(external, "metric", "name")
        if not isinstance(name, str) or not name.startswith("s0-"):
            continue
        value = _quantity(observed.dig(external, "current", "value"))
        if value is not None:
            return round(value)
        average = _quantity(observed.dig(external, "current", "averageValue"))
        if average is not None and replicas:
            return round(average * replicas)
    return None


def _quantity(text: Any) -> float | None:
    """A Kubernetes quantity as KEDA's metrics carry it (`5`, `1500m`, `2k`), or None."""
    if not isinstance(text, str):
        return None
    amount = quantity.parse(text)
    if amount is None or not amount.is_finite():
        return None
    # A quantity past what a float holds (1e400) is no length KEDA read.
    number = float(amount)
    return number if math.isfinite(number) else None
