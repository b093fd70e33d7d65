"""Two actors never share a queue or a workload: the second of one name, or of one queue name, is refused."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import runner as fn
from function.codec import structs
from function.models import queues
from function.resolve import requirements
from tests import support
from tests.unit.test_tools import actor as actor_doc
from tests.unit.test_tools import lint_json, write

EXAMPLES = support.ROOT / "examples"


def deployment(
    namespace: str, actor: str, composite: str | None, **sidecar_env: str
) -> dict[str, Any]:
    labels = {"asya.sh/actor": actor}
    if composite is not None:
        labels["crossplane.io/composite"] = composite
    # As an SQS actor of the default Input in us-east-1 runs, unless told otherwise.
    env = {"ASYA_TRANSPORT": "sqs", "ASYA_AWS_REGION": "us-east-1"} | sidecar_env
    sidecar = {
        "name": "asya-sidecar",
        "image": "s:1",
        "env": [{"name": name, "value": value} for name, value in env.items()],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": actor, "namespace": namespace, "labels": labels},
        "spec": {"template": {"spec": {"containers": [sidecar]}}},
    }


def answer(*deployments: dict[str, Any], legacy: bool = False) -> fnv1.RunFunctionResponse:
    """The function's answer for support.MINIMAL_XR (actor echo in team) with these fetched."""
    req = support.request(copy.deepcopy(support.MINIMAL_XR), input=support.struct({}))
    fetched = req.extra_resources if legacy else req.required_resources
    items = fetched[requirements.WORKLOADS_KEY]
    for body in deployments:
        items.items.add().resource.update(body)
    return fn.FunctionRunner().answer(req).message()


def test_the_function_asks_for_the_deployments_of_the_actors_name() -> None:
    rsp = answer()
    selector = rsp.requirements.resources[requirements.WORKLOADS_KEY]
    assert (selector.api_version, selector.kind, selector.namespace) == (
        "apps/v1",
        "Deployment",
        "team",
    )
    assert dict(selector.match_labels.labels) == {"asya.sh/actor": "echo"}
    # Crossplane 1.x ignores a namespace: asked everywhere, the answer filtered.
    legacy = rsp.requirements.extra_resources[requirements.WORKLOADS_KEY]
    assert legacy.namespace == ""
    assert dict(legacy.match_labels.labels) == {"asya.sh/actor": "echo"}


@pytest.mark.parametrize("flavored", [False, True], ids=["plain", "flavored"])
def test_a_caller_advertising_required_resources_is_asked_in_that_field_only(
    flavored: bool,
) -> None:
    # Crossplane v2.4 seeds a call with what the function required last time, in
    # required_resources only: asked in extra_resources as well, every reconcile took a
    # second call, its content (and cache key) differing from the first's.
    xr = copy.deepcopy(support.MINIMAL_XR)
    if flavored:
        xr["spec"]["flavors"] = ["gpu"]
    req = support.request(xr, input=support.struct({}))
    req.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES)
    rsp = fn.FunctionRunner().answer(req).message()
    assert requirements.WORKLOADS_KEY in rsp.requirements.resources
    assert ("flavor-gpu" in rsp.requirements.resources) == flavored
    assert dict(rsp.requirements.extra_resources) == {}


def test_a_caller_honouring_namespaces_is_asked_for_the_actors_objects_by_name() -> None:
    # By labels, Crossplane lists a kind's whole namespace from its cache and tests each
    # object's labels: a fleet of 1,000 actors made every fetch scan 1,000 Deployments.
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"]["actor"] = "team-echo"  # a queue namesake: team-team/echo
    req = support.request(xr, input=support.struct({}))
    req.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES)
    asked = fn.FunctionRunner().answer(req).message().requirements.resources
    named = {
        key: (s.kind, s.namespace, s.match_name)
        for key, s in asked.items()
        if not key.startswith("flavor-")
    }
    assert named == {
        requirements.WORKLOADS_KEY: ("Deployment", "team", "team-echo"),
        requirements.AUTOSCALER_KEY: ("HorizontalPodAutoscaler", "team", "keda-hpa-team-echo"),
        requirements.NAMESAKES_KEY_PREFIX + "team-team": ("Deployment", "team-team", "echo"),
        # The v1 form's Objects have names Crossplane generates: still by labels.
        requirements.WRAPPED_WORKLOADS_KEY: ("Object", "", ""),
    }


