"""The phase table: each life stage of an actor → phase and infrastructure block."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from function.compose import renderers
from function.models import observed as observed_module
from function.status import phase
from tests.unit.render.plans import plan, stage


@dataclass(frozen=True)
class PhaseCase:
    """A life stage: the phase, which parts are ready, and messages that must appear."""

    stage: str
    phase: str
    queue: bool
    keda: bool
    workload: bool
    messages: list[str] = field(default_factory=list)
    reason: str = ""


PHASES: list[PhaseCase] = [
    PhaseCase(
        reason="nothing observed yet: every part waits to be created",
        stage="created",
        phase="Creating",
        queue=False,
        keda=False,
        workload=False,
        messages=[
            "waiting for the queue to be created",
            "waiting for the queue URL before creating the ScaledObject",
            "waiting for the Deployment to be created",
        ],
    ),
    PhaseCase(
        reason="the queue exists but is not Ready: its condition reason is shown",
        stage="queue-creating",
        phase="Creating",
        queue=False,
        keda=False,
        workload=False,
        messages=["waiting for the queue to become ready: Creating"],
    ),
    PhaseCase(
        reason="the queue is Ready but has no URL yet, so no ScaledObject",
        stage="queue-no-url",
        phase="Creating",
        queue=False,
        keda=False,
        workload=False,
        messages=["waiting for the queue URL"],
    ),
    PhaseCase(
        reason="the queue is ready; the ScaledObject is rendered but not observed",
        stage="queue-url",
        phase="Creating",
        queue=True,
        keda=False,
        workload=False,
        messages=["waiting for the ScaledObject to be created"],
    ),
    PhaseCase(
        reason="every part ready with replicas running",
        stage="ready",
        phase="Ready",
        queue=True,
        keda=True,
        workload=True,
        messages=[],
    ),
    PhaseCase(
        reason="every part ready, scaled to zero",
        stage="napping",
        phase="Napping",
        queue=True,
        keda=True,
        workload=True,
        messages=[],
    ),
]


@pytest.mark.parametrize("case", PHASES, ids=[c.stage for c in PHASES])
def test_phase_table(case: PhaseCase) -> None:
    actor = plan(
        observed=stage(case.stage) if case.stage != "created" else {},
        settings={"aws": {"accountId": "123456789012"}},
    )
    report = phase.derive(actor, renderers.render_all(actor))
    infrastructure = report.status["infrastructure"]
    assert report.phase.value == case.phase, case.reason
    assert report.status["phase"] == case.phase
    assert (
        infrastructure["queue"]["ready"],
        infrastructure["keda"]["ready"],
        infrastructure["workload"]["ready"],
    ) == (case.queue, case.keda, case.workload), case.reason
    shown = [part["message"] for part in infrastructure.values()]
    for message in case.messages:
        assert message in shown, case.reason
    if case.phase != "Creating":
        assert shown == ["", "", ""]


def test_ready_reports_the_queue_url_arn_and_replicas() -> None:
    actor = plan(observed=stage("ready"))
    report = phase.derive(actor, renderers.render_all(actor))
    assert report.status["queueUrl"].endswith("/asya-asya-text-processor")
    assert (
        report.status["queueIdentifier"]
        == "arn:aws:sqs:us-east-1:123456789012:asya-asya-text-processor"
    )
    assert report.status["infrastructure"]["workload"] | {} == {
        "ready": True,
        "replicas": 5,
        "readyReplicas": 5,
        "running": 5,
        "pending": 0,
        "failing": 0,
        "message": "",
    }
    assert all(report.ready.values())


def test_an_available_deployment_is_ready_with_an_empty_message_and_its_counts() -> None:
    observed = stage("ready")
    manifest_status = observed["deployment"]["status"]["atProvider"]["manifest"]["status"]
    manifest_status["readyReplicas"] = 3
    actor = plan(observed=observed)
    report = phase.derive(actor, renderers.render_all(actor))
    # Counted from the Deployment's status: its Pods were not fetched.
    assert report.status["infrastructure"]["workload"] == {
        "ready": True,
        "replicas": 5,
        "readyReplicas": 3,
        "running": 3,
        "pending": 2,
        "failing": 0,
        "message": "",
    }


def synced_false(body: dict[str, Any], message: str) -> None:
    body.setdefault("status", {})["conditions"] = [
        {"type": "Synced", "status": "False", "reason": "ReconcileError", "message": message}
    ]


@pytest.mark.parametrize(
    ("resource", "part", "prefix"),
    [
        pytest.param("deployment", "workload", "Deployment", id="a wrapped Deployment"),
        pytest.param("scaledobject", "keda", "ScaledObject", id="a wrapped ScaledObject"),
        pytest.param("sqs-queue", "queue", "queue", id="the queue managed resource"),
    ],
)
def test_a_resource_that_cannot_be_applied_says_why(resource: str, part: str, prefix: str) -> None:
    observed = stage("ready")
    synced_false(observed[resource], "admission webhook denied the request: " + "x" * 600)
    actor = plan(observed=observed)
    report = phase.derive(actor, renderers.render_all(actor))
    message = report.status["infrastructure"][part]["message"]
    assert message.startswith(
        f"{prefix} cannot apply: ReconcileError: admission webhook denied the request: xxx"
    )
    assert len(message) <= len(prefix) + 1 + observed_module.MAX_MESSAGE
    assert report.status["infrastructure"][part]["ready"] is False
    assert report.phase.value == "Creating"


def test_an_object_provider_kubernetes_has_not_observed_yet_says_so() -> None:
    observed = stage("ready")
    del observed["deployment"]["status"]["atProvider"]["manifest"]
    actor = plan(observed=observed)
    report = phase.derive(actor, renderers.render_all(actor))
    assert report.status["infrastructure"]["workload"]["message"] == (
        "waiting for provider-kubernetes to observe the Deployment"
    )


def test_a_ready_condition_that_is_false_without_a_reason_says_so() -> None:
    observed = stage("ready")
    manifest_status = observed["scaledobject"]["status"]["atProvider"]["manifest"]["status"]
    manifest_status["conditions"] = [{"type": "Ready", "status": "False"}]
    actor = plan(observed=observed)
    report = phase.derive(actor, renderers.render_all(actor))
    assert report.status["infrastructure"]["keda"]["message"] == (
        "ScaledObject is not ready: Ready is False"
    )


def test_disabled_scaling_counts_keda_as_ready() -> None:
    observed = stage("ready")
    del observed["scaledobject"]
    actor = plan({"scaling": {"enabled": False}, "replicas": 2}, observed=observed)
    rendered = renderers.render_all(actor)
    report = phase.derive(actor, rendered)
    assert report.status["infrastructure"]["keda"] == {"ready": True, "message": ""}
    assert report.phase.value == "Ready"


def test_unobserved_resources_are_not_ready() -> None:
    actor = plan()
    report = phase.derive(actor, renderers.render_all(actor))
    assert report.ready == {"sqs-queue": False, "triggerauthentication": False, "deployment": False}


@pytest.mark.parametrize("junk", [5, "Ready", {"type": "Ready"}, None], ids=repr)
def test_misshapen_observed_lists_read_as_none(junk: Any) -> None:
    # Observed state comes from providers and users' objects: conditions, triggers or
    # containers of another shape must not crash the function (an internal error).
    observed = stage("ready")
    deployment = observed["deployment"]
    deployment["status"]["atProvider"]["manifest"]["status"]["conditions"] = junk
    deployment["spec"]["forProvider"]["manifest"]["spec"] = {
        "template": {"spec": {"containers": junk}}
    }
    observed["scaledobject"]["spec"]["forProvider"]["manifest"]["spec"]["triggers"] = junk
    observed["sqs-queue"]["status"]["conditions"] = junk
    actor = plan(observed=observed)
    report = phase.derive(actor, renderers.render_all(actor))
    assert report.status["infrastructure"]["queue"]["message"] == (
        "waiting for the queue to become ready: no Ready condition yet"
    )
    assert report.status["infrastructure"]["workload"]["ready"] is False
    assert report.phase.value == "Creating"
