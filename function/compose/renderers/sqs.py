"""The SQS transport: a Queue managed resource, the aws-sqs-queue trigger, the sidecar's AWS settings."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from function.compose.renderers import meta
from function.compose.renderers.transport import Credentials, QueueState
from function.errors import InputError, SpecError
from function.models import observed, pod, queues
from function.models.input import Input
from function.models.plan import Plan
from function.models.requirement import Requirement
from function.models.scaling import QUEUE_TRIGGER
from function.models.xr import Composite

QUEUE = "sqs-queue"
# SQS queue names: at most 80 characters of letters, digits, hyphens and underscores.
MAX_QUEUE_NAME = 80
QUEUE_URL_ENV = "ASYA_QUEUE_URL"
# The Queue's API: cluster-scoped (v1 form), namespaced `.m.` (v2 form).
QUEUE_API_VERSIONS = ("sqs.aws.upbound.io/v1beta1", "sqs.aws.m.upbound.io/v1beta1")
# The namespace's dead-letter queue: the Queue the platform labels as one.
DEAD_LETTER_KEY = "dead-letter-queue"
DEAD_LETTER_ROLE = ("asya.sh/role", "dlq")


def queue_url(plan: Plan) -> str:
    """The queue's URL once the provider reports it ('' before)."""
    body = plan.observed.get(QUEUE)
    return observed.at_provider(body, "id") or observed.at_provider(body, "url")


def dead_letter_name(plan: Plan) -> str:
    """The namespace's dead-letter queue, which the platform creates."""
    return queues.dead_letter_name(plan.namespace)


def _named(body: Any) -> tuple[Any, Any]:
    """A fetched Queue's name: in its spec, and as its external name."""
    return (
        observed.dig(body, "spec", "forProvider", "name"),
        observed.dig(body, "metadata", "annotations", meta.EXTERNAL_NAME),
    )


def _dead_letter_queues(plan: Plan, name: str) -> Iterator[Any]:
    """The dead-letter queues Crossplane fetched that bear this name (and the platform's label)."""
    role, value = DEAD_LETTER_ROLE
    for body in plan.transport_fetched.get(DEAD_LETTER_KEY, ()):
        if name in _named(body) and observed.dig(body, "metadata", "labels", role) == value:
            yield body


def _a_dead_letter_queue(plan: Plan, name: str) -> bool:
    """Whether a dead-letter queue Crossplane fetched bears this name."""
    return any(True for _ in _dead_letter_queues(plan, name))


def dead_letter_arn(plan: Plan) -> str:
    """The dead-letter queue's ARN once it is known to exist ('' before, or without an account).

    Known from the Queue Crossplane fetched (labelled `asya.sh/role: dlq`, of that name,
    with an ARN), else kept from the redrive policy the queue already has: a fetch that
    comes back empty for a while never drops a working redrive.
    """
    if not plan.settings.aws.account_id:
        return ""
    name = dead_letter_name(plan)
    for body in _dead_letter_queues(plan, name):
        if arn := observed.at_provider(body, "arn"):
            return arn
    kept = observed.dig(plan.observed.get(QUEUE), "spec", "forProvider", "redrivePolicy")
    if isinstance(kept, str):
        try:
            target = json.loads(kept).get("deadLetterTargetArn")
        except (ValueError, AttributeError):
            target = None
        if isinstance(target, str) and target.endswith(f":{name}"):
            return target
    return ""


def known_queue_url(plan: Plan) -> str:
    """The queue URL: observed on the queue, else the one last rendered from it.

    A provider restart can leave the queue observed without its status for a while.
    The URL an actor's pods and autoscaler already use is kept meanwhile (read back
    from the observed Deployment's sidecar and the ScaledObject's trigger): a
    transient status never rolls the pods nor deletes the autoscaler.
    """
    url = queue_url(plan)
    if url:
        return url
    url = observed.container_env(plan.observed.get(meta.DEPLOYMENT), pod.SIDECAR, QUEUE_URL_ENV)
    if url:
        return url
    for trigger in observed.triggers(plan.observed.get(meta.SCALED_OBJECT)):
        if isinstance(trigger, Mapping) and trigger.get("name") == QUEUE_TRIGGER:
            metadata = trigger.get("metadata")
            existing = metadata.get("queueURL") if isinstance(metadata, Mapping) else None
            if isinstance(existing, str) and existing:
                return existing
    return ""


