"""One condition per aspect on the XR and its claim, and an event only when one changes."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import runner as fn
from function.status import conditions
from tests import support
from tests.unit.render.plans import stage
from tests.unit.test_health import pod, unavailable, waiting

ASPECTS = (conditions.QUEUE, conditions.AUTOSCALER, conditions.WORKLOAD)


def answer(
    observed: dict[str, Any], previous: list[dict[str, Any]] | None = None, pods: Any = None
) -> fnv1.RunFunctionResponse:
    xr = copy.deepcopy(support.MINIMAL_XR)
    if previous is not None:
        xr["status"] = {"conditions": previous}
    req = support.request(xr, input=support.struct({}))
    for name, body in observed.items():
        req.observed.resources[name].resource.update(body)
    if pods is not None:
        items = req.required_resources["actor-pods"]
        for body in pods:
            items.items.add().resource.update(body)
    return fn.FunctionRunner().answer(req).message()


def conditions_of(rsp: fnv1.RunFunctionResponse) -> dict[str, fnv1.Condition]:
    return {c.type: c for c in rsp.conditions if c.type in ASPECTS}


def as_written(rsp: fnv1.RunFunctionResponse) -> list[dict[str, Any]]:
    """The conditions as Crossplane writes them onto the XR."""
    return [
        {
            "type": c.type,
            "status": "True" if c.status == fnv1.STATUS_CONDITION_TRUE else "False",
            "reason": c.reason,
            "message": c.message,
        }
        for c in rsp.conditions
    ]


def events(rsp: fnv1.RunFunctionResponse) -> list[fnv1.Result]:
    return [r for r in rsp.results if r.message.split(" ", 1)[0] in ASPECTS]


def test_each_aspect_has_a_condition_on_the_composite_and_the_claim() -> None:
    rsp = answer(stage("ready"))
    found = conditions_of(rsp)
    assert set(found) == set(ASPECTS)
    for condition in found.values():
        assert condition.status == fnv1.STATUS_CONDITION_TRUE
        assert condition.target == fnv1.TARGET_COMPOSITE_AND_CLAIM
    assert [found[a].reason for a in ASPECTS] == ["Ready", "Ready", "Available"]


def test_waiting_conditions_say_what_they_wait_for() -> None:
    found = conditions_of(answer({}))
    assert found[conditions.QUEUE].reason == "Waiting"
    assert found[conditions.QUEUE].message == "waiting for the queue to be created"
    assert found[conditions.WORKLOAD].status == fnv1.STATUS_CONDITION_FALSE


def test_no_event_while_nothing_changes() -> None:
    first = answer(stage("ready"))
    again = answer(stage("ready"), previous=as_written(first))
    assert events(first) == []
    assert events(again) == []


def test_a_change_is_one_event_with_the_new_reason() -> None:
    ready = answer(stage("ready"))
    pods = [pod("echo-a", containers=[waiting("asya-runtime", "CrashLoopBackOff", exitCode=1)])]
    broken = answer(unavailable(), previous=as_written(ready), pods=pods)
    [event] = events(broken)
    assert event.severity == fnv1.SEVERITY_WARNING
    assert event.reason == "PodsFailing"
    assert event.target == fnv1.TARGET_COMPOSITE_AND_CLAIM
    assert event.message.startswith(
        "WorkloadAvailable is False: Deployment is not available: 1 pod failing"
    )
    # Said once: the next call sees the condition it wrote.
    assert events(answer(unavailable(), previous=as_written(broken), pods=pods)) == []
    # And back: a Normal event.
    [recovered] = events(answer(stage("ready"), previous=as_written(broken)))
    assert (recovered.severity, recovered.reason) == (fnv1.SEVERITY_NORMAL, "Available")


def test_a_problem_seen_first_is_an_event_and_waiting_is_not() -> None:
    pods = [pod("echo-a", containers=[waiting("asya-runtime", "ImagePullBackOff")])]
    [event] = events(answer(unavailable(), pods=pods))
    assert event.reason == "PodsFailing"
    assert events(answer({})) == []


@pytest.mark.parametrize("aspect", ASPECTS)
def test_a_reason_outside_the_closed_set_is_a_bug(aspect: str) -> None:
    with pytest.raises(ValueError, match="is not a reason"):
        conditions.Aspect(aspect, False, "Whatever", "")


def test_the_status_page_lists_every_reason() -> None:
    readme = (support.ROOT / "docs" / "status.md").read_text()
    for aspect, reasons in conditions.REASONS.items():
        assert f"`{aspect}`" in readme
        for reason in reasons:
            assert f"`{reason}`" in readme, (aspect, reason)


def test_replicas_starting_on_a_scale_up_are_no_event() -> None:
    ready = answer(stage("ready"))
    scaling_up = answer(unavailable(ready=2, replicas=5), previous=as_written(ready), pods=[])
    assert conditions_of(scaling_up)[conditions.WORKLOAD].reason == "Unavailable"
    assert events(scaling_up) == []
    assert events(answer(stage("ready"), previous=as_written(scaling_up))) == []
