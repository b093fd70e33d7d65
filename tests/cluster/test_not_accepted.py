"""A v2 actor whose new Deployment the API server refuses says so, through the real Crossplane.

A cluster policy the function cannot see (a ValidatingAdmissionPolicy) refuses a Deployment
scheduled on a closed node pool. A flavor edit moves the actor there: Crossplane applies the
new Deployment, the API server refuses it, and Crossplane shows only "some resources were
invalid" with the API server's words in an event. The actor's own status says that its
Deployment was not taken and which flavor changed; when the flavor is put back, it is taken.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import rig
from tests.cluster.conftest import COMPOSED_CRDS, CROSSPLANE_CRDS, served_crd
from tests.cluster.crossplane import (
    ACTOR,
    EXAMPLES,
    NAMESPACE,
    Cluster,
    crossplane,
    provide_queue,
)

POLICY = "closed-pools"
CLOSED = {"pool": "closed"}
REFUSED = "the closed pool takes no new Deployments"


def policy() -> list[dict[str, Any]]:
    """Deny a Deployment whose pods ask for the closed pool (a platform's own rule)."""
    selector = "object.spec.template.spec.nodeSelector"
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": POLICY},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": ["apps"],
                            "apiVersions": ["v1"],
                            "operations": ["CREATE", "UPDATE"],
                            "resources": ["deployments"],
                        }
                    ]
                },
                "validations": [
                    {
                        "expression": f"!has({selector}) || !('pool' in {selector}) || "
                        f"{selector}['pool'] != 'closed'",
                        "message": REFUSED,
                    }
                ],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": POLICY},
            "spec": {"policyName": POLICY, "validationActions": ["Deny"]},
        },
    ]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Crossplane in the v2 form, with the policy in force."""
    with rig.control_plane() as plane:
        assert plane.kube is not None
        crds = rig.read_documents(*COMPOSED_CRDS, CROSSPLANE_CRDS)
        plane.kube.install(
            [served_crd(c) for c in crds if c.get("kind") == "CustomResourceDefinition"]
        )
        for document in policy():
            plane.kube.apply(document)
        with crossplane(plane, "v2") as cluster:
            rig.eventually(lambda: _enforced(cluster), 60, "the policy in force")
            yield cluster


def _enforced(cluster: Cluster) -> bool:
    probe = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "probe", "namespace": NAMESPACE},
        "spec": {
            "selector": {"matchLabels": {"app": "probe"}},
            "template": {
                "metadata": {"labels": {"app": "probe"}},
                "spec": {"nodeSelector": CLOSED, "containers": [{"name": "c", "image": "c:1"}]},
            },
        },
    }
    try:
        cluster.kube.apply(probe, dry_run=True)
    except rig.KubeError as refused:
        return REFUSED in str(refused)
    return False


def _workload(cluster: Cluster) -> dict[str, Any]:
    """The actor's workload status, once its queue is provided (the rig plays provider-aws)."""
    xr = cluster.xr("enhancer")
    queue = cluster.composed(xr).get("sqs-queue")
    if queue is not None and not queue.get("status", {}).get("atProvider"):
        provide_queue(cluster.kube, queue)
    found: dict[str, Any] = xr.get("status", {}).get("infrastructure", {}).get("workload", {})
    return found


def test_a_refused_deployment_is_said_on_the_actor_with_the_flavor_behind_it(
    cluster: Cluster,
) -> None:
    cluster.kube.apply(copy.deepcopy(ACTOR))
    rig.eventually(
        lambda: "deployment" in cluster.composed(cluster.xr("enhancer")), 120, "the Deployment"
    )
    [original] = rig.read_documents(EXAMPLES / "flavors" / "gpu-a100.yaml")
    closed = copy.deepcopy(original)
    closed["data"]["nodeSelector"] = CLOSED
    try:
        cluster.kube.apply(closed)

        def said() -> str | None:
            message = str(_workload(cluster).get("message", ""))
            return message if "has not accepted" in message else None

        message = rig.eventually(said, 150, "the actor saying its Deployment was not taken")
        assert message == (
            "the API server has not accepted the actor's new Deployment, and the one running "
            'was rendered before these changed: flavor "gpu-a100"; `kubectl describe '
            f"asyncactor enhancer -n {NAMESPACE}` shows Crossplane's event with the API "
            "server's words"
        )
        xr = cluster.xr("enhancer")
        assert xr["status"]["phase"] == "Degraded"
        conditions = {c["type"]: c for c in xr["status"]["conditions"]}
        assert conditions["WorkloadAvailable"]["reason"] == "DeploymentNotAccepted"
        assert conditions["Synced"]["status"] == "False"
        # The old Deployment runs on, as it was.
        running = cluster.deployment(xr)
        assert running["spec"]["template"]["spec"]["nodeSelector"] != CLOSED
    finally:
        cluster.kube.apply(original)

    def taken() -> bool:
        workload = _workload(cluster)
        running = cluster.deployment(cluster.xr("enhancer"))
        mark = running["metadata"].get("annotations", {}).get("asya.sh/rendered")
        return mark == workload.get("rendered") and "has not accepted" not in str(
            workload.get("message", "")
        )

    rig.eventually(taken, 150, "the restored flavor's Deployment taken and the status clear")
