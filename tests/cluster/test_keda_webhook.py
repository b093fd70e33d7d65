"""KEDA's own admission webhook judges validate/keda_checks.py, both ways.

What the function refuses of a ScaledObject, rendered again with that check off, KEDA's
webhook must refuse too (or the refusal was a false one); what the function renders
without a word, the webhook must take. A trigger the function only warns of (a cpu
trigger whose containers ask for no cpu, which a LimitRange may settle) the webhook may
refuse: the function reports it. The webhook (`keda-webhooks` from KEDA v2.20.2) runs on
loopback with the ValidatingWebhookConfiguration KEDA ships, pointed at it by URL, for
one namespace; each actor's Deployment exists for real, as the webhook reads it, and
each ScaledObject is applied for real (no KEDA operator runs beside this API server), as
the webhook skips its cpu and memory check on a dry run.
"""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import json_format

from function import runner as fn
from function.validate import keda_checks
from tests import support
from tests.cluster import rig

# It applies no queue (the RabbitMQ transport composes none): no provider CRD is needed.
NEEDS_SCHEMAS = False
NAMESPACE = "keda-judged"
# RabbitMQ's trigger names its queue, so the ScaledObject is rendered on the first call.
INPUT = {"transport": "rabbitmq"}
CPU = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}
ASKS_FOR_CPU = {
    "resources": {"requests": {"cpu": "1"}},
    "sidecar": {"resources": {"requests": {"cpu": "100m"}}},
}

# name, the actor's spec, what the function does: "refuses", "warns" or "renders".
CASES = [
    ("plain", {}, "renders"),
    ("cpu-asked", {"scaling": {"additionalTriggers": [CPU]}, **ASKS_FOR_CPU}, "renders"),
    ("formula", {"scaling": {"advanced": {"formula": "queue * 2", "target": "5"}}}, "renders"),
    (
        "same-name",
        {"scaling": {"additionalTriggers": [{**CPU, "name": "queue"}]}, **ASKS_FOR_CPU},
        "refuses",
    ),
    (
        "cached-cpu",
        {"scaling": {"additionalTriggers": [{**CPU, "useCachedMetrics": True}]}, **ASKS_FOR_CPU},
        "refuses",
    ),
    ("bad-target", {"scaling": {"advanced": {"formula": "queue", "target": "abc"}}}, "refuses"),
    ("zero-target", {"scaling": {"advanced": {"formula": "queue", "target": "0"}}}, "refuses"),
    ("min-over-max", {"scaling": {"minReplicaCount": 5, "maxReplicaCount": 2}}, "refuses"),
    ("cpu-unasked", {"scaling": {"additionalTriggers": [CPU]}}, "warns"),
]


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def webhook(plane: rig.ControlPlane, kube: rig.Kube) -> Iterator[None]:
    """KEDA's webhooks on loopback, registered for NAMESPACE only (failing closed)."""
    certs = support.make_certificates(plane.directory / "keda-webhooks", ca_name="keda-webhooks-ca")
    port = rig.free_port()
    for name in ("keda", NAMESPACE):
        kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    plane.launch(
        "keda-webhooks",
        f"--cert-dir={certs.directory}",
        f"--port={port}",
        f"--metrics-bind-address=127.0.0.1:{rig.free_port()}",
        f"--health-probe-bind-address=127.0.0.1:{rig.free_port()}",
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(plane.directory),
            "KUBECONFIG": str(kube.kubeconfig(plane.directory / "kubeconfig")),
            "POD_NAMESPACE": "keda",
            "KEDA_CLUSTER_OBJECT_NAMESPACE": "keda",
        },
    )
    rig.eventually(lambda: _listening(port), 60, "KEDA's webhooks listening")
    registration = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "keda-admission-rig"},
        "webhooks": [
            {
                "name": "vscaledobject.kb.io",
                "clientConfig": {
                    "url": f"https://127.0.0.1:{port}/validate-keda-sh-v1alpha1-scaledobject",
                    "caBundle": base64.b64encode(certs.ca).decode(),
                },
                "rules": [
                    {
                        "apiGroups": ["keda.sh"],
                        "apiVersions": ["v1alpha1"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["scaledobjects"],
                    }
                ],
                "failurePolicy": "Fail",
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}},
            }
        ],
    }
    kube.apply(registration)
    yield
    kube.delete(
        "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "keda-admission-rig"
    )


def _answer(name: str, spec: dict[str, Any]) -> fnv1.RunFunctionResponse:
    xr = support.MINIMAL_XR | {
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"actor": name, "image": "x:1", "handler": "x.handle", **spec},
    }
    req = support.request(xr, input=support.struct(INPUT))
    return fn.FunctionRunner().answer(req).message()


def _composed(rsp: fnv1.RunFunctionResponse, kind: str) -> dict[str, Any]:
    for resource in rsp.desired.resources.values():
        body = json_format.MessageToDict(resource.resource)
        if body.get("kind") == kind:
            return body
    raise AssertionError(f"no {kind} composed: {support.fatal_messages(rsp)}")


def _webhook_refusal(rsp: fnv1.RunFunctionResponse, kube: rig.Kube) -> str:
    """What the webhook says of the answer's ScaledObject ('' when it takes it)."""
    kube.apply(_composed(rsp, "Deployment"))
    scaled = _composed(rsp, "ScaledObject")
    # Applied for real: the webhook skips its cpu and memory check on a dry run.
    try:
        kube.apply(scaled)
    except rig.KubeError as refused:
        return str(refused)
    kube.delete(scaled["apiVersion"], "ScaledObject", scaled["metadata"]["name"], NAMESPACE)
    return ""


@pytest.mark.parametrize(("name", "spec", "does"), CASES, ids=[case[0] for case in CASES])
def test_kedas_webhook_refuses_what_the_function_refuses_and_takes_what_it_renders(
    webhook: None, kube: rig.Kube, name: str, spec: dict[str, Any], does: str
) -> None:
    rsp = _answer(name, spec)
    refused = support.fatal_messages(rsp)
    warned = [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_WARNING]
    assert (does == "refuses") == bool(refused), refused
    if does == "refuses":
        with mock.patch.object(keda_checks, "check", return_value=None):
            unchecked = _answer(name, spec)
        said = _webhook_refusal(unchecked, kube)
        # KEDA's webhook, or its CRD's own rule (min above max), which the API server applies.
        assert said, f"a false refusal: KEDA takes what the function refused: {refused}"
        return
    said = _webhook_refusal(rsp, kube)
    if does == "renders":
        assert said == "", said
    else:
        # The webhook refuses it here (this namespace has no LimitRange): the warning is due.
        assert any("cpu" in w for w in warned), warned
        assert "admission webhook" in said, said
