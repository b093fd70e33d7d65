"""The phase table: each life stage of an actor → phase and infrastructure block."""

from __future__ import annotations

import pytest

from function import render, status
from tests.unit.render.plans import plan, stage

# (stage, phase, queue ready, keda ready, workload ready, messages that must appear)
PHASES = [
    (
        "created",
        "Creating",
        False,
        False,
        False,
        [
            "waiting for the queue to be created",
            "waiting for the queue URL before creating the ScaledObject",
            "waiting for the Deployment to be created",
        ],
    ),
    (
        "queue-creating",
        "Creating",
        False,
        False,
        False,
        ["waiting for the queue to become ready: Creating"],
    ),
    ("queue-no-url", "Creating", False, False, False, ["waiting for the queue URL"]),
    ("queue-url", "Creating", True, False, False, ["waiting for the ScaledObject to be created"]),
    ("ready", "Ready", True, True, True, []),
    ("napping", "Napping", True, True, True, []),
]


@pytest.mark.parametrize(
    ("name", "phase", "queue", "keda", "workload", "messages"), PHASES, ids=[p[0] for p in PHASES]
)
def test_phase_table(
    name: str, phase: str, queue: bool, keda: bool, workload: bool, messages: list[str]
) -> None:
    actor = plan(
        observed=stage(name) if name != "created" else {},
        settings={"aws": {"accountId": "123456789012"}},
    )
    report = status.derive(actor, render.render_all(actor))
    infrastructure = report.status["infrastructure"]
    assert report.phase.value == phase
    assert report.status["phase"] == phase
    assert (
        infrastructure["queue"]["ready"],
        infrastructure["keda"]["ready"],
        infrastructure["workload"]["ready"],
    ) == (queue, keda, workload)
    shown = [part["message"] for part in infrastructure.values()]
    for message in messages:
        assert message in shown
    if phase != "Creating":
        assert shown == ["", "", ""]


def test_ready_reports_the_queue_url_arn_and_replicas() -> None:
    actor = plan(observed=stage("ready"))
    report = status.derive(actor, render.render_all(actor))
    assert report.status["queueUrl"].endswith("/asya-asya-text-processor")
    assert (
        report.status["queueIdentifier"]
        == "arn:aws:sqs:us-east-1:123456789012:asya-asya-text-processor"
    )
    assert report.status["infrastructure"]["workload"] | {} == {
        "ready": True,
        "replicas": 5,
        "readyReplicas": 5,
        "message": "",
    }
    assert all(report.ready.values())


def test_a_partly_ready_deployment_says_how_many_replicas_are_ready() -> None:
    observed = stage("ready")
    manifest_status = observed["deployment"]["status"]["atProvider"]["manifest"]["status"]
    manifest_status["readyReplicas"] = 3
    actor = plan(observed=observed)
    report = status.derive(actor, render.render_all(actor))
    assert (
        report.status["infrastructure"]["workload"]["message"]
        == "Deployment has 3/5 ready replicas"
    )


def test_disabled_scaling_counts_keda_as_ready() -> None:
    observed = stage("ready")
    del observed["scaledobject"]
    actor = plan({"scaling": {"enabled": False}, "replicas": 2}, observed=observed)
    rendered = render.render_all(actor)
    report = status.derive(actor, rendered)
    assert report.status["infrastructure"]["keda"] == {"ready": True, "message": ""}
    assert report.phase.value == "Ready"


def test_unobserved_resources_are_not_ready() -> None:
    actor = plan()
    report = status.derive(actor, render.render_all(actor))
    assert report.ready == {"sqs-queue": False, "triggerauthentication": False, "deployment": False}
