"""Every example's life stage as the function reports it: a table, reviewed like code.

One row per render case of cases.py: the XR's phase, its Ready condition, the
readiness and message of the queue, KEDA and the workload, the queue URL, which
composed resources exist and the results; for the flavored examples, the spec as
the flavors resolve it. The full output of a few cases stays in want/ as golden
files (cases.FULL); these rows hold every case to its stage without repeating
the ~400 lines each render shares with the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Stage:
    """What one render reports."""

    phase: str
    ready: str
    queue: tuple[bool, str]
    keda: tuple[bool, str]
    workload: tuple[bool, str]
    resources: tuple[str, ...]
    queue_url: str = ""
    results: tuple[str, ...] = ()
    spec: dict[str, Any] = field(default_factory=dict)


STAGES = {
    "text-processor-created": Stage(
        phase="Creating",
        ready="Unready resources: deployment, serviceaccount, sqs-queue, and 1 more",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "text-processor-queue-creating": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue",
        queue=(False, "waiting for the queue to become ready: Creating"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(
            False,
            "Deployment is not available: Deployment does not have minimum availability.",
        ),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "text-processor-queue-no-url": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue",
        queue=(False, "waiting for the queue URL"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(
            False,
            "Deployment is not available: Deployment does not have minimum availability.",
        ),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "text-processor-queue-url": Stage(
        phase="Creating",
        ready="Unready resources: deployment, scaledobject",
        queue=(True, ""),
        keda=(False, "waiting for the ScaledObject to be created"),
        workload=(
            False,
            "Deployment is not available: Deployment does not have minimum availability.",
        ),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-asya-text-processor",
    ),
    "text-processor-ready": Stage(
        phase="Ready",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-asya-text-processor",
    ),
    "text-processor-napping": Stage(
        phase="Napping",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-asya-text-processor",
    ),
    "image-enhancer-created": Stage(
        phase="Creating",
        ready="Unready resources: deployment, serviceaccount, sqs-queue, and 1 more",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "image-enhancer-queue-creating": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue",
        queue=(False, "waiting for the queue to become ready: Creating"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(
            False,
            "Deployment is not available: Deployment does not have minimum availability.",
        ),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "image-enhancer-queue-no-url": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue",
        queue=(False, "waiting for the queue URL"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(
            False,
            "Deployment is not available: Deployment does not have minimum availability.",
        ),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "image-enhancer-queue-url": Stage(
        phase="Creating",
        ready="Unready resources: deployment, scaledobject",
        queue=(True, ""),
        keda=(False, "waiting for the ScaledObject to be created"),
        workload=(
            False,
            "Deployment is not available: Deployment does not have minimum availability.",
        ),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-production-image-enhancer",
    ),
    "image-enhancer-ready": Stage(
        phase="Ready",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-production-image-enhancer",
    ),
    "image-enhancer-napping": Stage(
        phase="Napping",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-production-image-enhancer",
    ),
    "flavored-actor-wins": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue, and triggerauthentication",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "sqs-queue", "triggerauthentication"),
        spec={
            "actor": "actor-wins",
            "env": [{"name": "MODEL_PATH", "value": "/models/v2"}],
            "flavors": ["high-throughput", "openai-secrets", "aggressive-retries"],
            "handler": "actor_wins.handler.process",
            "image": "ghcr.io/myorg/actor-wins:v1",
            "imagePullPolicy": "IfNotPresent",
            "pythonExecutable": "python3",
            "replicas": 1,
            "resiliency": {
                "actorTimeout": "10m",
                "policies": {
                    "transient": {
                        "backoff": "exponential",
                        "initialDelay": "1s",
                        "maxAttempts": 5,
                        "maxInterval": "30s",
                    }
                },
                "rules": [
                    {"errors": ["RateLimitError"], "policy": "transient"},
                    {"errors": ["TimeoutError", "ConnectionError"], "policy": "transient"},
                ],
            },
            "scaling": {
                "cooldownPeriod": 60,
                "enabled": True,
                "maxReplicaCount": 20,
                "minReplicaCount": 5,
                "pollingInterval": 10,
                "queueLength": 10,
            },
            "secretRefs": [
                {
                    "keys": [{"envVar": "OPENAI_API_KEY", "key": "api-key"}],
                    "secretName": "openai-creds",
                }
            ],
        },
    ),
    "flavored-deprecated-flavor": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue, and triggerauthentication",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "sqs-queue", "triggerauthentication"),
        results=('flavor "gpu-t4" is deprecated: Use gpu-a100 instead',),
        spec={
            "actor": "deprecated-flavor",
            "flavors": ["gpu-t4"],
            "handler": "deprecated_flavor.handler.process",
            "image": "ghcr.io/myorg/deprecated-flavor:v1",
            "imagePullPolicy": "IfNotPresent",
            "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-tesla-t4"},
            "pythonExecutable": "python3",
            "replicas": 1,
            "resources": {"limits": {"nvidia.com/gpu": "1"}},
            "scaling": {
                "cooldownPeriod": 300,
                "enabled": True,
                "maxReplicaCount": 10,
                "minReplicaCount": 0,
                "pollingInterval": 30,
                "queueLength": 5,
            },
            "tolerations": [
                {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}
            ],
        },
    ),
    "flavored-gpu-checkpoints": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue, and triggerauthentication",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "sqs-queue", "triggerauthentication"),
        spec={
            "actor": "gpu-checkpoints",
            "flavors": ["gpu-a100", "scale-aggressive", "s3-checkpoints"],
            "handler": "gpu_checkpoints.handler.process",
            "image": "ghcr.io/myorg/gpu-checkpoints:v1",
            "imagePullPolicy": "IfNotPresent",
            "nodeSelector": {"accelerator": "nvidia-a100"},
            "pythonExecutable": "python3",
            "replicas": 1,
            "resources": {
                "limits": {"nvidia.com/gpu": "1"},
                "requests": {"cpu": 4, "memory": "16Gi", "nvidia.com/gpu": "1"},
            },
            "scaling": {
                "cooldownPeriod": 60,
                "enabled": True,
                "maxReplicaCount": 100,
                "minReplicaCount": 10,
                "pollingInterval": 10,
                "queueLength": 10,
            },
            "stateProxy": [
                {
                    "connector": {
                        "env": [
                            {"name": "STATE_BUCKET", "value": "ml-checkpoints"},
                            {"name": "AWS_REGION", "value": "us-west-2"},
                        ],
                        "image": "ghcr.io/deliveryhero/asya-state-proxy-s3-buffered-lww:v1.0.0",
                        "imagePullPolicy": "IfNotPresent",
                        "resources": {"requests": {"cpu": "50m", "memory": "128Mi"}},
                    },
                    "mount": {"path": "/state/checkpoints"},
                    "name": "checkpoints",
                    "writeMode": "buffered",
                }
            ],
            "tolerations": [
                {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}
            ],
        },
    ),
    "flavored-large-cpu-redis": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue, and triggerauthentication",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "sqs-queue", "triggerauthentication"),
        spec={
            "actor": "large-cpu-redis",
            "flavors": ["cpu-large", "scale-minimal", "redis-cache"],
            "handler": "large_cpu_redis.handler.process",
            "image": "ghcr.io/myorg/large-cpu-redis:v1",
            "imagePullPolicy": "IfNotPresent",
            "pythonExecutable": "python3",
            "replicas": 1,
            "resources": {
                "limits": {"cpu": "4", "memory": "8Gi"},
                "requests": {"cpu": "2", "memory": "4Gi"},
            },
            "scaling": {
                "cooldownPeriod": 300,
                "enabled": True,
                "maxReplicaCount": 3,
                "minReplicaCount": 0,
                "pollingInterval": 30,
                "queueLength": 5,
            },
            "stateProxy": [
                {
                    "connector": {
                        "env": [
                            {
                                "name": "REDIS_URL",
                                "value": "redis://redis.default.svc.cluster.local:6379/0",
                            }
                        ],
                        "image": "ghcr.io/deliveryhero/asya-state-proxy-redis-buffered-cas:v1.0.0",
                        "imagePullPolicy": "IfNotPresent",
                    },
                    "mount": {"path": "/state/cache"},
                    "name": "cache",
                    "writeMode": "buffered",
                }
            ],
        },
    ),
    "flavored-resources": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue, and triggerauthentication",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "sqs-queue", "triggerauthentication"),
        spec={
            "actor": "resources",
            "flavors": ["cpu-flavor", "memory-flavor"],
            "handler": "resources.handler.process",
            "image": "ghcr.io/myorg/resources:v1",
            "imagePullPolicy": "IfNotPresent",
            "pythonExecutable": "python3",
            "replicas": 1,
            "resources": {"limits": {"cpu": "2", "memory": "4Gi"}},
            "scaling": {
                "cooldownPeriod": 300,
                "enabled": True,
                "maxReplicaCount": 10,
                "minReplicaCount": 0,
                "pollingInterval": 30,
                "queueLength": 5,
            },
        },
    ),
    "flavored-small-cpu": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue, and triggerauthentication",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "sqs-queue", "triggerauthentication"),
        spec={
            "actor": "small-cpu",
            "flavors": ["cpu-small", "scale-minimal"],
            "handler": "small_cpu.handler.process",
            "image": "ghcr.io/myorg/small-cpu:v1",
            "imagePullPolicy": "IfNotPresent",
            "pythonExecutable": "python3",
            "replicas": 1,
            "resources": {
                "limits": {"cpu": "500m", "memory": "512Mi"},
                "requests": {"cpu": "250m", "memory": "256Mi"},
            },
            "scaling": {
                "cooldownPeriod": 300,
                "enabled": True,
                "maxReplicaCount": 3,
                "minReplicaCount": 0,
                "pollingInterval": 30,
                "queueLength": 5,
            },
        },
    ),
    "flavored-team-flavor": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue, and triggerauthentication",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "sqs-queue", "triggerauthentication"),
        spec={
            "actor": "rag-answerer",
            "env": [{"name": "MODEL_REGISTRY_URL", "value": "https://models.ml.internal"}],
            "flavors": ["gpu-a100", "team-secrets"],
            "handler": "rag.Answerer.process",
            "image": "ghcr.io/myorg/rag-answerer:v2",
            "imagePullPolicy": "IfNotPresent",
            "nodeSelector": {"accelerator": "nvidia-a100"},
            "pythonExecutable": "python3",
            "replicas": 1,
            "resources": {
                "limits": {"nvidia.com/gpu": "1"},
                "requests": {"cpu": 4, "memory": "16Gi", "nvidia.com/gpu": "1"},
            },
            "scaling": {
                "cooldownPeriod": 300,
                "enabled": True,
                "maxReplicaCount": 10,
                "minReplicaCount": 0,
                "pollingInterval": 30,
                "queueLength": 5,
            },
            "secretRefs": [
                {
                    "keys": [
                        {"envVar": "OPENAI_API_KEY", "key": "openai"},
                        {"envVar": "HF_TOKEN", "key": "hf-token"},
                    ],
                    "secretName": "ml-api-keys",
                }
            ],
            "tolerations": [
                {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}
            ],
        },
    ),
    "flavored-tolerations": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue, and triggerauthentication",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "sqs-queue", "triggerauthentication"),
        spec={
            "actor": "tolerations",
            "flavors": ["gpu-tolerations", "spot-tolerations"],
            "handler": "tolerations.handler.process",
            "image": "ghcr.io/myorg/tolerations:v1",
            "imagePullPolicy": "IfNotPresent",
            "pythonExecutable": "python3",
            "replicas": 1,
            "scaling": {
                "cooldownPeriod": 300,
                "enabled": True,
                "maxReplicaCount": 10,
                "minReplicaCount": 0,
                "pollingInterval": 30,
                "queueLength": 5,
            },
            "tolerations": [
                {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"},
                {
                    "effect": "NoSchedule",
                    "key": "cloud.google.com/gke-spot",
                    "operator": "Equal",
                    "value": "true",
                },
            ],
        },
    ),
    "v2-image-enhancer-created": Stage(
        phase="Creating",
        ready="Unready resources: deployment, serviceaccount, sqs-queue, and 1 more",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "v2-image-enhancer-queue-creating": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue",
        queue=(False, "waiting for the queue to become ready: Creating"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "Deployment is not available: 0/0 ready replicas"),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "v2-image-enhancer-queue-no-url": Stage(
        phase="Creating",
        ready="Unready resources: deployment, sqs-queue",
        queue=(False, "waiting for the queue URL"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "Deployment is not available: 0/0 ready replicas"),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
    ),
    "v2-image-enhancer-queue-url": Stage(
        phase="Creating",
        ready="Unready resources: deployment, scaledobject",
        queue=(True, ""),
        keda=(False, "waiting for the ScaledObject to be created"),
        workload=(False, "Deployment is not available: 0/0 ready replicas"),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-production-image-enhancer",
    ),
    "v2-image-enhancer-ready": Stage(
        phase="Ready",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-production-image-enhancer",
    ),
    "v2-image-enhancer-napping": Stage(
        phase="Napping",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "scaledobject",
            "serviceaccount",
            "sqs-queue",
            "triggerauthentication",
        ),
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/asya-production-image-enhancer",
    ),
    "v2-team-flavor": Stage(
        phase="Creating",
        ready="Unready resources: deployment, serviceaccount, sqs-queue, and 1 more",
        queue=(False, "waiting for the queue to be created"),
        keda=(False, "waiting for the queue URL before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "serviceaccount", "sqs-queue", "triggerauthentication"),
        spec={
            "actor": "rag-answerer",
            "env": [{"name": "MODEL_REGISTRY_URL", "value": "https://models.production.internal"}],
            "flavors": ["gpu-a100", "team-secrets"],
            "handler": "rag.Answerer.process",
            "image": "ghcr.io/myorg/rag-answerer:v2",
            "imagePullPolicy": "IfNotPresent",
            "nodeSelector": {"accelerator": "nvidia-a100"},
            "pythonExecutable": "python3",
            "replicas": 1,
            "resources": {
                "limits": {"nvidia.com/gpu": "1"},
                "requests": {"cpu": 4, "memory": "16Gi", "nvidia.com/gpu": "1"},
            },
            "scaling": {
                "cooldownPeriod": 300,
                "enabled": True,
                "maxReplicaCount": 10,
                "minReplicaCount": 0,
                "pollingInterval": 30,
                "queueLength": 5,
            },
            "secretRefs": [
                {
                    "keys": [{"envVar": "OPENAI_API_KEY", "key": "openai"}],
                    "secretName": "production-api-keys",
                }
            ],
            "tolerations": [
                {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}
            ],
        },
    ),
    "rabbitmq-created": Stage(
        phase="Creating",
        ready="Unready resources: deployment, scaledobject, and triggerauthentication",
        queue=(True, ""),
        keda=(False, "waiting for the ScaledObject to be created"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "scaledobject", "triggerauthentication"),
    ),
    "rabbitmq-ready": Stage(
        phase="Ready",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=("deployment", "scaledobject", "triggerauthentication"),
    ),
    "rabbitmq-napping": Stage(
        phase="Napping",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=("deployment", "scaledobject", "triggerauthentication"),
    ),
    "pubsub-created": Stage(
        phase="Creating",
        ready="Unready resources: deployment, pubsub-subscription, pubsub-topic, and 1 more",
        queue=(False, "waiting for the topic to be created"),
        keda=(False, "waiting for the subscription before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "pubsub-subscription", "pubsub-topic", "triggerauthentication"),
    ),
    "pubsub-subscription-ready": Stage(
        phase="Creating",
        ready="Unready resources: deployment, scaledobject, and triggerauthentication",
        queue=(True, ""),
        keda=(False, "waiting for the ScaledObject to be created"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=(
            "deployment",
            "pubsub-subscription",
            "pubsub-topic",
            "scaledobject",
            "triggerauthentication",
        ),
    ),
    "pubsub-ready": Stage(
        phase="Ready",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "pubsub-subscription",
            "pubsub-topic",
            "scaledobject",
            "triggerauthentication",
        ),
    ),
    "pubsub-napping": Stage(
        phase="Napping",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "pubsub-subscription",
            "pubsub-topic",
            "scaledobject",
            "triggerauthentication",
        ),
    ),
    "v2-rabbitmq-created": Stage(
        phase="Creating",
        ready="Unready resources: deployment, scaledobject, and triggerauthentication",
        queue=(True, ""),
        keda=(False, "waiting for the ScaledObject to be created"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "scaledobject", "triggerauthentication"),
    ),
    "v2-rabbitmq-ready": Stage(
        phase="Ready",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=("deployment", "scaledobject", "triggerauthentication"),
    ),
    "v2-rabbitmq-napping": Stage(
        phase="Napping",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=("deployment", "scaledobject", "triggerauthentication"),
    ),
    "v2-pubsub-created": Stage(
        phase="Creating",
        ready="Unready resources: deployment, pubsub-subscription, pubsub-topic, and 1 more",
        queue=(False, "waiting for the topic to be created"),
        keda=(False, "waiting for the subscription before creating the ScaledObject"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=("deployment", "pubsub-subscription", "pubsub-topic", "triggerauthentication"),
    ),
    "v2-pubsub-subscription-ready": Stage(
        phase="Creating",
        ready="Unready resources: deployment, scaledobject, and triggerauthentication",
        queue=(True, ""),
        keda=(False, "waiting for the ScaledObject to be created"),
        workload=(False, "waiting for the Deployment to be created"),
        resources=(
            "deployment",
            "pubsub-subscription",
            "pubsub-topic",
            "scaledobject",
            "triggerauthentication",
        ),
    ),
    "v2-pubsub-ready": Stage(
        phase="Ready",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "pubsub-subscription",
            "pubsub-topic",
            "scaledobject",
            "triggerauthentication",
        ),
    ),
    "v2-pubsub-napping": Stage(
        phase="Napping",
        ready="Available",
        queue=(True, ""),
        keda=(True, ""),
        workload=(True, ""),
        resources=(
            "deployment",
            "pubsub-subscription",
            "pubsub-topic",
            "scaledobject",
            "triggerauthentication",
        ),
    ),
}
