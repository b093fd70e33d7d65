"""The ScaledObject's conditions as KEDA 2.19, 2.20.0 and 2.20.2 write them, read into the actor's status."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from function import runner as fn
from function.compose import renderers
from function.models import keda as keda_names
from function.resolve import requirements
from function.status import phase
from tests import schemas, support
from tests.unit.render.plans import plan, stage

READY = {"type": "Ready", "status": "True", "reason": "ScaledObjectReady"}
ACTIVE = {"type": "Active", "status": "True", "reason": "ScalerActive"}
NOT_PAUSED = {"type": "Paused", "status": "False", "reason": "ScaledObjectUnpaused"}
NO_FALLBACK = {"type": "Fallback", "status": "False", "reason": "NoFallbackFound"}
HPA_FAILING = "the HPA was unable to compute the replica count: unable to get external metric"

# What each KEDA version writes for an actor whose HPA cannot read its metric.
UNHEALTHY_HPA = {
    # 2.19: Ready is about the ScaledObject and its scalers only; nothing says the HPA fails.
    "2.19": [READY, ACTIVE, NO_FALLBACK, NOT_PAUSED],
    # 2.20.0 and 2.20.1: Ready follows the HPA's health (#7669): HPAMetricsUnavailable when only the
    # HPA fails (ScalingDegraded when the scalers fail too).
    "2.20": [
        {
            "type": "Ready",
            "status": "False",
            "reason": "HPAMetricsUnavailable",
            "message": f"HPA is not actively scaling: {HPA_FAILING}",
        },
        ACTIVE,
        NO_FALLBACK,
        NOT_PAUSED,
    ],
    # 2.20.2: Ready means validity; the HPA's health is HPAActive (#7914).
    "2.20.2": [
        READY,
        ACTIVE,
        NO_FALLBACK,
        NOT_PAUSED,
        {
            "type": "HPAActive",
            "status": "False",
            "reason": "FailedGetExternalMetric",
            "message": f"HPA is not actively scaling: {HPA_FAILING}",
        },
    ],
}


def report(conditions: list[dict[str, Any]], *, deployment_ready: bool = True) -> phase.Report:
    observed = stage("ready")
    observed["scaledobject"]["status"]["atProvider"]["manifest"]["status"] = {
        "conditions": conditions
    }
    if not deployment_ready:
        manifest = observed["deployment"]["status"]["atProvider"]["manifest"]
        manifest["status"]["conditions"][0]["status"] = "False"
    actor = plan(observed=observed)
    return phase.derive(actor, renderers.render_all(actor))


def keda(found: phase.Report) -> dict[str, Any]:
    part: dict[str, Any] = found.status["infrastructure"]["keda"]
    return part


def test_a_healthy_scaled_object_reads_the_same_on_every_version() -> None:
    for conditions in (
        [READY, ACTIVE, NO_FALLBACK, NOT_PAUSED],
        [READY, ACTIVE, NO_FALLBACK, NOT_PAUSED, {"type": "HPAActive", "status": "True"}],
        # 2.20.2 just after KEDA woke the actor: HPAActive still says the target was at
        # zero; the Deployment's ready replicas say it serves.
        [
            READY,
            {"type": "Active", "status": "False"},
            NOT_PAUSED,
            {"type": "HPAActive", "status": "True", "reason": "ScalingDisabled"},
        ],
    ):
        found = report(conditions)
        assert found.phase == phase.Phase.READY
        assert keda(found) == {"ready": True, "message": ""}


@pytest.mark.parametrize("version", ["2.20", "2.20.2"])
def test_an_unhealthy_hpa_degrades_a_running_actor_with_keda_reason(version: str) -> None:
    found = report(UNHEALTHY_HPA[version])
    assert found.phase == phase.Phase.DEGRADED
    assert keda(found)["ready"] is False
    assert HPA_FAILING in keda(found)["message"]
    reason = "HPAMetricsUnavailable" if version == "2.20" else "FailedGetExternalMetric"
    assert reason in keda(found)["message"]
    # The ScaledObject itself stays ready: Crossplane never sees it flap.
    assert found.ready["scaledobject"] is True


def test_hpa_health_flapping_on_2_20_never_sends_the_actor_back_to_creating() -> None:
    phases = [
        report(conditions).phase
        for conditions in (UNHEALTHY_HPA["2.19"], UNHEALTHY_HPA["2.20"], UNHEALTHY_HPA["2.19"])
    ]
    assert phase.Phase.CREATING not in phases


def test_a_refused_scaled_object_degrades_a_running_actor_and_holds_a_new_one_in_creating() -> None:
    refused = [
        {
            "type": "Ready",
            "status": "False",
            "reason": "TriggerError",
            "message": "failed to get queue attributes",
        },
        ACTIVE,
    ]
    running = report(refused)
    assert running.phase == phase.Phase.DEGRADED
    assert keda(running) == {
        "ready": False,
        "message": "ScaledObject is not ready: failed to get queue attributes",
    }
    starting = report(refused, deployment_ready=False)
    assert starting.phase == phase.Phase.CREATING


def test_a_scaled_object_without_conditions_yet_is_waited_for() -> None:
    found = report([])
    assert found.phase == phase.Phase.CREATING
    assert keda(found) == {
        "ready": False,
        "message": "ScaledObject is not ready: no Ready condition yet",
    }


def test_paused_scaling_is_said_and_the_actor_shows_paused() -> None:
    paused = {"type": "Paused", "status": "True", "reason": "ScaledObjectPaused"}
    found = report([READY, ACTIVE, NO_FALLBACK, paused])
    assert found.phase == phase.Phase.PAUSED
    assert keda(found) == {
        "ready": True,
        "message": "scaling is paused (autoscaling.keda.sh/paused): replicas stay as they are",
    }


def test_fallback_replicas_are_said_as_degraded() -> None:
    fallback = {
        "type": "Fallback",
        "status": "True",
        "reason": "FallbackExists",
        "message": "At least one trigger is falling back on this scaled object",
    }
    found = report([READY, ACTIVE, fallback, NOT_PAUSED])
    assert found.phase == phase.Phase.DEGRADED
    assert "fallback replicas" in keda(found)["message"]


def test_the_active_condition_is_in_the_scaling_status() -> None:
    assert report([READY, ACTIVE]).status["scaling"]["active"] is True
    idle = report([READY, {"type": "Active", "status": "False"}])
    assert idle.status["scaling"]["active"] is False
    assert "active" not in report([READY]).status["scaling"]


# ------------------------------------------------------------------ KEDA's HPA

HPA_FILE = support.ROOT / "examples" / "image-enhancer" / "keda-hpa.yaml"


def hpa(**changes: Any) -> dict[str, Any]:
    [body] = schemas.load_all(HPA_FILE)
    body["metadata"] |= {"name": "keda-hpa-echo", "namespace": "team"}
    for key, value in changes.items():
        body["status"][key] = value
    return body


def scaling_with(
    *hpas: dict[str, Any], scaled_object_status: dict[str, Any] | None = None
) -> dict[str, Any]:
    observed = stage("ready")
    if scaled_object_status is not None:
        observed["scaledobject"]["status"]["atProvider"]["manifest"]["status"] |= (
            scaled_object_status
        )
    actor = plan(observed=observed, autoscalers=list(hpas))
    found: dict[str, Any] = phase.derive(actor, renderers.render_all(actor)).status["scaling"]
    return found


def test_the_hpa_fixture_validates_and_carries_the_actors_label() -> None:
    [body] = schemas.load_all(HPA_FILE)
    assert schemas.errors(body) == []
    assert body["metadata"]["labels"]["asya.sh/actor"] == "image-enhancer"


def test_scaling_status_comes_from_kedas_hpa() -> None:
    assert scaling_with(hpa()) == {
        "minReplicas": 0,
        "maxReplicas": 10,
        "active": True,
        "desiredReplicas": 3,
        "currentReplicas": 2,
        "lastScaleTime": "2026-11-25T09:41:07Z",
        # 1500m per replica (AverageValue) on 2 replicas.
        "queueLength": 3,
    }


@pytest.mark.parametrize("amount", ["1e400", "9" * 400])
def test_a_metric_past_a_float_is_no_queue_length(amount: str) -> None:
    # A finite quantity a float cannot hold raised an internal error (round(inf)).
    metric = hpa()["status"]["currentMetrics"][0]
    metric["external"]["current"] = {"averageValue": amount}
    assert "queueLength" not in scaling_with(hpa(currentMetrics=[metric]))


def test_a_value_metric_is_the_queue_length_itself() -> None:
    metric = hpa()["status"]["currentMetrics"][0]
    metric["external"]["current"] = {"value": "42"}
    assert scaling_with(hpa(currentMetrics=[metric]))["queueLength"] == 42


def test_only_the_hpa_keda_names_in_the_actors_namespace_counts() -> None:
    elsewhere = hpa(desiredReplicas=9)
    elsewhere["metadata"]["namespace"] = "other"
    other_name = hpa(desiredReplicas=7)
    other_name["metadata"]["name"] = "some-other-hpa"
    assert "desiredReplicas" not in scaling_with(elsewhere, other_name)
    # A name KEDA was told to use (advanced.horizontalPodAutoscalerConfig.name) is in its status.
    named = scaling_with(other_name, scaled_object_status={"hpaName": "some-other-hpa"})
    assert named["desiredReplicas"] == 7


def test_a_long_actors_hpa_is_found_by_the_name_the_function_gave_it() -> None:
    actor = "a" * 60
    observed = stage("ready")
    observed["scaledobject"]["status"]["atProvider"]["manifest"]["status"].pop("hpaName", None)
    named = hpa(desiredReplicas=4)
    named["metadata"]["name"] = keda_names.autoscaler_name(actor)
    keda_default = hpa(desiredReplicas=6)
    keda_default["metadata"]["name"] = f"keda-hpa-{actor}"
    actor_plan = plan({"actor": actor}, observed=observed, autoscalers=[keda_default, named])
    found = phase.derive(actor_plan, renderers.render_all(actor_plan)).status["scaling"]
    assert found["desiredReplicas"] == 4


def test_every_actor_asks_for_its_hpa_so_the_requirements_never_change() -> None:
    def wanted(spec: dict[str, Any]) -> Any:
        xr = copy.deepcopy(support.MINIMAL_XR)
        xr["spec"] |= spec
        req = support.request(xr, input=support.struct({}))
        return fn.FunctionRunner().answer(req).message().requirements

    scaling = wanted({})
    selector = scaling.resources[requirements.AUTOSCALER_KEY]
    assert (selector.api_version, selector.kind, selector.namespace) == (
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        "team",
    )
    assert dict(selector.match_labels.labels) == {"asya.sh/actor": "echo"}
    assert scaling.extra_resources[requirements.AUTOSCALER_KEY].namespace == ""
    # Its flavors may turn scaling off or on: known only once they are fetched, too late
    # for call one of the requirements loop. Without scaling, no HPA exists to find.
    fixed = wanted({"scaling": {"enabled": False}})
    assert fixed.resources[requirements.AUTOSCALER_KEY] == selector


def test_scalers_and_hpa_failing_on_2_20_is_degraded_too() -> None:
    both = {"type": "Ready", "status": "False", "reason": "ScalingDegraded", "message": "x"}
    found = report([both, ACTIVE])
    assert found.phase == phase.Phase.DEGRADED
    assert found.ready["scaledobject"] is True


def test_some_triggers_failing_degrades_and_never_sends_back_to_creating() -> None:
    partial = {
        "type": "Ready",
        "status": "Unknown",
        "reason": "PartialTriggerError",
        "message": "Some triggers defined in ScaledObject are not working correctly",
    }
    found = report([partial, ACTIVE])
    assert found.phase == phase.Phase.DEGRADED
    assert found.ready["scaledobject"] is True
    assert "PartialTriggerError" in keda(found)["message"]


@pytest.mark.parametrize(
    ("conditions", "ok", "reason"),
    [
        ([READY, ACTIVE], True, "Ready"),
        ([], False, "Waiting"),
        (
            [{"type": "Ready", "status": "False", "reason": "ScaledObjectCheckFailed"}],
            False,
            "Refused",
        ),
        (UNHEALTHY_HPA["2.20"], False, "Degraded"),
        (UNHEALTHY_HPA["2.20.2"], False, "Degraded"),
        ([READY, {"type": "Paused", "status": "True"}], True, "Paused"),
        ([READY, {"type": "Fallback", "status": "True"}], False, "Degraded"),
    ],
)
def test_the_autoscaler_condition_carries_the_reason_the_readme_lists(
    conditions: list[dict[str, Any]], ok: bool, reason: str
) -> None:
    [aspect] = [a for a in report(conditions).aspects if a.type == "AutoscalerReady"]
    assert (aspect.ok, aspect.reason) == (ok, reason)


@pytest.mark.parametrize(
    ("written", "length"), [("1k", 1000), ("2M", 2_000_000), ("1500m", 2), ("7", 7), ("nan", None)]
)
def test_the_queue_length_reads_every_quantity_kubernetes_writes(
    written: str, length: int | None
) -> None:
    metric = hpa()["status"]["currentMetrics"][0]
    metric["external"]["current"] = {"value": written}
    assert scaling_with(hpa(currentMetrics=[metric])).get("queueLength") == length


def test_a_negative_desired_replicas_is_no_figure() -> None:
    # Hand-written or corrupted state: no HPA asks for fewer than no replicas.
    assert "desiredReplicas" not in scaling_with(hpa(desiredReplicas=-3))
    assert scaling_with(hpa(desiredReplicas=0))["desiredReplicas"] == 0
