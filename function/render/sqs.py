"""The SQS transport: its queue, its KEDA trigger and authentication, and the sidecar's env.

Another transport (RabbitMQ, Pub/Sub) is a sibling module with the same functions.
"""

from __future__ import annotations

import json
from typing import Any

from function import observed
from function.errors import InputError
from function.models.plan import Plan
from function.render import meta

NAME = "sqs"
# SQS queue names: at most 80 characters of letters, digits, hyphens and underscores.
MAX_QUEUE_NAME = 80


def queue_name(plan: Plan) -> str:
    """Return `asya-<namespace>-<actor>`.

    Raises:
        InputError: when the name is longer than SQS allows.
    """
    name = f"asya-{plan.namespace}-{plan.actor}"
    if len(name) > MAX_QUEUE_NAME:
        raise InputError(
            f"cannot name the queue: {name!r} is {len(name)} characters, SQS allows {MAX_QUEUE_NAME}; "
            "shorten the actor or namespace name"
        )
    return name


def queue_url(plan: Plan) -> str:
    """The queue's URL once the provider reports it ('' before)."""
    body = plan.observed.get(meta.QUEUE)
    return observed.at_provider(body, "id") or observed.at_provider(body, "url")


def queue_arn(plan: Plan) -> str:
    """The queue's ARN once the provider reports it ('' before)."""
    return observed.at_provider(plan.observed.get(meta.QUEUE), "arn")


def queue(plan: Plan) -> dict[str, Any]:
    """Render the SQS Queue managed resource."""
    aws, sqs = plan.settings.aws, plan.settings.sqs
    for_provider: dict[str, Any] = {
        "name": queue_name(plan),
        "region": aws.region,
        "visibilityTimeoutSeconds": sqs.visibility_timeout_seconds,
        "messageRetentionSeconds": sqs.message_retention_seconds,
        "receiveWaitTimeSeconds": sqs.receive_wait_time_seconds,
        "tags": {"asya.sh/namespace": plan.namespace, "asya.sh/actor": plan.actor} | dict(aws.tags),
    }
    if aws.account_id:
        dlq = f"arn:aws:sqs:{aws.region}:{aws.account_id}:asya-{plan.namespace}-dlq"
        for_provider["redrivePolicy"] = json.dumps(
            {"deadLetterTargetArn": dlq, "maxReceiveCount": sqs.dlq.max_receive_count},
            separators=(",", ":"),
        )
    body: dict[str, Any] = {
        "metadata": {"labels": meta.labels(plan, "queue")},
        "spec": {"forProvider": for_provider},
    }
    if plan.xr.namespaced:
        body["apiVersion"] = "sqs.aws.m.upbound.io/v1beta1"
        body["spec"]["providerConfigRef"] = {
            "kind": "ClusterProviderConfig",
            "name": aws.provider_config_name,
        }
    else:
        body["apiVersion"] = "sqs.aws.upbound.io/v1beta1"
        body["spec"]["providerConfigRef"] = {"name": aws.provider_config_name}
        body["spec"]["deletionPolicy"] = "Delete"
    body["kind"] = "Queue"
    return body


def trigger_authentication_spec(plan: Plan) -> dict[str, Any]:
    """How KEDA authenticates to read the queue's length."""
    keda = plan.settings.keda
    if keda.auth_provider == "podIdentity":
        return {"podIdentity": {"provider": "aws"}}
    ref = keda.secret_ref
    return {
        "secretTargetRef": [
            {"parameter": "awsAccessKeyID", "name": ref.name, "key": ref.access_key_id_key},
            {"parameter": "awsSecretAccessKey", "name": ref.name, "key": ref.secret_access_key_key},
        ]
    }


def trigger(plan: Plan, url: str, auth_name: str) -> dict[str, Any]:
    """The ScaledObject trigger that scales on the queue's length."""
    metadata = {
        "queueURL": url,
        "queueLength": str(plan.spec.scaling.queue_length),
        "awsRegion": plan.settings.aws.region,
    }
    if plan.settings.sidecar.sqs_endpoint:
        metadata["awsEndpoint"] = plan.settings.sidecar.sqs_endpoint
    return {
        "type": "aws-sqs-queue",
        "name": "queue",
        "authenticationRef": {"name": auth_name},
        "metadata": metadata,
    }


def sidecar_env(plan: Plan, url: str) -> list[dict[str, Any]]:
    """The sidecar's transport settings."""
    env = [
        {"name": "ASYA_TRANSPORT", "value": NAME},
        {"name": "ASYA_AWS_REGION", "value": plan.settings.aws.region},
    ]
    if url:
        env.append({"name": "ASYA_QUEUE_URL", "value": url})
    if plan.settings.sidecar.sqs_endpoint:
        env.append({"name": "ASYA_SQS_ENDPOINT", "value": plan.settings.sidecar.sqs_endpoint})
    return env


def queue_ready(plan: Plan) -> tuple[bool, str]:
    """Whether the queue is ready, and if not, what it waits for."""
    body = plan.observed.get(meta.QUEUE)
    if body is None:
        return False, "waiting for the queue to be created"
    if failure := observed.apply_failure(body):
        return False, f"queue {failure}"
    status = observed.manifest_status(body)
    if not observed.is_true(status, "Ready"):
        found = observed.condition(status, "Ready")
        return False, f"waiting for the queue to become ready: {observed.describe(found, 'Ready')}"
    if not queue_url(plan):
        return False, "waiting for the queue URL"
    return True, ""