def test_another_xrs_deployment_fetched_by_name_refuses_the_actor() -> None:
    req = support.request(copy.deepcopy(support.MINIMAL_XR), input=support.struct({}))
    req.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES)
    taken = deployment("team", "echo", "other-echo-x9z8y")
    req.required_resources[requirements.WORKLOADS_KEY].items.add().resource.update(taken)
    rsp = fn.FunctionRunner().answer(req).message()
    assert [r.reason for r in rsp.results] == ["ActorNameTaken"]


def test_another_xrs_deployment_of_the_name_refuses_the_actor_naming_that_xr() -> None:
    rsp = answer(deployment("team", "echo", "other-echo-x9z8y"))
    [message] = support.fatal_messages(rsp)
    assert message.startswith(
        'invalid actor spec: actor: "echo" is taken in namespace "team" by XR '
        '"other-echo-x9z8y" (its Deployment team/echo): both would compose the queue '
        "asya-team-echo and the Deployment echo"
    )
    assert [r.reason for r in rsp.results] == ["ActorNameTaken"]
    # Nothing is composed: Crossplane changes nothing after a Fatal result.
    assert dict(rsp.desired.resources) == {}


def test_the_same_name_is_free_where_the_deployment_is_its_own_elsewhere_or_unlabelled() -> None:
    for fetched in (
        deployment("team", "echo", "echo-abcde"),  # its own
        deployment("other-team", "echo", "other-echo-x9z8y"),  # Crossplane 1.x: everywhere
        deployment("team", "echo", None),  # rendered before the label was set
    ):
        for legacy in (False, True):
            rsp = answer(fetched, legacy=legacy)
            assert support.fatal_messages(rsp) == []
            assert "deployment" in rsp.desired.resources


def answer_in(
    namespace: str, actor: str, fetched: dict[str, list[dict[str, Any]]]
) -> fnv1.RunFunctionResponse:
    """The answer for actor `actor` of XR `<actor>-xr` in `namespace`, with these fetched."""
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["metadata"] |= {"name": f"{actor}-xr"}
    xr["metadata"]["labels"]["crossplane.io/claim-namespace"] = namespace
    xr["spec"]["actor"] = actor
    req = support.request(xr, input=support.struct({}))
    for key, bodies in fetched.items():
        items = req.required_resources[key]
        items.SetInParent()
        for body in bodies:
            items.items.add().resource.update(body)
    return fn.FunctionRunner().answer(req).message()


def aged(body: dict[str, Any], created: str) -> dict[str, Any]:
    body["metadata"]["creationTimestamp"] = created
    return body


def test_the_function_asks_for_the_actors_whose_queue_would_bear_the_same_name() -> None:
    # asya-team-a-echo is team-a/echo's queue, and team/a-echo's, and team-a-echo... none.
    assert queues.namesakes("echo", "team-a") == [("team", "a-echo")]
    assert queues.namesakes("b-c", "a") == [("a-b", "c")]
    assert queues.namesakes("echo", "team") == []
    rsp = answer_in("team-a", "echo", {})
    selector = rsp.requirements.resources[requirements.NAMESAKES_KEY_PREFIX + "team"]
    assert (selector.kind, selector.namespace) == ("Deployment", "team")
    assert dict(selector.match_labels.labels) == {"asya.sh/actor": "a-echo"}


