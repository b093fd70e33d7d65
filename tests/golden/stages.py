"""Every example's life stage as the function reports it: a table, reviewed like code.

One row per render case of cases.py: the XR's phase, its Ready condition, the
readiness and message of the queue, KEDA and the workload, each composed
resource's readiness as the function sets it, the queue URL and the results. A
flavored example's row also holds the rendered values the example exists to show
(`shows`, by the paths test_golden.pick reads). The full output of a few cases
stays in want/ as golden files (cases.FULL); these rows hold every case to its
stage without repeating the ~400 lines each render shares with the others.

Actors on one transport go through the same stages, so a row is its transport's
stage, replaced where the actor differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

# A part of status.infrastructure: whether it is ready, and the message.
Part = tuple[bool, str]
READY: Part = (True, "")
QUEUE_NOT_CREATED: Part = (False, "waiting for the queue to be created")
QUEUE_CREATING: Part = (False, "waiting for the queue to become ready: Creating")
QUEUE_WITHOUT_URL: Part = (False, "waiting for the queue URL")
TOPIC_NOT_CREATED: Part = (False, "waiting for the topic to be created")
KEDA_AWAITS_URL: Part = (False, "waiting for the queue URL before creating the ScaledObject")
KEDA_AWAITS_SUBSCRIPTION: Part = (
    False,
    "waiting for the subscription before creating the ScaledObject",
)
SCALEDOBJECT_NOT_CREATED: Part = (False, "waiting for the ScaledObject to be created")
DEPLOYMENT_NOT_CREATED: Part = (False, "waiting for the Deployment to be created")
DEPLOYMENT_UNAVAILABLE: Part = (
    False,
    "Deployment is not available: Deployment does not have minimum availability.",
)
# The v2 example's observed Deployment reports no replicas at all.
DEPLOYMENT_WITHOUT_REPLICAS: Part = (False, "Deployment is not available: 0/0 ready replicas")


@dataclass(frozen=True)
class Stage:
    """What one render reports; composed resources as sorted, space-separated names."""

    phase: str
    ready: str  # the Ready condition's message, or its reason when it has none
    queue: Part
    keda: Part
    workload: Part
    unready: str  # the composed resources the function says are not ready
    ready_resources: str = ""  # and those it says are
    queue_url: str = ""
    results: tuple[str, ...] = ()
    shows: dict[str, Any] = field(default_factory=dict)


def ready(phase: str, resources: str) -> Stage:
    """Every composed resource ready, and every part of the infrastructure."""
    return Stage(phase, "Available", READY, READY, READY, "", ready_resources=resources)


SQS = {
    "created": Stage(
        "Creating",
        "Unready resources: deployment, serviceaccount, sqs-queue, and 1 more",
        QUEUE_NOT_CREATED,
        KEDA_AWAITS_URL,
        DEPLOYMENT_NOT_CREATED,
        unready="deployment serviceaccount sqs-queue triggerauthentication",
    ),
    "queue-creating": Stage(
        "Creating",
        "Unready resources: deployment, sqs-queue",
        QUEUE_CREATING,
        KEDA_AWAITS_URL,
        DEPLOYMENT_UNAVAILABLE,
        unready="deployment sqs-queue",
        ready_resources="serviceaccount triggerauthentication",
    ),
    "queue-no-url": Stage(
        "Creating",
        "Unready resources: deployment, sqs-queue",
        QUEUE_WITHOUT_URL,
        KEDA_AWAITS_URL,
        DEPLOYMENT_UNAVAILABLE,
        unready="deployment sqs-queue",
        ready_resources="serviceaccount triggerauthentication",
    ),
    "queue-url": Stage(
        "Creating",
        "Unready resources: deployment, scaledobject",
        READY,
        SCALEDOBJECT_NOT_CREATED,
        DEPLOYMENT_UNAVAILABLE,
        unready="deployment scaledobject",
        ready_resources="serviceaccount sqs-queue triggerauthentication",
    ),
    "ready": ready(
        "Ready", "deployment scaledobject serviceaccount sqs-queue triggerauthentication"
    ),
    "napping": ready(
        "Napping", "deployment scaledobject serviceaccount sqs-queue triggerauthentication"
    ),
}
# The flavored examples name no ServiceAccount of their own.
SQS_WITHOUT_SERVICEACCOUNT = Stage(
    "Creating",
    "Unready resources: deployment, sqs-queue, and triggerauthentication",
    QUEUE_NOT_CREATED,
    KEDA_AWAITS_URL,
    DEPLOYMENT_NOT_CREATED,
    unready="deployment sqs-queue triggerauthentication",
)
# RabbitMQ's queue is declared by the sidecar: nothing to wait for.
RABBITMQ = {
    "created": Stage(
        "Creating",
        "Unready resources: deployment, scaledobject, and triggerauthentication",
        READY,
        SCALEDOBJECT_NOT_CREATED,
        DEPLOYMENT_NOT_CREATED,
        unready="deployment scaledobject triggerauthentication",
    ),
    "ready": ready("Ready", "deployment scaledobject triggerauthentication"),
    "napping": ready("Napping", "deployment scaledobject triggerauthentication"),
}
# The summarizer's pods do not run (examples/troubleshooting): why, with who set what to change.
TROUBLE = {
    "crash-loop": "2 of 2 pods failing: container asya-runtime is crash-looping (exit code 1, "
    "Error); its log says why: kubectl logs deployment/summarizer -c asya-runtime --previous",
    "oom-killed": "2 of 2 pods failing: container asya-runtime was OOMKilled: memory limit 8Gi "
    '(resources.limits.memory, from flavor "cpu-large"); raise it',
    "image-pull": "2 of 2 pods failing: container asya-runtime cannot pull image "
    "ghcr.io/myorg/summarizer:v1.4: check image (from the actor's spec)",
    "missing-secret": '2 of 2 pods failing: container asya-runtime cannot start: secret "openai-creds"'
    ' not found (named by secretRefs[openai-creds].secretName, from flavor "openai-secrets")',
    "unschedulable": "2 of 2 pods pending: cannot be scheduled: the runtime asks for cpu: 2 "
    '(resources.requests.cpu, from flavor "cpu-large"), memory: 4Gi (resources.requests.memory, '
    'from flavor "cpu-large"); the scheduler says: 0/3 nodes are available: 3 Insufficient cpu. '
    "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
}


def troubled(trouble: str) -> Stage:
    """Everything ready but the Deployment, whose pods fail or cannot be placed (Degraded)."""
    message = f"Deployment is not available: {TROUBLE[trouble]}"
    return Stage(
        "Degraded",
        "Unready resources: deployment",
        READY,
        READY,
        (False, message),
        unready="deployment",
        ready_resources="scaledobject serviceaccount sqs-queue triggerauthentication",
        queue_url=SUMMARIZER_URL,
        # A problem seen first is an event (a Warning result): the XR has no condition yet.
        results=(f"WorkloadAvailable is False: {message}",),
    )


PUBSUB_ALL = "deployment pubsub-subscription pubsub-topic scaledobject triggerauthentication"
PUBSUB = {
    "created": Stage(
        "Creating",
        "Unready resources: deployment, pubsub-subscription, pubsub-topic, and 1 more",
        TOPIC_NOT_CREATED,
        KEDA_AWAITS_SUBSCRIPTION,
        DEPLOYMENT_NOT_CREATED,
        unready="deployment pubsub-subscription pubsub-topic triggerauthentication",
    ),
    "subscription-ready": Stage(
        "Creating",
        "Unready resources: deployment, scaledobject, and triggerauthentication",
        READY,
        SCALEDOBJECT_NOT_CREATED,
        DEPLOYMENT_NOT_CREATED,
        unready="deployment scaledobject triggerauthentication",
        ready_resources="pubsub-subscription pubsub-topic",
    ),
    "ready": ready("Ready", PUBSUB_ALL),
    "napping": ready("Napping", PUBSUB_ALL),
}

SQS_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/"
SUMMARIZER_URL = SQS_URL + "asya-production-summarizer"
TEXT_PROCESSOR_URL = SQS_URL + "asya-asya-text-processor"
IMAGE_ENHANCER_URL = SQS_URL + "asya-production-image-enhancer"
RUNTIME = "pod.containers.asya-runtime"

STAGES = {
    "text-processor-created": SQS["created"],
    "text-processor-queue-creating": SQS["queue-creating"],
    "text-processor-queue-no-url": SQS["queue-no-url"],
    "text-processor-queue-url": replace(SQS["queue-url"], queue_url=TEXT_PROCESSOR_URL),
    "text-processor-ready": replace(SQS["ready"], queue_url=TEXT_PROCESSOR_URL),
    "text-processor-napping": replace(SQS["napping"], queue_url=TEXT_PROCESSOR_URL),
    "image-enhancer-created": SQS["created"],
    "image-enhancer-queue-creating": SQS["queue-creating"],
    "image-enhancer-queue-no-url": SQS["queue-no-url"],
    "image-enhancer-queue-url": replace(SQS["queue-url"], queue_url=IMAGE_ENHANCER_URL),
    "image-enhancer-ready": replace(SQS["ready"], queue_url=IMAGE_ENHANCER_URL),
    "image-enhancer-napping": replace(SQS["napping"], queue_url=IMAGE_ENHANCER_URL),
    "v2-image-enhancer-created": SQS["created"],
    "v2-image-enhancer-queue-creating": replace(
        SQS["queue-creating"], workload=DEPLOYMENT_WITHOUT_REPLICAS
    ),
    "v2-image-enhancer-queue-no-url": replace(
        SQS["queue-no-url"], workload=DEPLOYMENT_WITHOUT_REPLICAS
    ),
    "v2-image-enhancer-queue-url": replace(
        SQS["queue-url"], workload=DEPLOYMENT_WITHOUT_REPLICAS, queue_url=IMAGE_ENHANCER_URL
    ),
    "v2-image-enhancer-ready": replace(SQS["ready"], queue_url=IMAGE_ENHANCER_URL),
    "v2-image-enhancer-napping": replace(SQS["napping"], queue_url=IMAGE_ENHANCER_URL),
    # What each flavored example shows, as examples/flavored/README.md lists it.
    "flavored-actor-wins": replace(
        SQS_WITHOUT_SERVICEACCOUNT,
        shows={
            # The actor's maxReplicaCount wins; the flavor's other settings stay.
            "xr.spec.scaling": {
                "cooldownPeriod": 60,
                "enabled": True,
                "maxReplicaCount": 20,
                "minReplicaCount": 5,
                "pollingInterval": 10,
                "queueLength": 10,
            },
            # The actor's retry rule goes first.
            "pod.containers.asya-sidecar.env.ASYA_RESILIENCY_RULES.value": (
                '[{"errors":["RateLimitError"],"policy":"transient"},'
                '{"errors":["TimeoutError","ConnectionError"],"policy":"transient"}]'
            ),
            f"{RUNTIME}.env.MODEL_PATH.value": "/models/v2",
        },
    ),
    "flavored-deprecated-flavor": replace(
        SQS_WITHOUT_SERVICEACCOUNT,
        results=('flavor "gpu-t4" is deprecated: Use gpu-a100 instead',),
        # Deprecated, and still applied.
        shows={"pod.nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-tesla-t4"}},
    ),
    "flavored-gpu-checkpoints": SQS_WITHOUT_SERVICEACCOUNT,
    "flavored-large-cpu-redis": replace(
        SQS_WITHOUT_SERVICEACCOUNT,
        shows={
            "pod.containers.asya-state-proxy-cache.image": (
                "ghcr.io/deliveryhero/asya-state-proxy-redis-buffered-cas:v1.0.0"
            ),
            "pod.containers.asya-state-proxy-cache.env.REDIS_URL.value": (
                "redis://redis.default.svc.cluster.local:6379/0"
            ),
            f"{RUNTIME}.resources": {
                "limits": {"cpu": "4", "memory": "8Gi"},
                "requests": {"cpu": "2", "memory": "4Gi"},
            },
        },
    ),
    # Maps merge: both limits.
    "flavored-resources": replace(
        SQS_WITHOUT_SERVICEACCOUNT,
        shows={f"{RUNTIME}.resources": {"limits": {"cpu": "2", "memory": "4Gi"}}},
    ),
    "flavored-small-cpu": replace(
        SQS_WITHOUT_SERVICEACCOUNT,
        shows={
            f"{RUNTIME}.resources": {
                "limits": {"cpu": "500m", "memory": "512Mi"},
                "requests": {"cpu": "250m", "memory": "256Mi"},
            },
            "xr.spec.scaling": {
                "cooldownPeriod": 300,
                "enabled": True,
                "maxReplicaCount": 3,
                "minReplicaCount": 0,
                "pollingInterval": 30,
                "queueLength": 5,
            },
        },
    ),
    # A cluster flavor (the GPU) and the ml team's ConfigMap flavor (its secrets, its registry).
    "flavored-team-flavor": replace(
        SQS_WITHOUT_SERVICEACCOUNT,
        shows={
            "pod.nodeSelector": {"accelerator": "nvidia-a100"},
            f"{RUNTIME}.env.MODEL_REGISTRY_URL.value": "https://models.ml.internal",
            f"{RUNTIME}.env.HF_TOKEN.valueFrom": {
                "secretKeyRef": {"key": "hf-token", "name": "ml-api-keys"}
            },
        },
    ),
    # Lists append: the pod gets both tolerations.
    "flavored-tolerations": replace(
        SQS_WITHOUT_SERVICEACCOUNT,
        shows={
            "pod.tolerations": [
                {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"},
                {
                    "effect": "NoSchedule",
                    "key": "cloud.google.com/gke-spot",
                    "operator": "Equal",
                    "value": "true",
                },
            ]
        },
    ),
    "v2-team-flavor": SQS["created"],
    "rabbitmq-created": RABBITMQ["created"],
    "rabbitmq-ready": RABBITMQ["ready"],
    "rabbitmq-napping": RABBITMQ["napping"],
    "v2-rabbitmq-created": RABBITMQ["created"],
    "v2-rabbitmq-ready": RABBITMQ["ready"],
    "v2-rabbitmq-napping": RABBITMQ["napping"],
    "pubsub-created": PUBSUB["created"],
    "pubsub-subscription-ready": PUBSUB["subscription-ready"],
    "pubsub-ready": PUBSUB["ready"],
    "pubsub-napping": PUBSUB["napping"],
    "v2-pubsub-created": PUBSUB["created"],
    "v2-pubsub-subscription-ready": PUBSUB["subscription-ready"],
    "v2-pubsub-ready": PUBSUB["ready"],
    "v2-pubsub-napping": PUBSUB["napping"],
    **{
        f"{prefix}troubleshooting-{trouble}": troubled(trouble)
        for prefix in ("", "v2-")
        for trouble in TROUBLE
    },
}
