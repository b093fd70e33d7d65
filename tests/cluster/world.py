"""Crossplane and function-asya in one XR form, with what an actor lives on once composed.

KEDA's operator reads a real SQS API (moto's server) and scales the Deployment; the
Deployment and ReplicaSet controllers make pods; kube-scheduler places them on kwok's
fake nodes, where they turn Ready or fail as a kubelet would say.
"""

from __future__ import annotations

import contextlib
import copy
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.cluster import life, providers, rig
from tests.cluster.conftest import COMPOSED_CRDS, CROSSPLANE_CRDS, served_crd
from tests.cluster.crossplane import API, NAMESPACE, Cluster, crossplane

FLAVORS = Path(__file__).with_name("flavors.yaml")
# The controllers that turn a Deployment into pods, beside the rig's usual two.
CONTROLLERS = (
    "garbage-collector-controller,namespace-controller,deployment-controller,replicaset-controller"
)


@dataclass
class World:
    """Crossplane and function-asya in one form, with KEDA, pods and a queue API."""

    cluster: Cluster
    queues: providers.Queues
    controllers: list[providers.Controller]

    @property
    def kube(self) -> rig.Kube:
        return self.cluster.kube

    def create(self, name: str, **spec: Any) -> None:
        """Apply an actor of this name (its image rig.local/handler:1 unless given)."""
        body = {"actor": name, "image": "rig.local/handler:1", "handler": "handler.process"}
        self.kube.apply(
            {
                "apiVersion": API,
                "kind": "AsyncActor",
                "metadata": {"name": name, "namespace": NAMESPACE},
                "spec": {**body, **spec},
            }
        )

    def status(self, name: str) -> dict[str, Any]:
        """The XR's status (v1: the claim's XR)."""
        try:
            return self.cluster.xr(name).get("status", {})  # type: ignore[no-any-return]
        except rig.KubeError as missing:
            if missing.code == 404:
                return {}
            raise

    def row(self, name: str) -> dict[str, Any]:
        """What `kubectl get asyncactors` prints of the actor."""
        rows = self.kube.columns(API, "AsyncActor", NAMESPACE)
        return next((r for r in rows if r["Name"] == name), {})

    def phases(self, name: str, until: str, timeout: float = 120) -> list[str]:
        """The phases the actor shows, in turn, until it shows `until` in kubectl get too."""
        seen: list[str] = []

        def arrived() -> bool:
            phase = self.status(name).get("phase")
            if phase and (not seen or seen[-1] != phase):
                seen.append(phase)
            return phase == until and self.row(name).get("Status") == until

        try:
            rig.eventually(arrived, timeout, f"{name} {until}", every=0.3)
        except AssertionError as late:
            try:
                scaled = self.scaled_object(name)
                keda = {
                    "metadata": scaled["metadata"].get("annotations"),
                    **scaled.get("status", {}),
                }
            except rig.KubeError as missing:
                keda = {"missing": str(missing)}
            errors = [error for c in self.controllers for error in c.errors[-2:]]
            raise AssertionError(
                f"{late}; phases seen: {seen}; {self.status(name)}; the ScaledObject: {keda}; "
                f"the rig's controllers: {errors or 'no errors'}"
            ) from None
        return seen

    def scaled_object(self, name: str) -> dict[str, Any]:
        return self.kube.get("keda.sh/v1alpha1", "ScaledObject", name, NAMESPACE)  # type: ignore[no-any-return]

    def live_deployment(self, name: str) -> dict[str, Any]:
        return self.kube.get("apps/v1", "Deployment", name, NAMESPACE)  # type: ignore[no-any-return]

    def pods(self, name: str) -> list[dict[str, Any]]:
        path = self.kube.path("v1", "Pod", NAMESPACE) + f"?labelSelector=asya.sh/actor%3D{name}"
        return self.kube.request("GET", path)["items"]  # type: ignore[no-any-return]


def _pointed_at(endpoint: str, document: dict[str, Any]) -> dict[str, Any]:
    """The Composition with its Input's SQS endpoint at the rig's queue API."""
    if document.get("kind") != "Composition":
        return document
    document = copy.deepcopy(document)
    for step in document["spec"]["pipeline"]:
        step["input"].setdefault("sidecar", {})["sqsEndpoint"] = endpoint
    return document


@contextlib.contextmanager
def living(form: str) -> Iterator[World]:
    """A control plane in one XR form with everything an actor lives on."""
    with rig.control_plane() as plane:
        kube = plane.kube
        assert kube is not None
        crds = rig.read_documents(*COMPOSED_CRDS, CROSSPLANE_CRDS)
        kube.install([served_crd(c) for c in crds if c.get("kind") == "CustomResourceDefinition"])
        plane.start_controller_manager(CONTROLLERS)
        life.start_scheduler(plane)
        life.start_kwok(plane)
        life.add_node(kube, "cpu-node", {"kubernetes.io/hostname": "cpu-node"})
        endpoint = life.start_queue_api(plane)
        life.start_keda(plane)
        queues = providers.Queues(kube, endpoint=endpoint)
        started: list[providers.Controller] = [queues]
        if form == "v1":
            started.append(providers.Objects(kube))
        for controller in started:
            controller.start()
        edit = functools.partial(_pointed_at, endpoint)
        try:
            with crossplane(plane, form, edit, more=(FLAVORS,)) as cluster:
                yield World(cluster, queues, started)
        except BaseException:
            for name in ("keda-operator", "kube-scheduler", "kwok"):
                print(f"--- {name}\n{plane.log(name)}")
            for controller in started:
                print(*controller.errors, sep="\n")
            raise
        finally:
            for controller in started:
                controller.stop()
