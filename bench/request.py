"""The benchmark's request: a realistic AsyncActor reconcile with 3 flavors and 5 observed resources."""

from __future__ import annotations

import copy
import functools
import hashlib
from pathlib import Path
from typing import Any

import yaml
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# Three flavors of about thirty leaves each that do not conflict with each other.
FLAVORS: dict[str, dict[str, Any]] = {
    "bench-compute": {
        "resources": {
            "requests": {"cpu": "2", "memory": "8Gi", "ephemeral-storage": "10Gi"},
            "limits": {"cpu": "4", "memory": "16Gi", "ephemeral-storage": "20Gi"},
        },
        "nodeSelector": {
            "node.kubernetes.io/instance-type": "m6i.2xlarge",
            "topology.kubernetes.io/zone": "us-east-1a",
            "workload": "ml",
        },
        "tolerations": [
            {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"},
            {"key": "spot", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "gpu", "operator": "Exists", "effect": "NoExecute"},
        ],
        "volumes": [
            {"name": "models", "emptyDir": {"sizeLimit": "5Gi"}},
            {"name": "cache", "emptyDir": {"medium": "Memory"}},
        ],
        "volumeMounts": [
            {"name": "models", "mountPath": "/models", "readOnly": True},
            {"name": "cache", "mountPath": "/cache"},
        ],
    },
    "bench-scaling": {
        "scaling": {
            "minReplicaCount": 1,
            "queueLength": 3,
            "pollingInterval": 15,
            "cooldownPeriod": 120,
            "advanced": {"restoreToOriginalReplicaCount": True},
            "additionalTriggers": [
                {
                    "type": "cron",
                    "metadata": {
                        "timezone": "UTC",
                        "start": "0 8 * * *",
                        "end": "0 18 * * *",
                        "desiredReplicas": "2",
                    },
                }
            ],
        },
        "tracing": {"endpoint": "http://otel-collector.observability:4317", "protocol": "grpc"},
        "sidecar": {
            "env": [
                {"name": "ASYA_LOG_LEVEL", "value": "info"},
                {"name": "SIDECAR_FLAG", "value": "1"},
            ],
            "resources": {
                "requests": {"cpu": "50m", "memory": "64Mi"},
                "limits": {"memory": "128Mi"},
            },
        },
    },
    "bench-platform": {
        "env": [{"name": f"PLATFORM_{n}", "value": f"value-{n}"} for n in range(5)],
        "secretRefs": [
            {
                "secretName": "platform-creds",
                "keys": [
                    {"key": "token", "envVar": "PLATFORM_TOKEN"},
                    {"key": "org", "envVar": "PLATFORM_ORG"},
                ],
            }
        ],
        "stateProxy": [
            {
                "name": "checkpoints",
                "mount": {"path": "/state/checkpoints"},
                "connector": {
                    "image": "ghcr.io/deliveryhero/asya-state-proxy-s3-buffered-lww:v1.0.0",
                    "env": [
                        {"name": "STATE_BUCKET", "value": "ml-checkpoints"},
                        {"name": "AWS_REGION", "value": "us-east-1"},
                    ],
                },
            }
        ],
        "resiliency": {
            "policies": {
                "transient": {
                    "maxAttempts": 5,
                    "backoff": "exponential",
                    "initialDelay": "1s",
                    "maxInterval": "30s",
                }
            },
            "rules": [{"errors": ["TimeoutError", "ConnectionError"], "policy": "transient"}],
        },
    },
}


def _load(path: Path) -> list[dict[str, Any]]:
    return copy.deepcopy(_parsed(path))


@functools.cache
def _parsed(path: Path) -> list[dict[str, Any]]:
    # Read once: the fleet builds thousands of requests from the same files.
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def environment_config(name: str) -> dict[str, Any]:
    """The EnvironmentConfig of one benchmark flavor, as Crossplane returns it."""
    return {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {
            "name": name,
            "labels": {"asya.sh/flavor": name},
            "uid": f"uid-{name}",
            "resourceVersion": "12345",
        },
        "data": FLAVORS[name],
    }


def composite(index: int | None = None, *, flavored: bool = True) -> dict[str, Any]:
    """The image-enhancer XR with the benchmark flavors; `index` makes a distinct actor."""
    [xr] = _load(EXAMPLES / "image-enhancer" / "xr.yaml")
    xr = copy.deepcopy(xr)
    if flavored:
        xr["spec"]["flavors"] = list(FLAVORS)
    xr["metadata"] |= {
        "uid": "0b7e8a3c-1d2f-4e5a-9b6c-7d8e9f0a1b2c",
        "resourceVersion": "987654",
        "generation": 3,
        "finalizers": ["composite.apiextensions.crossplane.io"],
        "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
    }
    if index is not None:
        actor = f"actor-{index:05d}"
        xr["spec"]["actor"] = actor
        xr["metadata"]["name"] = f"{actor}-k3m9v"
    xr["status"] = {
        "phase": "Ready",
        "conditions": [
            {
                "type": "Ready",
                "status": "True",
                "reason": "Available",
                "lastTransitionTime": "2026-11-01T00:00:00Z",
            },
            {
                "type": "Synced",
                "status": "True",
                "reason": "ReconcileSuccess",
                "lastTransitionTime": "2026-11-01T00:00:00Z",
            },
        ],
    }
    return xr


# What makes the heavy request heavier: the actor's own env, Secrets and labels.
HEAVY_SPEC: dict[str, Any] = {
    "env": [
        {"name": f"HANDLER_SETTING_{n}", "value": f"value-{n:04d}-" + "x" * 150} for n in range(12)
    ],
    "secretRefs": [
        {
            "secretName": f"actor-secret-{n}",
            "keys": [
                {"key": "token", "envVar": f"ACTOR_TOKEN_{n}"},
                {"key": "url", "envVar": f"ACTOR_URL_{n}"},
            ],
        }
        for n in range(3)
    ],
}


def own_deployment(xr: dict[str, Any]) -> dict[str, Any]:
    """The actor's Deployment as Crossplane fetches it: the observed manifest, labelled."""
    for doc in _load(EXAMPLES / "image-enhancer" / "observed" / "ready.yaml"):
        if doc["metadata"]["annotations"]["crossplane.io/composition-resource-name"] == (
            "deployment"
        ):
            deployment = copy.deepcopy(doc["spec"]["forProvider"]["manifest"])
            deployment["metadata"]["labels"] = {
                "asya.sh/actor": xr["spec"]["actor"],
                "crossplane.io/composite": xr["metadata"]["name"],
            }
            deployment["status"] = copy.deepcopy(doc["status"]["atProvider"]["manifest"]["status"])
            return dict(deployment)
    raise SystemExit("the example's observed Deployment is missing")


def keda_hpa(xr: dict[str, Any]) -> dict[str, Any]:
    """KEDA's HPA for the actor, as Crossplane fetches it (the example's, renamed)."""
    [hpa] = _load(EXAMPLES / "image-enhancer" / "keda-hpa.yaml")
    actor = xr["spec"]["actor"]
    hpa["metadata"]["name"] = f"keda-hpa-{actor}"
    hpa["metadata"]["labels"] |= {"asya.sh/actor": actor, "scaledobject.keda.sh/name": actor}
    return dict(hpa)


def crossplane_tag(req: fnv1.RunFunctionRequest) -> str:
    """The tag Crossplane gives a request: SHA-256 of it, deterministically serialised.

    Computed before meta is set and before the requirements loop adds what it
    fetched, so every call of one loop carries the first call's tag.
    """
    content = fnv1.RunFunctionRequest()
    content.CopyFrom(req)
    for loop_field in ("meta", "required_resources", "extra_resources", "required_schemas"):
        content.ClearField(loop_field)
    return hashlib.sha256(content.SerializeToString(deterministic=True)).hexdigest()


def pod(actor: str, index: int, namespace: str = "production") -> dict[str, Any]:
    """One of an actor's Pods as the API server returns it (about 3.5 KB)."""
    containers = ("asya-runtime", "asya-sidecar")
    conditions = ("Ready", "PodScheduled", "Initialized", "ContainersReady")
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{actor}-7d9f8c6b5-{index:05d}",
            "namespace": namespace,
            "uid": f"pod-uid-{actor}-{index}",
            "resourceVersion": str(100_000 + index),
            "labels": {"asya.sh/actor": actor, "pod-template-hash": "7d9f8c6b5"},
            "managedFields": [
                {
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": "2026-11-01T00:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {"f:labels": {".": {}, "f:asya.sh/actor": {}}},
                        "f:spec": {
                            "f:containers": {
                                f'k:{{"name":"{name}"}}': {".": {}, "f:image": {}, "f:env": {}}
                                for name in containers
                            }
                        },
                    },
                },
                {
                    "manager": "kubelet",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": "2026-11-01T00:00:00Z",
                    "fieldsType": "FieldsV1",
                    "subresource": "status",
                    "fieldsV1": {
                        "f:status": {
                            "f:conditions": {
                                f'k:{{"type":"{kind}"}}': {".": {}, "f:status": {}, "f:type": {}}
                                for kind in conditions
                            }
                        }
                    },
                },
            ],
        },
        "spec": {
            "containers": [
                {
                    "name": name,
                    "image": "ghcr.io/deliveryhero/asya-image-enhancer:1.4.2",
                    "env": [{"name": f"SETTING_{n}", "value": "v" * 20} for n in range(10)],
                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                }
                for name in containers
            ],
            "nodeName": "ip-10-0-1-23.ec2.internal",
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ml"}],
        },
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": kind, "status": "True", "lastTransitionTime": "2026-11-01T00:00:00Z"}
                for kind in conditions
            ],
            "containerStatuses": [
                {
                    "name": name,
                    "ready": True,
                    "restartCount": 0,
                    "image": "ghcr.io/deliveryhero/asya-image-enhancer:1.4.2",
                    "imageID": "sha256:" + "a" * 64,
                    "containerID": "containerd://" + "b" * 64,
                    "state": {"running": {"startedAt": "2026-11-01T00:00:00Z"}},
                }
                for name in containers
            ],
        },
    }


