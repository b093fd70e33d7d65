"""RabbitMQ and Pub/Sub behind the transport seam: what each composes, triggers and waits for."""

from __future__ import annotations

from typing import Any

import pytest

from function.compose import renderers
from function.compose.renderers import transports
from function.models import pod
from function.status import phase
from tests.unit.render.plans import env, manifest, plan, stage

RABBITMQ = {"transport": "rabbitmq"}
PUBSUB = {"transport": "pubsub", "pubsub": {"project": "acme-prod"}}


def sidecar(rendered: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = manifest(rendered["deployment"])["spec"]["template"]["spec"][
        "containers"
    ][1]
    return container


def test_every_transport_is_registered_under_its_input_name() -> None:
    assert set(transports.TRANSPORTS) == {"sqs", "rabbitmq", "pubsub"}


def test_rabbitmq_composes_no_queue_and_scales_on_the_actors_queue() -> None:
    rendered = renderers.render_all(
        plan(
            {"scaling": {"queueLength": 7}},
            settings=RABBITMQ | {"irsa": {"enabled": True}},
            labels={"crossplane.io/claim-name": "not-the-actor"},
        )
    )
    assert set(rendered) == {"triggerauthentication", "scaledobject", "deployment"}
    [trigger] = manifest(rendered["scaledobject"])["spec"]["triggers"]
    # Named from spec.actor, never from the claim (upstream's R1).
    assert trigger == {
        "type": "rabbitmq",
        "name": "queue",
        "authenticationRef": {"name": "echo-trigger-auth"},
        "metadata": {"queueName": "asya-team-echo", "mode": "QueueLength", "value": "7"},
    }
    assert manifest(rendered["triggerauthentication"])["spec"] == {
        "secretTargetRef": [{"parameter": "host", "name": "rabbitmq-keda-secret", "key": "host"}]
    }
    pod = manifest(rendered["deployment"])["spec"]["template"]["spec"]
    assert "serviceAccountName" not in pod
    variables = env(sidecar(rendered))
    assert variables["ASYA_TRANSPORT"] == "rabbitmq"
    assert not {"ASYA_AWS_REGION", "ASYA_QUEUE_URL", "ASYA_RABBITMQ_URL"} & set(variables)
    assert "envFrom" not in sidecar(rendered)


def test_rabbitmq_hands_the_sidecar_its_url_and_credentials_when_set() -> None:
    rendered = renderers.render_all(
        plan(settings=RABBITMQ | {"rabbitmq": {"url": "amqp://b:5672/", "credsSecret": "creds"}})
    )
    assert env(sidecar(rendered))["ASYA_RABBITMQ_URL"] == "amqp://b:5672/"
    assert sidecar(rendered)["envFrom"] == [{"secretRef": {"name": "creds"}}]


# Each transport's credentials: a Secret the sidecar reads as env, the IRSA
# ServiceAccount (AWS's alone), or neither; the Input sets both kinds everywhere.
CREDENTIALS = {
    "irsa": {"enabled": True},
    "aws": {"accountId": "111122223333"},
    "sidecar": {"awsCredsSecret": "aws-keys"},
    "rabbitmq": {"credsSecret": "broker-creds"},
}


@pytest.mark.parametrize(
    ("transport", "env_from", "service_account"),
    [
        ({}, [{"secretRef": {"name": "aws-keys"}}], True),
        (RABBITMQ, [{"secretRef": {"name": "broker-creds"}}], False),
        (PUBSUB, None, False),
    ],
    ids=["sqs", "rabbitmq", "pubsub"],
)
def test_each_transport_hands_the_sidecar_its_own_credentials_only(
    transport: dict[str, Any], env_from: list[dict[str, Any]] | None, service_account: bool
) -> None:
    rendered = renderers.render_all(plan(settings=CREDENTIALS | transport))
    assert sidecar(rendered).get("envFrom") == env_from
    pod_spec = manifest(rendered["deployment"])["spec"]["template"]["spec"]
    assert ("serviceAccountName" in pod_spec) is service_account
    assert ("serviceaccount" in rendered) is service_account


def test_rabbitmq_status_reports_the_queue_ready_with_its_identifier() -> None:
    actor = plan(settings=RABBITMQ)
    report = phase.derive(actor, renderers.render_all(actor))
    assert report.status["queueIdentifier"] == "asya-team-echo"
    assert "queueUrl" not in report.status
    assert report.status["infrastructure"]["queue"] == {"ready": True, "message": ""}


@pytest.mark.parametrize(
    ("namespaced", "api_version", "config_ref"),
    [
        pytest.param(False, "pubsub.gcp.upbound.io/v1beta2", {"name": "default"}, id="v1 form"),
        pytest.param(
            True,
            "pubsub.gcp.m.upbound.io/v1beta1",
            {"kind": "ClusterProviderConfig", "name": "default"},
            id="v2 form",
        ),
    ],
)
def test_pubsub_composes_a_topic_and_a_subscription(
    namespaced: bool, api_version: str, config_ref: dict[str, str]
) -> None:
    rendered = renderers.render_all(plan(settings=PUBSUB, namespaced=namespaced))
    topic, subscription = rendered["pubsub-topic"], rendered["pubsub-subscription"]
    for body in (topic, subscription):
        assert body["apiVersion"] == api_version
        assert body["metadata"]["annotations"] == {"crossplane.io/external-name": "asya-team-echo"}
        assert body["spec"]["providerConfigRef"] == config_ref
        assert body["spec"]["forProvider"]["project"] == "acme-prod"
        assert ("deletionPolicy" in body["spec"]) is not namespaced
    assert subscription["spec"]["forProvider"] == {
        "project": "acme-prod",
        "topicSelector": {"matchControllerRef": True},
        "ackDeadlineSeconds": 300,
        "messageRetentionDuration": "604800s",
        "expirationPolicy": {"ttl": ""},
    }
    # No ScaledObject until the subscription is ready.
    assert "scaledobject" not in rendered
    variables = env(sidecar(rendered))
    assert (variables["ASYA_TRANSPORT"], variables["ASYA_PUBSUB_PROJECT_ID"]) == (
        "pubsub",
        "acme-prod",
    )


def ready_subscription() -> dict[str, dict[str, Any]]:
    ready = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    return {"pubsub-topic": ready, "pubsub-subscription": ready}


@pytest.mark.parametrize(
    ("settings", "authentication", "trigger"),
    [
        pytest.param(
            {},
            {"podIdentity": {"provider": "gcp"}},
            {
                "type": "gcp-pubsub",
                "name": "queue",
                "authenticationRef": {"name": "echo-trigger-auth"},
                "metadata": {
                    "subscriptionName": "projects/acme-prod/subscriptions/asya-team-echo",
                    "mode": "SubscriptionSize",
                    "value": "5",
                },
            },
            id="workload identity",
        ),
        pytest.param(
            {"keda": {"authProvider": "secret"}},
            {
                "secretTargetRef": [
                    {
                        "parameter": "GoogleApplicationCredentials",
                        "name": "gcp-keda-secret",
                        "key": "credentials.json",
                    }
                ]
            },
            None,
            id="a key Secret",
        ),
        pytest.param(
            {"pubsub": {"project": "acme-prod", "keda": {"externalScaler": {"address": "s:6000"}}}},
            None,
            {
                "type": "external",
                "name": "queue",
                "metadata": {
                    "scalerAddress": "s:6000",
                    "subscriptionName": "projects/acme-prod/subscriptions/asya-team-echo",
                    "targetValue": "5",
                },
            },
            id="an external scaler, which needs no TriggerAuthentication",
        ),
    ],
)
def test_pubsub_scales_once_the_subscription_is_ready(
    settings: dict[str, Any], authentication: dict[str, Any] | None, trigger: dict[str, Any] | None
) -> None:
    rendered = renderers.render_all(plan(settings=PUBSUB | settings, observed=ready_subscription()))
    if authentication is None:
        assert "triggerauthentication" not in rendered
    else:
        assert manifest(rendered["triggerauthentication"])["spec"] == authentication
    if trigger is not None:
        assert manifest(rendered["scaledobject"])["spec"]["triggers"] == [trigger]


def test_pubsub_keeps_its_scaled_object_when_the_subscription_flickers() -> None:
    observed = {"scaledobject": stage("ready")["scaledobject"]}
    rendered = renderers.render_all(plan(settings=PUBSUB, observed=observed))
    assert "scaledobject" in rendered


def test_pubsub_queue_waits_for_each_resource_with_its_own_message() -> None:
    observed = ready_subscription()
    observed["pubsub-subscription"] = {
        "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "Creating"}]}
    }
    actor = plan(settings=PUBSUB, observed=observed)
    report = phase.derive(actor, renderers.render_all(actor))
    assert report.status["infrastructure"]["queue"] == {
        "ready": False,
        "message": "waiting for the subscription to become ready: Creating",
    }
    assert report.status["infrastructure"]["keda"]["message"] == (
        "waiting for the subscription before creating the ScaledObject"
    )
    assert report.ready["pubsub-topic"] is True
    assert report.ready["pubsub-subscription"] is False


@pytest.mark.parametrize("transport", ["rabbitmq", "pubsub"])
def test_the_phase_goes_creating_ready_napping(transport: str) -> None:
    settings = RABBITMQ if transport == "rabbitmq" else PUBSUB
    phases = []
    for name in ("created", "ready", "napping"):
        observed = {} if name == "created" else stage(name, transport)
        actor = plan(settings=settings, observed=observed)
        phases.append(phase.derive(actor, renderers.render_all(actor)).phase.value)
    assert phases == ["Creating", "Ready", "Napping"]


@pytest.mark.parametrize("transport", ["sqs", "rabbitmq", "pubsub"])
def test_every_env_name_the_platform_sets_on_the_sidecar_is_reserved(transport: str) -> None:
    # The validation stage refuses these in sidecar.env: the list must be complete.
    settings: dict[str, Any] = {
        "transport": transport,
        "sidecar": {"sqsEndpoint": "http://sqs", "tracing": {"endpoint": "e", "protocol": "grpc"}},
        "rabbitmq": {"url": "amqp://b/"},
        "pubsub": {"project": "acme-ml", "endpoint": "emulator:8085"},
    }
    spec = {
        "actor": "x-sink",
        "resiliency": {
            "policies": {"p": {"maxAttempts": 2}},
            "rules": [{"errors": ["E"], "policy": "p"}],
            "actorTimeout": "30s",
        },
    }
    rendered = renderers.render_all(plan(spec, settings=settings, observed=stage("ready")))
    names = {item["name"] for item in sidecar(rendered)["env"]}
    assert names <= pod.SIDECAR_ENV | pod.OVERRIDABLE_SIDECAR_ENV


@pytest.mark.parametrize(
    "settings",
    [
        {"sidecar": {"sqsEndpoint": "http://localstack:4566"}, "aws": {"region": "eu-west-1"}},
        {},
        RABBITMQ | {"rabbitmq": {"url": "amqp://broker:5672/"}},
        PUBSUB | {"pubsub": {"project": "acme-prod", "endpoint": "emulator:8085"}},
    ],
    ids=["sqs with an endpoint", "sqs", "rabbitmq with a URL", "pubsub with an emulator"],
)
def test_the_broker_a_transport_names_is_what_its_sidecar_is_told(settings: dict[str, Any]) -> None:
    # Ownership compares another actor's sidecar env with these: they must not drift apart.
    rendered = renderers.render_all(plan(settings=settings, observed=stage("queue-url")))
    actor = plan(settings=settings)
    sidecar = next(
        c
        for c in manifest(rendered["deployment"])["spec"]["template"]["spec"]["containers"]
        if c["name"] == pod.SIDECAR
    )
    told = env(sidecar)
    broker = actor.settings.broker()
    assert {k: v for k, v in broker.items() if v} == {k: told[k] for k in broker if k in told}
    assert all(k in told for k, v in broker.items() if v)