def test_a_new_actor_whose_queue_another_namespaces_actor_has_is_refused() -> None:
    theirs = aged(deployment("team", "a-echo", "a-echo-xr"), "2026-01-01T00:00:00Z")
    rsp = answer_in("team-a", "echo", {requirements.NAMESAKES_KEY_PREFIX + "team": [theirs]})
    [message] = support.fatal_messages(rsp)
    assert message.startswith(
        'invalid actor spec: actor: the queue asya-team-a-echo is the queue of actor "a-echo" '
        'in namespace "team" already (XR "a-echo-xr", its Deployment team/a-echo)'
    )
    assert [r.reason for r in rsp.results] == ["ActorNameTaken"]
    assert dict(rsp.desired.resources) == {}


def test_of_two_actors_sharing_a_queue_name_the_older_keeps_it() -> None:
    ours = aged(deployment("team-a", "echo", "echo-xr"), "2026-01-01T00:00:00Z")
    theirs = aged(deployment("team", "a-echo", "a-echo-xr"), "2026-02-01T00:00:00Z")
    rsp = answer_in(
        "team-a",
        "echo",
        {
            requirements.WORKLOADS_KEY: [ours],
            requirements.NAMESAKES_KEY_PREFIX + "team": [theirs],
        },
    )
    assert support.fatal_messages(rsp) == []
    # The other, seeing the older, is refused: never both.
    rsp = answer_in(
        "team",
        "a-echo",
        {
            requirements.WORKLOADS_KEY: [theirs],
            requirements.NAMESAKES_KEY_PREFIX + "team-a": [ours],
        },
    )
    assert [r.reason for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL] == [
        "ActorNameTaken"
    ]
    # Naming the other actor, the one that keeps the queue: not a-echo itself.
    [message] = support.fatal_messages(rsp)
    assert message.startswith(
        'invalid actor spec: actor: the queue asya-team-a-echo is the queue of actor "echo" '
        'in namespace "team-a" already (XR "echo-xr", its Deployment team-a/echo)'
    )


def test_a_namesake_elsewhere_unlabelled_or_on_another_broker_takes_nothing() -> None:
    key = requirements.NAMESAKES_KEY_PREFIX + "team"
    for fetched in (
        deployment("team", "a-echo", None),  # rendered before the label was set
        deployment("other", "a-echo", "a-echo-xr"),  # Crossplane 1.x answers everywhere
        deployment("team", "b-echo", "b-echo-xr"),
        # Another Composition's transport or broker: another queue of the same name.
        deployment("team", "a-echo", "a-echo-xr", ASYA_TRANSPORT="rabbitmq"),
        deployment("team", "a-echo", "a-echo-xr", ASYA_AWS_REGION="eu-west-1"),
        deployment("team", "a-echo", "a-echo-xr", ASYA_SQS_ENDPOINT="http://localstack:4566"),
    ):
        assert support.fatal_messages(answer_in("team-a", "echo", {key: [fetched]})) == []


def test_an_older_actor_whose_deployment_predates_the_label_keeps_its_queue() -> None:
    # Rendered before the function labelled it: still the actor's own, by its age.
    ours = aged(deployment("team", "a-echo", None), "2026-01-01T00:00:00Z")
    theirs = aged(deployment("team-a", "echo", "echo-xr"), "2026-02-01T00:00:00Z")
    rsp = answer_in(
        "team",
        "a-echo",
        {
            requirements.WORKLOADS_KEY: [ours],
            requirements.NAMESAKES_KEY_PREFIX + "team-a": [theirs],
        },
    )
    assert support.fatal_messages(rsp) == []


def test_the_rendered_deployment_carries_its_xrs_name() -> None:
    rsp = answer()
    body = structs.plain(rsp.desired.resources["deployment"].resource)
    labels = body["spec"]["forProvider"]["manifest"]["metadata"]["labels"]
    assert labels["crossplane.io/composite"] == "echo-abcde"
    assert labels["asya.sh/actor"] == "echo"


def test_lint_reports_two_actors_of_one_name_in_a_namespace(tmp_path: Path) -> None:
    first = actor_doc("shared", [])
    second = actor_doc("shared", []) | {"metadata": {"name": "shared-too", "namespace": "ml"}}
    elsewhere = actor_doc("shared", []) | {"metadata": {"name": "shared", "namespace": "other"}}
    actors = write(tmp_path / "actors.yaml", first, second, elsewhere)
    code, findings = lint_json(str(EXAMPLES / "flavors"), "--actors", actors)
    assert code == 1
    [shared] = [f for f in findings if f.get("actor") == "shared"]
    assert shared["path"] == "actor"
    assert shared["message"].startswith(
        '"shared" is the actor of 2 AsyncActors in namespace "ml" (shared, shared-too)'
    )


