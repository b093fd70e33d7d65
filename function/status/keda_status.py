"""The ScaledObject's conditions as KEDA 2.18 to 2.20.2 and later write them.

- `Ready`: on 2.18, 2.19 and from 2.20.2 the ScaledObject is valid and its scalers work
  (Unknown with `PartialTriggerError` when some triggers fail). On 2.20.0 and 2.20.1 it
  also follows the HPA's health: False with reason `HPAMetricsUnavailable` (only the HPA
  fails) or `ScalingDegraded` (its scalers too) while the ScaledObject is valid (KEDA PR
  #7669), flapping with the HPA.
- `HPAActive` (2.20.2, KEDA #7914): the HPA's own `ScalingActive`. True with reason
  `HPAActive`; True with `ScalingDisabled` when KEDA has scaled the target to zero (the
  actor naps); False with the HPA's reason (`FailedGetExternalMetric`, or
  `HPAMetricsUnavailable` when the HPA gives none). Absent until KEDA has seen its HPA.
- `Paused`: an annotation pauses scaling. `autoscaling.keda.sh/paused` and
  `paused-replicas` stop it (KEDA deletes the HPA and stops its loop, so the HPA's
  health, the fallback and the triggers' activity it last wrote are stale);
  `paused-scale-in` and `paused-scale-out` block one direction and keep the HPA.
- `Fallback`: the scalers fail and KEDA holds the fallback replica count.
- `status.triggersActivity` (2.19): per external metric (`s<index>-<name>`), whether
  that trigger reports work.

A running actor must not drop back to `Creating` because the HPA's health flaps: an
autoscaler that is valid but unhealthy is *degraded*, which the status says with
KEDA's reason, and the actor keeps its phase's meaning.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from function.models import keda, observed, quantity
from function.models.plain import MAP

# `Ready` not True for a valid ScaledObject whose scaling is unhealthy: 2.20.0/2.20.1's HPA
# health (HPAMetricsUnavailable when only the HPA fails, ScalingDegraded when its scalers
# fail too), and Unknown with PartialTriggerError when some of its triggers fail (every version).
VALID_BUT_DEGRADED = frozenset({"ScalingDegraded", "HPAMetricsUnavailable", "PartialTriggerError"})
# HPAActive True with this reason: KEDA scaled the target to zero and the HPA idles.
SCALING_DISABLED = "ScalingDisabled"
# What KEDA puts before the HPA's own message in HPAActive False.
_HPA_PREFIX = "HPA is not actively scaling: "
_ANNOTATION = keda.ANNOTATION_PREFIX
# How the HPA's external metric names a trigger: `s<index>-<metric>`.
_METRIC = re.compile(r"s(\d+)-")
# The words `paused` takes in the status, by what the annotations block.
ALL_SCALING = "scaling"


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
    # What a pause annotation blocks: ALL_SCALING, `scale-in`, `scale-out`, both ('' if none).
    paused: str = ""
    # HPAActive says KEDA scaled the target to zero (2.20.2): the actor naps.
    napping: bool = False
    # The triggers reporting work, in the ScaledObject's order (None before KEDA says).
    active_triggers: tuple[str, ...] | None = None

    @property
    def healthy(self) -> bool:
        """Valid and scaling: what the status and the AutoscalerReady condition call ready."""
        return self.valid and not self.degraded

    @property
    def holds_replicas(self) -> bool:
        """Scaling is stopped by annotation: KEDA neither scales nor watches its HPA."""
        return self.paused == ALL_SCALING


def _said(found: Mapping[str, Any], kind: str) -> str:
    reason = str(found.get("reason") or "")
    message = observed.describe(found, kind).removeprefix(_HPA_PREFIX)
    if not message or reason == message:
        return reason or message
    return f"{reason}: {message}" if reason else message


def read(body: Mapping[str, Any] | None) -> Autoscaler:
    """Read an observed ScaledObject: its conditions, pause annotations and triggers' activity."""
    status = observed.manifest_status(body)
    found = observed.condition(status, "Active")
    common: dict[str, Any] = {
        "active": None if found is None else str(found.get("status")) == "True",
        "paused": _paused(body, status),
        "active_triggers": _active_triggers(body, status),
    }
    ready = observed.condition(status, "Ready")
    valid = observed.text(ready, "status") == "True"
    if common["paused"] == ALL_SCALING and (
        valid or observed.text(ready, "reason") in VALID_BUT_DEGRADED
    ):
        # KEDA's loop is stopped: what it last said of the HPA (in Ready too, on 2.20.0
        # and 2.20.1), the fallback and the triggers is stale.
        return _paused_autoscaler(body, status, common | {"active_triggers": None})
    if not valid:
        return _not_ready(ready, common)
    hpa = observed.condition(status, "HPAActive")
    if hpa is not None and str(hpa.get("status")) == "False":
        return _degraded(f"KEDA's HPA is not scaling: {_said(hpa, 'HPAActive')}", common)
    if observed.is_true(status, "Fallback"):
        fallback = observed.condition(status, "Fallback") or {}
        return _degraded(f"KEDA holds the fallback replicas: {_said(fallback, 'Fallback')}", common)
    if common["paused"]:
        return _paused_autoscaler(body, status, common)
    napping = hpa is not None and observed.text(hpa, "reason") == SCALING_DISABLED
    return Autoscaler(True, napping=napping, **common)


