"""The pod rules: what the API server would refuse is refused first, naming path and source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import runner as fn
from function.errors import FlavorError, SpecError
from function.models import spec as spec_model
from tests import support
from tests.unit.test_flavors import flavor, resolve

ACTOR = "(from the actor's spec)"
STATE = {"name": "cache", "mount": {"path": "/state/cache"}, "connector": {"image": "c:1"}}


@dataclass(frozen=True)
class PodRule:
    """One rule of the API server's, a spec that breaks it, and the whole message."""

    reason: str
    actor: dict[str, Any]
    message: str
    flavor: dict[str, Any] = field(default_factory=dict)


RULES = [
    PodRule(
        reason="a platform env name in sidecar.env, even before the platform sets it",
        actor={"sidecar": {"env": [{"name": "ASYA_QUEUE_URL", "value": "x"}]}},
        message='invalid actor spec: sidecar.env[ASYA_QUEUE_URL].name: "ASYA_QUEUE_URL" is '
        f"set by the platform in the Asya sidecar {ACTOR}",
    ),
    PodRule(
        reason="what tracing sets is the platform's in sidecar.env",
        actor={},
        flavor={"sidecar": {"env": [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "x"}]}},
        message="invalid flavor data: sidecar.env[OTEL_EXPORTER_OTLP_ENDPOINT].name: "
        '"OTEL_EXPORTER_OTLP_ENDPOINT" is set by the platform in the Asya sidecar '
        '(from flavor "pod-rules")',
    ),
    PodRule(
        reason="a platform env name in a state-proxy connector",
        actor={
            "stateProxy": [
                STATE
                | {
                    "connector": {
                        "image": "c:1",
                        "env": [{"name": "CONNECTOR_SOCKET", "value": "x"}],
                    }
                }
            ]
        },
        message="invalid actor spec: stateProxy[cache].connector.env[CONNECTOR_SOCKET].name: "
        f"\"CONNECTOR_SOCKET\" is set by the platform in the connector of 'cache' {ACTOR}",
    ),
    PodRule(
        reason="a platform env name in a user sidecar",
        actor={"sidecars": [{"name": "proxy", "image": "p:1", "env": [{"name": "ASYA_HANDLER"}]}]},
        message='invalid actor spec: sidecars[proxy].env[0].name: "ASYA_HANDLER" is set by the '
        f"platform in the container 'proxy' {ACTOR}",
    ),
    PodRule(
        reason="one env name twice in an init container",
        actor={
            "initContainers": [
                {"name": "fetch", "image": "f:1", "env": [{"name": "A"}, {"name": "A"}]}
            ]
        },
        message='invalid actor spec: initContainers[fetch].env[1].name: "A" is defined twice '
        f"in the container 'fetch' {ACTOR}",
    ),
    PodRule(
        reason="an env name Kubernetes rejects",
        actor={"env": [{"name": "A=B", "value": "1"}]},
        message="invalid actor spec: env[A=B].name: 'A=B' is not a valid env var name: "
        f"printable ASCII other than '=' only {ACTOR}",
    ),
    PodRule(
        reason="a platform env name in the runtime",
        actor={},
        flavor={"env": [{"name": "ASYA_HANDLER", "value": "x"}]},
        message='invalid env: "ASYA_HANDLER" is set by the platform and cannot be set in '
        'env (from flavor "pod-rules")',
    ),
    PodRule(
        reason="a volume named like one the platform adds",
        actor={"volumes": [{"name": "tmp", "emptyDir": {}}]},
        message="invalid actor spec: volumes[tmp].name: 'tmp' is a volume the platform adds; "
        f"pick another name {ACTOR}",
    ),
    PodRule(
        reason="a volume name that is not a DNS label",
        actor={"volumes": [{"name": "Data_Vol", "emptyDir": {}}]},
        message="invalid actor spec: volumes[Data_Vol].name: 'Data_Vol' is not a valid volume "
        "name: lowercase letters, digits and '-' only, starting and ending with a letter or "
        f"digit {ACTOR}",
    ),
    PodRule(
        reason="a mount without a mountPath (it would render mountPath: null)",
        actor={"volumes": [{"name": "data", "emptyDir": {}}], "volumeMounts": [{"name": "data"}]},
        message=f"invalid actor spec: volumeMounts[0].mountPath: a volume mount needs a mountPath {ACTOR}",
    ),
    PodRule(
        reason="a mount over the Asya socket directory",
        actor={
            "volumes": [{"name": "data", "emptyDir": {}}],
            "volumeMounts": [{"name": "data", "mountPath": "/var/run/asya/"}],
        },
        message="invalid actor spec: volumeMounts[/var/run/asya/].mountPath: /var/run/asya/ is "
        f"where the platform mounts the Asya socket directory {ACTOR}",
    ),
    PodRule(
        reason="a mount over a state proxy's path",
        actor={
            "stateProxy": [STATE],
            "volumes": [{"name": "data", "emptyDir": {}}],
            "volumeMounts": [{"name": "data", "mountPath": "/state/cache"}],
        },
        message="invalid actor spec: volumeMounts[/state/cache].mountPath: /state/cache is where "
        f"the platform mounts state proxy 'cache' {ACTOR}",
    ),
    PodRule(
        reason="a mount of a volume the pod does not have",
        actor={"volumeMounts": [{"name": "ghost", "mountPath": "/data"}]},
        message=f"invalid actor spec: volumeMounts[/data].name: no volume named 'ghost' in the pod {ACTOR}",
    ),
    PodRule(
        reason="two mounts at one path in a user container",
        actor={
            "volumes": [{"name": "data", "emptyDir": {}}],
            "sidecars": [
                {
                    "name": "proxy",
                    "image": "p:1",
                    "volumeMounts": [
                        {"name": "data", "mountPath": "/d"},
                        {"name": "data", "mountPath": "/d/"},
                    ],
                }
            ],
        },
        message="invalid actor spec: sidecars[proxy].volumeMounts[1].mountPath: /d/ is mounted "
        f"twice in one container {ACTOR}",
    ),
    PodRule(
        reason="a user sidecar and an init container with one name",
        actor={
            "sidecars": [{"name": "helper", "image": "h:1"}],
            "initContainers": [{"name": "helper", "image": "h:1"}],
        },
        message="invalid actor spec: initContainers[helper].name: the container name 'helper' is "
        f"used twice in the pod {ACTOR}",
    ),
    PodRule(
        reason="a container name that is not a DNS label",
        actor={"sidecars": [{"name": "Helper", "image": "h:1"}]},
        message="invalid actor spec: sidecars[Helper].name: the container name 'Helper' is "
        "invalid: lowercase letters, digits and '-' only, starting and ending with a letter or "
        f"digit {ACTOR}",
    ),
    PodRule(
        reason="an init container without an image",
        actor={"initContainers": [{"name": "init"}]},
        message=f"invalid actor spec: initContainers[init].image: a container needs an image {ACTOR}",
    ),
    PodRule(
        reason="a volume of two sources",
        actor={"volumes": [{"name": "data", "emptyDir": {}, "hostPath": {"path": "/x"}}]},
        message="invalid actor spec: volumes[data]: a volume has one source; 'data' has 2: "
        f"emptyDir, hostPath {ACTOR}",
    ),
    PodRule(
        reason="a field Kubernetes' Volume type does not have",
        actor={"volumes": [{"name": "data", "secret": {"secretName": 5}}]},
        message='invalid actor spec: volumes[data]: secret.secretName: the value is not of types "null", "string" '
        f"(as Kubernetes' Volume) {ACTOR}",
    ),
    PodRule(
        reason="a state proxy whose connector's container name would pass 63 characters",
        actor={"stateProxy": [STATE | {"name": "s" * 47}]},
        message=f"invalid actor spec: stateProxy[{'s' * 47}].name: String should have at most "
        f"{spec_model.MAX_STATE_PROXY_NAME} characters {ACTOR}",
    ),
]