def test_lint_reports_two_actors_whose_queues_share_a_name(tmp_path: Path) -> None:
    first = actor_doc("a-echo", []) | {"metadata": {"name": "a-echo", "namespace": "team"}}
    second = actor_doc("echo", []) | {"metadata": {"name": "echo", "namespace": "team-a"}}
    actors = write(tmp_path / "actors.yaml", first, second)
    code, findings = lint_json(str(EXAMPLES / "flavors"), "--actors", actors)
    assert code == 1
    [shared] = [f for f in findings if "asya-team-a-echo" in f["message"]]
    assert shared["message"].startswith(
        "the queue asya-team-a-echo is the queue of 2 AsyncActors (team/a-echo, team-a/echo)"
    )


def wrapped(composite: str, created: str, namespace: str = "team") -> dict[str, Any]:
    """provider-kubernetes' Object around an actor echo's Deployment, as the v1 form composes it."""
    manifest = deployment(namespace, "echo", composite)
    labels = {"asya.sh/actor": "echo", "app.kubernetes.io/component": "actor"}
    return {
        "apiVersion": "kubernetes.crossplane.io/v1alpha2",
        "kind": "Object",
        "metadata": {"name": f"{composite}-d1", "labels": labels, "creationTimestamp": created},
        "spec": {"forProvider": {"manifest": manifest}},
    }


def wrapped_answer(*objects: dict[str, Any]) -> fnv1.RunFunctionResponse:
    """The answer for MINIMAL_XR (XR echo-abcde) with these Objects fetched and no Deployment."""
    req = support.request(copy.deepcopy(support.MINIMAL_XR), input=support.struct({}))
    items = req.required_resources[requirements.WRAPPED_WORKLOADS_KEY]
    for body in objects:
        items.items.add().resource.update(body)
    return fn.FunctionRunner().answer(req).message()


def test_the_v1_form_asks_for_the_objects_that_wrap_its_deployment() -> None:
    # Found by the real Crossplane in tests/cluster: without provider-kubernetes having
    # applied the first actor's Deployment yet, a second actor of the name composed too.
    selector = answer().requirements.resources[requirements.WRAPPED_WORKLOADS_KEY]
    assert (selector.api_version, selector.kind, selector.namespace) == (
        "kubernetes.crossplane.io/v1alpha2",
        "Object",
        "",
    )
    assert dict(selector.match_labels.labels) == {
        "asya.sh/actor": "echo",
        "app.kubernetes.io/component": "actor",
    }


def test_an_older_xrs_object_of_the_name_refuses_the_actor() -> None:
    other = wrapped("other-echo-x9z8y", "2026-01-01T00:00:00Z")
    [message] = support.fatal_messages(wrapped_answer(other))
    assert 'is taken in namespace "team" by XR "other-echo-x9z8y"' in message
    # Both composed before either saw the other: the younger is refused, the older kept.
    ours = wrapped("echo-abcde", "2026-01-02T00:00:00Z")
    [message] = support.fatal_messages(wrapped_answer(other, ours))
    assert 'is taken in namespace "team" by XR "other-echo-x9z8y"' in message
    older = wrapped("echo-abcde", "2025-12-31T00:00:00Z")
    assert support.fatal_messages(wrapped_answer(other, older)) == []


def test_an_object_of_the_name_in_another_namespace_or_our_own_takes_nothing() -> None:
    elsewhere = wrapped("other-echo-x9z8y", "2026-01-01T00:00:00Z", namespace="other")
    ours = wrapped("echo-abcde", "2026-01-02T00:00:00Z")
    assert support.fatal_messages(wrapped_answer(elsewhere, ours)) == []