def request(
    index: int | None = None,
    *,
    resolved: bool = True,
    heavy: bool = False,
    variant: int = 0,
    pods: int = 0,
    flavored: bool = True,
) -> fnv1.RunFunctionRequest:
    """A RunFunctionRequest as Crossplane sends it on the second call of a reconcile.

    Args:
        index: makes a distinct actor.
        resolved: with the flavors fetched (else the first call of the loop).
        heavy: the heavier actor (12 env vars, Secrets) of BENCHMARKS.md.
        variant: changes the observed Deployment's status, as a reconcile after a change sees it.
        pods: the actor's Pods fetched alongside the flavors, as the function asks for them
            while its Deployment is not fully available (one of them is not ready, its
            runtime crash-looping).
        flavored: with the benchmark's three flavors (else the example actor has none).
    """
    req = fnv1.RunFunctionRequest()
    xr = composite(index, flavored=flavored)
    if heavy:
        xr["spec"] |= copy.deepcopy(HEAVY_SPEC)
        xr["metadata"]["labels"] |= {f"team.example.com/label-{n}": f"v{n}" for n in range(6)}
    req.observed.composite.resource.update(xr)
    for doc in _load(EXAMPLES / "image-enhancer" / "observed" / "ready.yaml"):
        name = doc["metadata"]["annotations"]["crossplane.io/composition-resource-name"]
        if name == "deployment" and variant:
            doc["status"]["atProvider"]["manifest"]["status"]["observedGeneration"] = variant
        if name == "deployment" and pods:
            deployment_status = doc["status"]["atProvider"]["manifest"]["status"]
            deployment_status |= {"replicas": pods, "readyReplicas": pods - 1}
        req.observed.resources[name].resource.update(doc)
    [composition] = _load(EXAMPLES / "composition.yaml")
    req.input.update(composition["spec"]["pipeline"][0]["input"])
    req.desired.composite.resource.update({"apiVersion": "asya.sh/v1alpha1", "kind": "XAsyncActor"})
    req.meta.tag = crossplane_tag(req)
    if resolved:
        for name in FLAVORS if flavored else ():
            req.required_resources[f"flavor-{name}"].items.add().resource.update(
                environment_config(name)
            )
        # What else the second call carries: the actor's own Deployment (as the API
        # server holds it), KEDA's HPA for it, and its namespace's dead-letter queue.
        req.required_resources["actor-deployments"].items.add().resource.update(own_deployment(xr))
        req.required_resources["actor-hpa"].items.add().resource.update(keda_hpa(xr))
        for queue in _load(EXAMPLES / "platform" / "dead-letter-queues.yaml"):
            if (
                queue["metadata"]["name"] == "asya-production-dlq"
                and "namespace" not in queue["metadata"]
            ):
                req.required_resources["dead-letter-queue"].items.add().resource.update(queue)
    for n in range(pods):
        body = pod(xr["spec"]["actor"], n)
        if n == pods - 1:
            body["status"]["conditions"][0]["status"] = "False"
            runtime = body["status"]["containerStatuses"][0]
            runtime |= {
                "ready": False,
                "restartCount": 7,
                "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
                "lastState": {"terminated": {"reason": "Error", "exitCode": 1}},
            }
        req.required_resources["actor-pods"].items.add().resource.update(body)
    return req