def _not_ready(ready: Mapping[str, Any] | None, common: dict[str, Any]) -> Autoscaler:
    """Ready is absent, Unknown or False: not read yet, refused, or valid and degraded."""
    if ready is not None and observed.text(ready, "reason") in VALID_BUT_DEGRADED:
        return _degraded(f"KEDA's autoscaler is degraded: {_said(ready, 'Ready')}", common)
    message = f"ScaledObject is not ready: {observed.describe(ready, 'Ready')}"
    if ready is not None and str(ready.get("status")) == "False":
        return Autoscaler(False, message, refused=True, reason="Refused", **common)
    return Autoscaler(False, message, reason="Waiting", **common)


def _degraded(message: str, common: dict[str, Any]) -> Autoscaler:
    return Autoscaler(True, observed.bounded(message), degraded=True, reason="Degraded", **common)


def _paused_autoscaler(
    body: Mapping[str, Any] | None, status: Mapping[str, Any], common: dict[str, Any]
) -> Autoscaler:
    paused = common["paused"]
    if paused != ALL_SCALING:
        return Autoscaler(True, _one_way(paused), reason="Paused", **common)
    held = _annotation(body, "paused-replicas")
    if held is None and isinstance(status.get("pausedReplicaCount"), int):
        held = str(status["pausedReplicaCount"])
    message = (
        f"scaling is paused ({_ANNOTATION}paused-replicas): replicas held at {held}"
        if held is not None
        else f"scaling is paused ({_ANNOTATION}paused): replicas stay as they are"
    )
    return Autoscaler(True, message, reason="Paused", **common)


def _one_way(paused: str) -> str:
    """Say a pause of one direction (or of both, which KEDA keeps its HPA for)."""
    ways = paused.split(" and ")
    named = ", ".join(f"{_ANNOTATION}paused-{way}" for way in ways)
    if len(ways) > 1:
        return f"{paused} are paused ({named}): replicas stay as they are"
    other = "out" if paused == "scale-in" else "in"
    return f"{paused} is paused ({named}): KEDA only scales {other}"


def _annotation(body: Mapping[str, Any] | None, name: str) -> str | None:
    found = observed.dig(observed.manifest_metadata(body), "annotations", _ANNOTATION + name)
    return None if found is None else str(found)


def _flag(body: Mapping[str, Any] | None, name: str) -> bool:
    """A boolean pause annotation as KEDA reads it: set, and not a false boolean (Go's ParseBool)."""
    value = _annotation(body, name)
    return value is not None and value not in ("0", "f", "F", "false", "FALSE", "False")


def _paused(body: Mapping[str, Any] | None, status: Mapping[str, Any]) -> str:
    """What a pause annotation blocks ('' when scaling is not paused)."""
    if _annotation(body, "paused-replicas") is not None or _flag(body, "paused"):
        return ALL_SCALING
    one_way = [way for way in ("scale-in", "scale-out") if _flag(body, f"paused-{way}")]
    if one_way:
        return " and ".join(one_way)
    # Paused True without an annotation in sight: KEDA says so, and nothing says less.
    return ALL_SCALING if observed.is_true(status, "Paused") else ""


def _active_triggers(
    body: Mapping[str, Any] | None, status: Mapping[str, Any]
) -> tuple[str, ...] | None:
    """The triggers whose metric `status.triggersActivity` marks active (2.19), by name.

    A trigger is named by its `name`, else its type; a metric KEDA names otherwise (a
    scaling formula's) by its own name. In the triggers' order, then by name: the map
    has no order of its own.
    """
    activity = status.get("triggersActivity")
    if not isinstance(activity, MAP):
        return None
    triggers = observed.triggers(body)
    found: set[tuple[int, str]] = set()
    for metric, state in activity.items():
        if observed.dig(state, "isActive") is not True:
            continue
        index = _METRIC.match(str(metric))
        at = int(index[1]) if index else len(triggers)
        trigger = triggers[at] if at < len(triggers) else None
        named = observed.text(trigger, "name") or observed.text(trigger, "type")
        found.add((at, named or str(metric)))
    return tuple(name for _, name in sorted(found))


def hpa_name(status: Mapping[str, Any], actor: str) -> str:
    """The HPA KEDA made for an actor's ScaledObject: named in its status, else as it was rendered."""
    named = status.get("hpaName")
    return named if isinstance(named, str) and named else keda.autoscaler_name(actor)


def scaling(hpa: Mapping[str, Any]) -> dict[str, Any]:
    """What an HPA says of the actor's scaling: replicas desired and current, the last scale, the queue."""
    status = hpa.get("status")
    if not isinstance(status, MAP):
        return {}
    found: dict[str, Any] = {}
    for key in ("desiredReplicas", "currentReplicas"):
        value = status.get(key)
        # No HPA asks for or sees fewer than no replicas: such state is hand-written.
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
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
