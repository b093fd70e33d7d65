"""The sidecar's metrics wiring, the PodMonitor, and the pin `kubectl scale` sets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import runner as fn
from function.compose import renderers
from function.compose.renderers import meta
from function.models import pod as pod_model
from tests import schemas, support
from tests.unit.render.plans import manifest, plan, stage

MONITOR = {"metrics": {"podMonitor": True}}


def rendered(spec: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, dict[str, Any]]:
    return {
        name: manifest(body)
        for name, body in renderers.render_all(
            plan(spec, observed=stage("ready"), **kwargs)
        ).items()
    }


def sidecar(objects: dict[str, dict[str, Any]]) -> dict[str, Any]:
    containers = objects["deployment"]["spec"]["template"]["spec"]["containers"]
    return next(c for c in containers if c["name"] == pod_model.SIDECAR)


def env(container: dict[str, Any]) -> dict[str, str]:
    return {item["name"]: item["value"] for item in container["env"]}


def test_the_sidecar_serves_metrics_on_a_named_port_of_labelled_pods_by_default() -> None:
    objects = rendered()
    assert sidecar(objects)["ports"] == [
        {"name": "metrics", "containerPort": 8080, "protocol": "TCP"}
    ]
    template = objects["deployment"]["spec"]["template"]
    assert template["metadata"]["labels"]["asya.sh/metrics"] == "true"
    # Upstream's defaults need no env; no PodMonitor unless the Input asks.
    assert not {"ASYA_METRICS_ENABLED", "ASYA_METRICS_ADDR"} & set(env(sidecar(objects)))
    assert meta.POD_MONITOR not in objects


def test_metrics_off_drops_the_port_and_label_and_tells_the_sidecar() -> None:
    objects = rendered({"metrics": {"enabled": False}}, settings=MONITOR)
    assert "ports" not in sidecar(objects)
    assert "asya.sh/metrics" not in objects["deployment"]["spec"]["template"]["metadata"]["labels"]
    assert env(sidecar(objects))["ASYA_METRICS_ENABLED"] == "false"
    assert meta.POD_MONITOR not in objects


def test_the_inputs_port_and_the_custom_metrics_reach_the_sidecar() -> None:
    custom = [
        {"name": "tokens_total", "type": "counter", "help": "Tokens.", "labels": ["model"]},
        {"name": "latency_seconds", "type": "histogram", "buckets": [0.1, 1, 10]},
    ]
    objects = rendered({"metrics": {"custom": custom}}, settings={"metrics": {"port": 9090}})
    said = env(sidecar(objects))
    assert said["ASYA_METRICS_ADDR"] == ":9090"
    assert sidecar(objects)["ports"][0]["containerPort"] == 9090
    assert json.loads(said["ASYA_CUSTOM_METRICS"]) == custom


@pytest.mark.parametrize("namespaced", [False, True])
def test_the_pod_monitor_scrapes_exactly_this_actors_pods(namespaced: bool) -> None:
    objects = rendered(settings=MONITOR, namespaced=namespaced)
    monitor = objects[meta.POD_MONITOR]
    assert monitor["kind"] == "PodMonitor"
    assert monitor["metadata"]["namespace"] == "team"
    selector = monitor["spec"]["selector"]["matchLabels"]
    labels = objects["deployment"]["spec"]["template"]["metadata"]["labels"]
    assert selector == {"asya.sh/actor": "echo", "asya.sh/metrics": "true"}
    assert selector.items() <= labels.items()
    assert monitor["spec"]["podMetricsEndpoints"] == [
        {"port": "metrics", "path": "/metrics", "interval": "15s"}
    ]
    assert schemas.errors(monitor) == []


def test_the_pod_monitor_is_ready_once_it_exists() -> None:
    req = support.request(support.MINIMAL_XR, input=support.struct(MONITOR))
    rsp = fn.FunctionRunner().answer(req).message()
    assert meta.POD_MONITOR in rsp.desired.resources
    # Not observed yet: not ready.
    assert rsp.desired.resources[meta.POD_MONITOR].ready == fnv1.READY_FALSE


@pytest.mark.parametrize(
    ("metrics", "said"),
    [
        ({"custom": [{"name": "a b", "type": "gauge"}]}, "metrics.custom[a b].name"),
        ({"custom": [{"name": "a", "type": "summary"}]}, "metrics.custom[a].type"),
        ({"custom": [{"name": "a", "type": "gauge", "buckets": [1]}]}, "only a histogram"),
        ({"custom": [{"name": "a", "type": "histogram", "buckets": [2, 1]}]}, "must ascend"),
        ({"custom": [{"name": "a", "type": "gauge", "labels": ["x", "x"]}]}, "a label twice"),
        ({"custom": [{"name": "a", "type": "gauge", "labels": ["__x"]}]}, "Prometheus' own"),
        ({"custom": [{"name": "a", "type": "gauge"}, {"name": "a", "type": "counter"}]}, "twice"),
    ],
)
def test_custom_metrics_the_sidecar_would_refuse_are_refused(
    metrics: dict[str, Any], said: str
) -> None:
    rsp = fn.FunctionRunner().answer(support.flavored_request({"metrics": metrics})).message()
    [message] = support.fatal_messages(rsp)
    assert said in message
    assert message.endswith('(from flavor "shape")')


def test_the_metrics_env_is_the_platforms() -> None:
    data = {"sidecar": {"env": [{"name": "ASYA_CUSTOM_METRICS", "value": "[]"}]}}
    rsp = fn.FunctionRunner().answer(support.flavored_request(data)).message()
    [message] = support.fatal_messages(rsp)
    assert "ASYA_CUSTOM_METRICS" in message


def test_a_pin_pauses_keda_at_that_count() -> None:
    objects = rendered({"scaling": {"pinnedReplicas": 0}})
    annotations = objects["scaledobject"]["metadata"]["annotations"]
    assert annotations == {"autoscaling.keda.sh/paused-replicas": "0"}
    assert "replicas" not in objects["deployment"]["spec"]  # KEDA holds the count
    assert "annotations" not in rendered()["scaledobject"]["metadata"]  # unpinned: autoscaled


def test_a_pin_holds_a_fixed_actor_at_that_count() -> None:
    objects = rendered({"scaling": {"enabled": False, "pinnedReplicas": 0}, "replicas": 3})
    assert objects["deployment"]["spec"]["replicas"] == 0
    assert (
        rendered({"scaling": {"enabled": False}, "replicas": 3})["deployment"]["spec"]["replicas"]
        == 3
    )
