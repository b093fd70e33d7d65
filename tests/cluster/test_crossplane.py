"""Crossplane core itself, against the real API server, calling function-asya over mutual TLS.

How the rig runs core without a package is said in crossplane.py.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from function.models.xr import CROSSPLANE_MACHINERY
from tests import support
from tests.cluster import rig
from tests.cluster.conftest import COMPOSED_CRDS, CROSSPLANE_CRDS, served_crd
from tests.cluster.crossplane import (
    ACTOR,
    API,
    EXAMPLES,
    FORMS,
    NAMESPACE,
    RESOURCES,
    Cluster,
    crossplane,
    provide_queue,
)
from tests.golden.cases import CASES


@pytest.fixture(scope="module", params=sorted(FORMS))
def cluster(request: pytest.FixtureRequest) -> Iterator[Cluster]:
    """A fresh control plane per form: the two XRDs both define asyncactors.asya.sh."""
    with rig.control_plane() as plane:
        assert plane.kube is not None
        crds = rig.read_documents(*COMPOSED_CRDS, CROSSPLANE_CRDS)
        plane.kube.install(
            [served_crd(c) for c in crds if c.get("kind") == "CustomResourceDefinition"]
        )
        plane.start_controller_manager()
        with crossplane(plane, request.param) as cluster:
            yield cluster


def _ready_to_read(cluster: Cluster, name: str) -> dict[str, Any]:
    """The actor's XR once all five objects are composed.

    The ScaledObject follows the queue's URL, which the rig provides as soon as
    the queue is composed.
    """

    def composed_all() -> dict[str, Any] | None:
        xr = cluster.xr(name)
        composed = cluster.composed(xr)
        queue = composed.get("sqs-queue")
        if queue is not None and not queue.get("status", {}).get("atProvider"):
            provide_queue(cluster.kube, queue)
        return xr if set(composed) == RESOURCES else None

    return rig.eventually(composed_all, 120, f"{name}'s five composed objects")  # type: ignore[no-any-return]


@pytest.fixture
def enhancer(cluster: Cluster) -> dict[str, Any]:
    """The actor enhancer (ACTOR) applied, with its five objects composed: its XR.

    Applying the same body again changes nothing, so the tests of one form share one
    composition, and each passes alone or in any order. A test that deletes the actor
    leaves it to the next one to compose it anew, once its deletion is done.
    """

    def not_being_deleted() -> bool:
        try:
            claim = cluster.kube.get(API, "AsyncActor", "enhancer", NAMESPACE)
        except rig.KubeError as missing:
            if missing.code != 404:
                raise
            return True
        return "deletionTimestamp" not in claim["metadata"]

    rig.eventually(not_being_deleted, 120, "the deleted enhancer gone before it is applied again")
    cluster.kube.apply(copy.deepcopy(ACTOR))
    return _ready_to_read(cluster, "enhancer")


def test_an_actor_composes_its_five_objects_and_shows_its_phase(
    cluster: Cluster, enhancer: dict[str, Any]
) -> None:
    assert set(cluster.composed(enhancer)) == RESOURCES
    phased = rig.eventually(
        lambda: cluster.xr("enhancer").get("status", {}).get("phase"), 60, "the XR's phase"
    )
    # No pods run in the rig: the actor is being created.
    assert phased == "Creating"
    # `kubectl get asyncactors` (the claims, in the v1 form) shows the actor and its phase.
    [row] = rig.eventually(
        lambda: [r for r in cluster.kube.columns(API, "AsyncActor", NAMESPACE) if r["Status"]],
        60,
        "the phase in kubectl get's columns",
    )
    assert (row["Name"], row["Actor"], row["Status"]) == ("enhancer", "enhancer", "Creating")


def test_a_flavor_edit_reaches_the_deployment_without_touching_the_actor(
    cluster: Cluster, enhancer: dict[str, Any]
) -> None:
    generation = enhancer["metadata"]["generation"]
    memory = _memory(cluster.deployment(enhancer))
    assert memory == "16Gi"
    [original] = rig.read_documents(EXAMPLES / "flavors" / "gpu-a100.yaml")
    [edited] = rig.read_documents(EXAMPLES / "flavor-change" / "gpu-a100.yaml")
    try:
        cluster.kube.apply(edited)
        rig.eventually(
            lambda: _memory(cluster.deployment(cluster.xr("enhancer"))) == "24Gi",
            90,
            "the Deployment to ask for the flavor's new memory",
        )
        assert cluster.xr("enhancer")["metadata"]["generation"] == generation
    finally:
        # The library as the other tests know it (the Deployment follows at the next poll).
        cluster.kube.apply(original)
    restored = cluster.kube.get(original["apiVersion"], "EnvironmentConfig", "gpu-a100")
    assert restored["data"] == original["data"]


def _memory(deployment: dict[str, Any]) -> str:
    [runtime] = [
        c
        for c in deployment["spec"]["template"]["spec"]["containers"]
        if c["name"] == "asya-runtime"
    ]
    return runtime["resources"]["requests"]["memory"]  # type: ignore[no-any-return]


def test_a_second_actor_on_the_same_queue_is_refused_and_the_first_keeps_its_objects(
    cluster: Cluster, enhancer: dict[str, Any]
) -> None:
    first = enhancer
    before = {name: body["metadata"]["uid"] for name, body in cluster.composed(first).items()}
    namesake = copy.deepcopy(ACTOR)
    namesake["metadata"]["name"] = "enhancer-copy"

    def refused() -> str | None:
        xr = cluster.xr("enhancer-copy")
        for condition in xr.get("status", {}).get("conditions", []):
            if condition["type"] == "Synced" and condition["status"] == "False":
                return condition.get("message", "")  # type: ignore[no-any-return]
        return None

    cluster.kube.apply(namesake)
    try:
        message = rig.eventually(refused, 90, "the namesake refused")
        # It names the XR that holds the name (in v2 the first actor, enhancer; in v1
        # that actor's XR), never only the namesake's own.
        owner = first["metadata"]["name"]
        assert (
            f'invalid actor spec: actor: "enhancer" is taken in namespace "{NAMESPACE}" by XR '
            f'"{owner}" (its Deployment {NAMESPACE}/enhancer): both would compose the queue '
            f"asya-{NAMESPACE}-enhancer and the Deployment enhancer"
        ) in message
        assert cluster.composed(cluster.xr("enhancer-copy")) == {}
        after = {name: body["metadata"]["uid"] for name, body in cluster.composed(first).items()}
        assert after == before
    finally:
        cluster.kube.delete(API, "AsyncActor", "enhancer-copy", NAMESPACE)


PAUSED = "autoscaling.keda.sh/paused-replicas"


def _scaled_object_annotations(cluster: Cluster) -> dict[str, str]:
    body = cluster.composed(cluster.xr("enhancer")).get("scaledobject", {})
    manifest = body.get("spec", {}).get("forProvider", {}).get("manifest", body)
    return manifest.get("metadata", {}).get("annotations", {})  # type: ignore[no-any-return]


@pytest.mark.usefixtures("enhancer")
def test_kubectl_scale_pins_the_actor_and_unpinning_resumes_autoscaling(cluster: Cluster) -> None:
    actor = cluster.kube.path(API, "AsyncActor", NAMESPACE, "enhancer")
    # What `kubectl scale asyncactor/enhancer --replicas=0` sends.
    cluster.kube.request(
        "PATCH",
        actor + "/scale",
        {"spec": {"replicas": 0}},
        content_type="application/merge-patch+json",
    )
    pinned = cluster.kube.get(API, "AsyncActor", "enhancer", NAMESPACE)["spec"]["scaling"]
    assert pinned["pinnedReplicas"] == 0
    rig.eventually(
        lambda: _scaled_object_annotations(cluster).get(PAUSED) == "0",
        90,
        "KEDA's paused-replicas on the ScaledObject",
    )
    # The Scale reads the pin (a count of 0 is left out of its JSON, as Go omits it).
    scale = cluster.kube.request("GET", actor + "/scale")
    assert (scale["kind"], scale["spec"].get("replicas", 0)) == ("Scale", 0)
    # Removing the pin hands the count back to KEDA. A claim does not pass a removed
    # field on to its XR (crossplane#4982): in the v1 form the XR loses it too.
    unpin = [{"op": "remove", "path": "/spec/scaling/pinnedReplicas"}]
    patch = "application/json-patch+json"
    cluster.kube.request("PATCH", actor, unpin, content_type=patch)
    if cluster.form == "v1":
        xr = cluster.kube.path(API, "XAsyncActor", None, cluster.xr("enhancer")["metadata"]["name"])
        cluster.kube.request("PATCH", xr, unpin, content_type=patch)
    rig.eventually(
        lambda: PAUSED not in _scaled_object_annotations(cluster),
        90,
        "the pin removed from the ScaledObject",
    )


def test_deleting_the_actor_deletes_its_objects(cluster: Cluster, enhancer: dict[str, Any]) -> None:
    refs = list(cluster.composed(enhancer).values())
    cluster.kube.delete(API, "AsyncActor", "enhancer", NAMESPACE)

    def gone() -> bool:
        for body in refs:
            meta = body["metadata"]
            try:
                cluster.kube.get(
                    body["apiVersion"], body["kind"], meta["name"], meta.get("namespace")
                )
            except rig.KubeError as missing:
                if missing.code != 404:
                    raise
            else:
                return False
        return True

    rig.eventually(gone, 120, "the actor's composed objects deleted")


# Rules of the XRD the API server applies itself: CEL, which no Python validator reads
# (the function applies the same rules to what a flavor sets).
XRD_REFUSES = [
    ({"sidecars": [{"name": "asya-extra", "image": "x:1"}]}, "reserved for internal use"),
    ({"initContainers": [{"name": "asya-init", "image": "x:1"}]}, "reserved for internal use"),
    ({"scaling": {"advanced": {"formula": "queue"}}}, "formula requires target"),
    ({"scaling": {"advanced": {"formula": ""}}}, "formula requires target"),
]
# A field of every kind the XRD types (its typed tolerations, triggers and node labels too).
EVERY_KIND_OF_FIELD = {
    "imagePullPolicy": "Always",
    "replicas": 2,
    "env": [
        {"name": "A", "value": "1"},
        {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "x"}}},
    ],
    "tolerations": [
        {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
        {
            "key": "k",
            "operator": "Equal",
            "value": "v",
            "effect": "NoExecute",
            "tolerationSeconds": 30,
        },
        {"operator": "Exists"},
    ],
    "nodeSelector": {"cloud.google.com/gke-spot": "true", "empty": ""},
    "sidecars": [{"name": "proxy", "image": "p:1", "ports": [{"containerPort": 9000}]}],
    "scaling": {
        "minReplicaCount": 1,
        "maxReplicaCount": 2147483647,
        "pinnedReplicas": 0,
        "advanced": {"formula": "queue", "target": "5", "metricType": "Value"},
        "additionalTriggers": [
            {
                "type": "cpu",
                "name": "cpu",
                "metricType": "Utilization",
                "metadata": {"value": "60"},
                "authenticationRef": {"name": "auth", "kind": "ClusterTriggerAuthentication"},
            }
        ],
    },
    "resiliency": {
        "policies": {"default": {"maxAttempts": 3}},
        "rules": [{"errors": ["x"], "policy": "default"}],
    },
    "metrics": {"custom": [{"name": "tokens_total", "type": "counter", "labels": ["model"]}]},
    "priorityClassName": "high",
    "imagePullSecrets": [{"name": "registry"}],
}


def _actor(spec: dict[str, Any]) -> dict[str, Any]:
    """An actor of this spec, named after it."""
    metadata = {"name": spec["actor"], "namespace": NAMESPACE}
    return {"apiVersion": API, "kind": "AsyncActor", "metadata": metadata, "spec": spec}


def _minimal(actor: str, **spec: Any) -> dict[str, Any]:
    return {"actor": actor, "image": "x:1", "handler": "x.handle", **spec}


@pytest.mark.parametrize(("spec", "said"), XRD_REFUSES, ids=[s for _, s in XRD_REFUSES])
def test_the_xrd_refuses_a_reserved_name_and_a_formula_without_target(
    cluster: Cluster, spec: dict[str, Any], said: str
) -> None:
    with pytest.raises(rig.KubeError) as refused:
        cluster.kube.apply(_actor(_minimal("refused", **spec)), dry_run=True)
    assert refused.value.code == 422
    assert said in str(refused.value)


def test_the_xrd_takes_every_kind_of_field_and_every_examples_spec(cluster: Cluster) -> None:
    cluster.kube.apply(_actor(_minimal("every-field", **EVERY_KIND_OF_FIELD)), dry_run=True)
    examples = {support.ROOT / case.xr for case in CASES} | set(EXAMPLES.glob("*/claim.yaml"))
    for path in sorted(examples):
        for example in rig.read_documents(path):
            spec = {k: v for k, v in example["spec"].items() if k not in CROSSPLANE_MACHINERY}
            cluster.kube.apply(_actor(spec), dry_run=True)
