"""The ScaledObject's conditions as KEDA 2.19, 2.20 and 2.21 write them.

- `Ready`: on 2.19 and 2.21 the ScaledObject is valid and its scalers work. On 2.20 it
  also follows the HPA's health: False with reason `ScalingDegraded` while the
  ScaledObject is valid (KEDA PR #7669), flapping with the HPA.
- `HPAActive` (2.21, PR #7928): the HPA's own `ScalingActive`; True with reason
  `ScalingDisabled` while KEDA keeps the target at zero.
- `Paused`: scaling is paused by annotation; replicas stay where they are.
- `Fallback`: the scalers fail and KEDA holds the fallback replica count.

A running actor must not drop back to `Creating` because the HPA's health flaps: an
autoscaler that is valid but unhealthy is *degraded*, which the status says with
KEDA's reason, and the actor keeps its phase's meaning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from function.compose import observed

SCALING_DEGRADED = "ScalingDegraded"


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
        if ready is None or ready.get("reason") != SCALING_DEGRADED:
            message = f"ScaledObject is not ready: {observed.describe(ready, 'Ready')}"
            refused = ready is not None and str(ready.get("status")) == "False"
            return Autoscaler(False, message, refused=refused, active=active)
        return Autoscaler(
            True,
            f"KEDA's autoscaler is degraded: {_said(ready, 'Ready')}",
            degraded=True,
            active=active,
        )
    hpa = observed.condition(status, "HPAActive")
    if hpa is not None and str(hpa.get("status")) == "False":
        message = f"KEDA's HPA is not scaling: {_said(hpa, 'HPAActive')}"
        return Autoscaler(
            True, observed.bounded(message), degraded=True, active=active, reason="Degraded"
        )
    if observed.is_true(status, "Fallback"):
        fallback = observed.condition(status, "Fallback") or {}
        message = f"KEDA holds the fallback replicas: {_said(fallback, 'Fallback')}"
        return Autoscaler(
            True, observed.bounded(message), degraded=True, active=active, reason="Degraded"
        )
    if observed.is_true(status, "Paused"):
        return Autoscaler(
            True,
            "scaling is paused (autoscaling.keda.sh/paused): replicas stay as they are",
            active=active,
        )
    return Autoscaler(True, active=active)