def check(actor: dict[str, Any], flavor_data: dict[str, Any]) -> None:
    layers = [flavor("pod-rules", flavor_data)] if flavor_data else []
    resolve(actor, *layers)  # resolves and validates


@pytest.mark.parametrize("rule", RULES, ids=[r.reason for r in RULES])
def test_pod_rules(rule: PodRule) -> None:
    with pytest.raises(FlavorError) as raised:
        check(rule.actor, rule.flavor)
    assert str(raised.value) == rule.message, rule.reason
    if ACTOR in rule.message:
        assert isinstance(raised.value, SpecError)
        assert raised.value.reason == "InvalidSpec"


def test_a_valid_pod_passes_every_rule() -> None:
    check(
        {
            "stateProxy": [STATE],
            "volumes": [{"name": "data", "emptyDir": {}}],
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
            "sidecar": {"env": [{"name": "ASYA_LOG_LEVEL", "value": "debug"}]},
            "sidecars": [
                {
                    "name": "proxy",
                    "image": "p:1",
                    "env": [{"name": "PORT", "value": "80"}],
                    "volumeMounts": [{"name": "socket-dir", "mountPath": "/var/run/asya"}],
                }
            ],
        },
        {"env": [{"name": "MODEL", "value": "m"}]},
    )


def test_a_platform_name_gets_the_same_answer_at_every_stage_of_the_queue() -> None:
    xr = support.MINIMAL_XR | {
        "spec": support.MINIMAL_XR["spec"]
        | {"sidecar": {"env": [{"name": "ASYA_QUEUE_URL", "value": "mine"}]}}
    }
    before = support.request(xr, input=support.struct({}))
    after = support.request(xr, input=support.struct({}))
    after.observed.resources["sqs-queue"].resource.update(
        {
            "apiVersion": "sqs.aws.upbound.io/v1beta1",
            "kind": "Queue",
            "status": {
                "atProvider": {"id": "https://sqs.us-east-1.amazonaws.com/1/q", "arn": "arn"},
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }
    )
    runner = fn.FunctionRunner()
    answers = [support.fatal_messages(runner.answer(req).message()) for req in (before, after)]
    assert answers[0] == answers[1]
    [message] = answers[0]
    assert '"ASYA_QUEUE_URL" is set by the platform' in message


def test_an_error_in_the_actors_item_is_blamed_on_the_actor() -> None:
    # The actor's stateProxy item replaces the flavor's whole; it lacks `mount`.
    flavor_item = STATE
    actor_item = {"name": "cache", "connector": {"image": "mine:1"}}
    with pytest.raises(SpecError) as raised:
        resolve({"stateProxy": [actor_item]}, flavor("state", {"stateProxy": [flavor_item]}))
    assert (
        str(raised.value) == f"invalid actor spec: stateProxy[cache].mount: Field required {ACTOR}"
    )


def test_refusals_set_the_flavors_condition() -> None:
    xr = support.MINIMAL_XR | {
        "spec": support.MINIMAL_XR["spec"] | {"volumes": [{"name": "tmp", "emptyDir": {}}]}
    }
    rsp = fn.FunctionRunner().answer(support.request(xr, input=support.struct({}))).message()
    [condition] = rsp.conditions
    assert (condition.type, condition.status, condition.reason) == (
        "FlavorsResolved",
        fnv1.STATUS_CONDITION_FALSE,
        "InvalidSpec",
    )
    assert "volumes[tmp].name" in condition.message
