"""What an actor lives on once composed: KEDA, a scheduler, fake nodes and a queue API.

KEDA's operator, kube-scheduler and kwok come from `make e2e-tools`; the SQS API is
moto's server (a dev extra). kwok plays the kubelet of fake nodes: pods placed on them
turn Ready, or fail as the label-selected Stages in stages.yaml say. What plays the
providers is in providers.py.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from function.models.observed import is_true
from tests import support
from tests.cluster import rig

KWOK_STAGES = support.ROOT / ".e2e" / "kwok-stages"
KEDA_CRDS = support.ROOT / ".e2e" / "keda-crds"
# The rig's own Stages: pods whose runtime image names a failure fail that way.
FAILING_STAGES = Path(__file__).with_name("stages.yaml")
FAKE_NODE = {"kwok.x-k8s.io/node": "fake"}
# KEDA reads queue lengths with the operator's own AWS identity (the TriggerAuthentication
# function-asya renders by default: podIdentity aws, identityOwner keda), which is the
# default AWS credential chain of its process: these variables.
AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "rig",
    "AWS_SECRET_ACCESS_KEY": "rig",  # moto takes any key
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
}
LIFE_TOOLS = ("kube-scheduler", "keda-operator", "kwok")


def missing() -> list[str]:
    """What an actor's life needs that is not here (tools, stages, moto)."""
    absent = [name for name in LIFE_TOOLS if not (rig.BIN / name).exists()]
    absent += [str(p.name) for p in (KWOK_STAGES, KEDA_CRDS) if not p.exists()]
    if not shutil.which("moto_server", path=str(Path(sys.executable).parent)):
        absent.append("moto_server (pip install -e '.[dev]')")
    return absent


def start_queue_api(plane: rig.ControlPlane) -> str:
    """moto's server on a free loopback port: its endpoint, once it answers."""
    port = rig.free_port()
    program = Path(sys.executable).parent / "moto_server"
    plane.launch("moto", "-H", "127.0.0.1", "-p", str(port), program=program)
    endpoint = f"http://127.0.0.1:{port}"
    rig.eventually(lambda: _answers(endpoint + "/moto-api/"), 60, "moto's server")
    return endpoint


def _answers(url: str) -> bool:
    with contextlib.suppress(OSError):
        with urllib.request.urlopen(url, timeout=5):  # noqa: S310  # loopback, the rig's own
            return True
    return False


def start_scheduler(plane: rig.ControlPlane) -> None:
    """kube-scheduler: it binds the actor's pods to a node that fits, or says why none does."""
    assert plane.kube is not None
    config = plane.kube.kubeconfig(plane.directory / "kubeconfig")
    plane.launch(
        "kube-scheduler",
        f"--kubeconfig={config}",
        f"--authentication-kubeconfig={config}",
        f"--authorization-kubeconfig={config}",
        "--bind-address=127.0.0.1",
        f"--secure-port={rig.free_port()}",
        "--leader-elect=false",
    )


def start_kwok(plane: rig.ControlPlane) -> None:
    """kwok, the kubelet of every node annotated kwok.x-k8s.io/node: fake."""
    assert plane.kube is not None
    config = plane.kube.kubeconfig(plane.directory / "kubeconfig")
    stages = plane.directory / "stages.yaml"
    stages.write_text(yaml.safe_dump_all(_stages()))
    plane.launch(
        "kwok",
        f"--kubeconfig={config}",
        "--manage-all-nodes=false",
        "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
        f"--config={stages}",
        "--cidr=10.244.0.0/16",
        "--node-ip=10.240.0.1",
        "--node-lease-duration-seconds=40",
        f"--server-address=127.0.0.1:{rig.free_port()}",
        f"--node-port={rig.free_port()}",
    )


def _stages() -> list[dict[str, Any]]:
    """kwok's own node and pod Stages, the failing pods excepted from `pod-ready`, then ours."""
    own = [
        stage
        for stage in rig.read_documents(
            KWOK_STAGES / "node" / "fast" / "node-initialize.yaml",
            KWOK_STAGES / "node" / "heartbeat" / "node-heartbeat.yaml",
            KWOK_STAGES / "pod" / "fast",
        )
        if stage.get("kind") == "Stage"  # the folder holds its kustomization too
    ]
    failing = rig.read_documents(FAILING_STAGES)
    # Each failing Stage picks its pods by a container's image: pod-ready leaves them.
    excepted = [
        {"key": chosen["key"], "operator": "NotIn", "values": chosen["values"]}
        for stage in failing
        for chosen in stage["spec"]["selector"]["matchExpressions"]
        if chosen["key"].endswith(".image") and chosen["operator"] == "In"
    ]
    for stage in own:
        if stage["metadata"]["name"] == "pod-ready":
            stage["spec"]["selector"]["matchExpressions"].extend(excepted)
    return own + failing


def add_node(kube: rig.Kube, name: str, labels: dict[str, str], **allocatable: str) -> None:
    """A fake node kwok keeps Ready, with what it can allocate."""
    resources = {"cpu": "16", "memory": "64Gi", "pods": "110", **allocatable}
    kube.apply(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "annotations": FAKE_NODE, "labels": labels},
        }
    )
    kube.apply(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name},
            "status": {"allocatable": resources, "capacity": resources},
        },
        status=True,
    )
    # The API server taints a new node not-ready; once kwok reports it Ready, the taint
    # goes, as kube-controller-manager's node lifecycle controller would take it off
    # (that controller is not run: it would also evict pods on a missed heartbeat).
    rig.eventually(
        lambda: is_true(kube.get("v1", "Node", name).get("status", {}), "Ready"),
        60,
        f"node {name} Ready",
    )
    kube.request(
        "PATCH",
        kube.path("v1", "Node", None, name),
        {"spec": {"taints": None}},
        content_type="application/merge-patch+json",
    )


def start_keda(plane: rig.ControlPlane) -> None:
    """KEDA's operator out of cluster, reading SQS with the operator's own AWS identity.

    Its metrics service stops without a certificate: a self-signed one is made for it.
    """
    assert plane.kube is not None
    config = plane.kube.kubeconfig(plane.directory / "kubeconfig")
    certs = support.make_certificates(plane.directory / "keda-certs", ca_name="keda-rig-ca")
    plane.kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "keda"}})
    plane.launch(
        "keda-operator",
        f"--cert-dir={certs.directory}",
        "--leader-elect=false",
        f"--metrics-bind-address=127.0.0.1:{rig.free_port()}",
        f"--health-probe-bind-address=127.0.0.1:{rig.free_port()}",
        f"--metrics-service-bind-address=127.0.0.1:{rig.free_port()}",
        "--enable-webhook-patching=false",
        "--enable-apiservice-patching=false",
        "--zap-log-level=info",
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(plane.directory),
            "KUBECONFIG": str(config),
            "KEDA_CLUSTER_OBJECT_NAMESPACE": "keda",
            "POD_NAMESPACE": "keda",
            "WATCH_NAMESPACE": "",
            **AWS_ENV,
        },
    )