def _dead_letter(plan: Plan) -> tuple[str, str]:
    """Where failed messages go, and the warning while they have nowhere to go."""
    if not plan.settings.aws.account_id:
        return "", ""
    if arn := dead_letter_arn(plan):
        return arn, ""
    why = (
        f"no dead-letter queue {dead_letter_name(plan)} yet (a Queue labelled asya.sh/role: "
        "dlq, which the platform creates): failed messages stay in the queue until they "
        "expire; the redrive is set once it exists"
    )
    return why, why


class SQS:
    """Amazon SQS, through provider-upjet-aws."""

    name = "sqs"

    def wanted(self, settings: Input, xr: Composite) -> list[Requirement]:
        """The dead-letter queues, where a redrive policy would point at one.

        Of the API the actor's queue uses: the cluster-scoped kind (v1 form) labelled
        as one, asked everywhere; the namespaced `.m.` kind (v2 form) by its name,
        `asya-<namespace>-dlq`, in the actor's namespace. That kind is every v2 actor's
        queue's too, and Crossplane answers a label selector by testing each object of
        the kind in the namespace: on every call, 11 % of its CPU at 300 actors.
        """
        if not settings.aws.account_id:
            return []
        legacy, namespaced = QUEUE_API_VERSIONS
        if xr.namespaced:
            return [
                Requirement(
                    key=DEAD_LETTER_KEY,
                    flavor=queues.dead_letter_name(xr.namespace),
                    api_version=namespaced,
                    kind="Queue",
                    namespace=xr.namespace,
                )
            ]
        return [
            Requirement(
                key=DEAD_LETTER_KEY,
                flavor="",
                api_version=legacy,
                kind="Queue",
                match_labels=(DEAD_LETTER_ROLE,),
            )
        ]

    def refuse(self, plan: Plan) -> None:
        """Refuse a queue name that is a namespace's dead-letter queue's, or longer than SQS allows.

        Raises:
            SpecError: when the name is a namespace's dead-letter queue's.
            InputError: when the name is longer than SQS allows.
        """
        name = plan.queue_name
        # asya-<namespace>-dlq is a namespace's dead-letter queue, where its actors' failed
        # messages go: always `dlq`'s here; `b-dlq`'s in namespace `a` once Crossplane has
        # fetched namespace `a-b`'s dead-letter queue by that name (a name ending in -dlq
        # is no other namespace's until one is seen).
        if name == dead_letter_name(plan) or _a_dead_letter_queue(plan, name):
            owner = queues.dead_letter_owner(name)
            raise SpecError(
                f"invalid actor spec: actor: the queue {name} is the dead-letter queue of "
                f"namespace {owner}, where its actors' failed messages go; choose another "
                "spec.actor",
                path="actor",
            )
        if len(name) > MAX_QUEUE_NAME:
            raise InputError(
                f"cannot name the queue: {name!r} is {len(name)} characters, SQS allows "
                f"{MAX_QUEUE_NAME}; shorten the actor or namespace name"
            )

    def resources(self, plan: Plan) -> dict[str, dict[str, Any]]:
        """The SQS Queue managed resource."""
        aws, sqs = plan.settings.aws, plan.settings.sqs
        for_provider: dict[str, Any] = {
            "name": plan.queue_name,
            "region": aws.region,
            "visibilityTimeoutSeconds": sqs.visibility_timeout_seconds,
            "messageRetentionSeconds": sqs.message_retention_seconds,
            "receiveWaitTimeSeconds": sqs.receive_wait_time_seconds,
            # The platform's own tags win, as its labels do.
            "tags": dict(aws.tags)
            | {"asya.sh/namespace": plan.namespace, "asya.sh/actor": plan.actor},
        }
        if dlq := dead_letter_arn(plan):
            for_provider["redrivePolicy"] = json.dumps(
                {"deadLetterTargetArn": dlq, "maxReceiveCount": sqs.dlq.max_receive_count},
                separators=(",", ":"),
            )
        queue = meta.managed(
            plan,
            "Queue",
            QUEUE_API_VERSIONS,
            aws.provider_config_name,
            {"labels": meta.labels(plan, "queue")},
            for_provider,
        )
        return {QUEUE: queue}

    def readiness(self, plan: Plan, queue: QueueState) -> dict[str, bool]:
        """The queue is ready once Ready with a URL."""
        return {QUEUE: queue.ready}

    def queue(self, plan: Plan) -> QueueState:
        """Ready when the Queue is Ready=True and has its URL; the ARN identifies it."""
        body = plan.observed.get(QUEUE)
        url, arn = queue_url(plan), observed.at_provider(body, "arn")
        dead_letter, warning = _dead_letter(plan)
        if body is None:
            state = QueueState(False, "waiting for the queue to be created")
        elif failure := observed.apply_failure(body):
            state = QueueState(False, f"queue {failure}", url, arn)
        elif not observed.is_true(status := observed.manifest_status(body), "Ready"):
            found = observed.describe(observed.condition(status, "Ready"), "Ready")
            state = QueueState(False, f"waiting for the queue to become ready: {found}", url, arn)
        elif not url:
            state = QueueState(False, "waiting for the queue URL", url, arn)
        else:
            state = QueueState(True, "", url, arn)
        return replace(state, dead_letter=dead_letter, warning=warning)

    def scaler_waits_for(self, plan: Plan) -> str:
        """The trigger needs the queue's URL."""
        return "" if known_queue_url(plan) else "the queue URL"

    def authentication(self, plan: Plan) -> dict[str, Any]:
        """How KEDA authenticates to read the queue's length."""
        keda = plan.settings.keda
        if keda.auth_provider == "podIdentity":
            return {"podIdentity": keda.aws.pod_identity()}
        ref = keda.secret_ref
        return {
            "secretTargetRef": [
                {"parameter": "awsAccessKeyID", "name": ref.name, "key": ref.access_key_id_key},
                {
                    "parameter": "awsSecretAccessKey",
                    "name": ref.name,
                    "key": ref.secret_access_key_key,
                },
            ]
        }

    def trigger(self, plan: Plan, authentication: str | None) -> dict[str, Any]:
        """Scale on the queue's length."""
        metadata = {
            "queueURL": known_queue_url(plan),
            "queueLength": str(plan.spec.scaling.queue_length),
            "awsRegion": plan.settings.aws.region,
        }
        if plan.settings.sidecar.sqs_endpoint:
            metadata["awsEndpoint"] = plan.settings.sidecar.sqs_endpoint
        return meta.trigger("aws-sqs-queue", metadata, authentication)

    def sidecar_env(self, plan: Plan) -> list[dict[str, Any]]:
        """The sidecar's region, the queue URL once known, and a custom endpoint."""
        env = [
            {"name": "ASYA_TRANSPORT", "value": self.name},
            {"name": "ASYA_AWS_REGION", "value": plan.settings.aws.region},
        ]
        if url := known_queue_url(plan):
            env.append({"name": QUEUE_URL_ENV, "value": url})
        if plan.settings.sidecar.sqs_endpoint:
            env.append({"name": "ASYA_SQS_ENDPOINT", "value": plan.settings.sidecar.sqs_endpoint})
        return env

    def credentials(self, plan: Plan) -> Credentials:
        """AWS keys from `sidecar.awsCredsSecret` when set, and IRSA when the Input enables it."""
        return Credentials(plan.settings.sidecar.aws_creds_secret, irsa=plan.settings.irsa.enabled)
