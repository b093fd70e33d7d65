"""Timeouts that agree: the pod's grace period follows the actor's timeout, and a contradiction is said."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import durations
from function import runner as fn
from function.compose import renderers
from function.errors import SpecError
from function.models import input as fn_input
from function.models import timeouts
from function.resolve import layers
from function.resolve.layers import Resolution
from function.validate import gate
from tests import support
from tests.unit.render.plans import plan
from tests.unit.test_flavors import composite, flavor
from tests.unit.test_tools import actor as actor_doc
from tests.unit.test_tools import flavor as flavor_doc
from tests.unit.test_tools import lint_json, write


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30),
        ("5m", 300),
        ("1h30m", 5400),
        ("1.5h", 5400),
        ("300ms", 0.3),
        ("0", 0),
        ("2h45m30.5s", 9930.5),
        (".5s", 0.5),
        ("1us", 1e-6),
        ("1µs", 1e-6),
        ("5.s", 5),
        # The longest an int64 of nanoseconds holds; a negative one may be 1 ns longer.
        ("2562047h47m16.854775807s", 9223372036.854775807),
        ("-2562047h47m16.854775808s", -9223372036.854775808),
    ],
)
def test_go_durations_read_as_go_reads_them(text: str, seconds: float) -> None:
    assert durations.go_duration_seconds(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "text",
    [
        *("10", "5 minutes", "1d", "", "m", ".s", "1h 30m", "5M", "1e3s"),
        # Past an int64 of nanoseconds: Go refuses it, and the sidecar would not start.
        *("9999999999h", "2562047h47m16.854775808s"),
    ],
)
def test_what_go_refuses_is_not_a_duration(text: str) -> None:
    with pytest.raises(ValueError, match="time: invalid duration"):
        durations.go_duration_seconds(text)


def _resolve(
    spec: dict[str, Any], *fetched: Any, settings: dict[str, Any] | None = None
) -> Resolution:
    names = [f.name for f in fetched]
    xr = composite(**spec, flavors=names) if names else composite(**spec)
    return gate.admit(xr, fn_input.parse(settings or {}), layers.merge_flavors(list(fetched)))


def test_an_actor_timeout_the_sidecar_would_refuse_is_refused_naming_it() -> None:
    with pytest.raises(SpecError, match=r"resiliency\.actorTimeout: .*a duration such as 30s"):
        _resolve({"resiliency": {"actorTimeout": "10 minutes"}})
    with pytest.raises(SpecError, match=r"resiliency\.actorTimeout: .*longer than zero"):
        _resolve({"resiliency": {"actorTimeout": "0s"}})
    with pytest.raises(SpecError, match=r"resiliency\.actorTimeout: .*within 2562047h47m16"):
        _resolve({"resiliency": {"actorTimeout": "9999999999h"}})


def _grace(spec: dict[str, Any]) -> int:
    deployment = renderers.render_all(plan(spec))["deployment"]
    manifest = deployment["spec"]["forProvider"]["manifest"]
    grace: int = manifest["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    return grace


def test_the_grace_period_is_the_actor_timeout_and_the_handoff() -> None:
    # The sidecar's default 5m, then the hand-off: a scale-in never cuts a call short.
    assert _grace({}) == 300 + timeouts.HANDOFF_SECONDS
    assert _grace({"resiliency": {"actorTimeout": "2h"}}) == 7200 + timeouts.HANDOFF_SECONDS
    assert _grace({"resiliency": {"actorTimeout": "1500ms"}}) == 2 + timeouts.HANDOFF_SECONDS


def test_a_flavor_visibility_shorter_than_the_actor_timeout_is_a_warning_naming_both() -> None:
    short = flavor(
        "short-visibility",
        {"sidecar": {"env": [{"name": "ASYA_SQS_VISIBILITY_TIMEOUT", "value": "60"}]}},
    )
    resolution = _resolve({"resiliency": {"actorTimeout": "10m"}}, short)
    assert resolution.timeout_warnings == (
        'ASYA_SQS_VISIBILITY_TIMEOUT=60 (from flavor "short-visibility") is shorter than the '
        "actor timeout 10m (from the actor's spec): SQS delivers a message again to another "
        "pod while the first still works on it; leave it unset (twice the actor timeout) or "
        "raise it",
    )
    assert _resolve({"resiliency": {"actorTimeout": "1m"}}, short).timeout_warnings == ()


def test_each_transport_says_what_cuts_a_long_call_short() -> None:
    day = {"resiliency": {"actorTimeout": "7h"}}
    [sqs] = _resolve(day).timeout_warnings
    assert "the sidecar asks SQS to hide a message for twice that" in sqs
    pubsub = {"transport": "pubsub", "pubsub": {"project": "acme-ml", "ackDeadlineSeconds": 120}}
    [deadline] = _resolve({}, settings=pubsub).timeout_warnings
    assert deadline.startswith(
        "the subscription's ackDeadlineSeconds 120 (from the Input) is shorter than the actor "
        "timeout (300s, the sidecar's default)"
    )
    [longest] = _resolve(day, settings=pubsub | {"pubsub": {"project": "acme-ml"}}).timeout_warnings
    assert longest.startswith("the subscription's ackDeadlineSeconds 600 (Pub/Sub's longest)")
    [consumer] = _resolve(day, settings={"transport": "rabbitmq"}).timeout_warnings
    assert "RabbitMQ's default consumer_timeout (30m)" in consumer
    assert _resolve({}).timeout_warnings == ()
    assert _resolve({}, settings={"transport": "rabbitmq"}).timeout_warnings == ()


def test_the_pubsub_ack_deadline_follows_the_actor_timeout_unless_the_input_sets_it() -> None:
    def deadline(spec: dict[str, Any], pubsub: dict[str, Any]) -> int:
        settings = {"transport": "pubsub", "pubsub": {"project": "acme-ml", **pubsub}}
        subscription = renderers.render_all(plan(spec, settings=settings))["pubsub-subscription"]
        value: int = subscription["spec"]["forProvider"]["ackDeadlineSeconds"]
        return value

    assert deadline({}, {}) == 300
    assert deadline({"resiliency": {"actorTimeout": "8m"}}, {}) == 480
    assert deadline({"resiliency": {"actorTimeout": "2h"}}, {}) == 600
    assert deadline({"resiliency": {"actorTimeout": "8m"}}, {"ackDeadlineSeconds": 60}) == 60


def test_the_function_answers_a_contradiction_with_a_warning_result() -> None:
    req = support.flavored_request(
        {"sidecar": {"env": [{"name": "ASYA_SQS_VISIBILITY_TIMEOUT", "value": "30"}]}}
    )
    rsp = fn.FunctionRunner().answer(req).message()
    assert support.fatal_messages(rsp) == []
    [warning] = [r for r in rsp.results if r.reason == "TimeoutWarning"]
    assert warning.severity == fnv1.SEVERITY_WARNING
    assert warning.message.startswith('ASYA_SQS_VISIBILITY_TIMEOUT=30 (from flavor "shape")')


def test_lint_reports_a_contradiction_for_the_flavor_and_the_actor(tmp_path: Path) -> None:
    library = write(
        tmp_path / "flavors.yaml",
        flavor_doc(
            "short-visibility",
            {"sidecar": {"env": [{"name": "ASYA_SQS_VISIBILITY_TIMEOUT", "value": "60"}]}},
        ),
    )
    actors = write(
        tmp_path / "actors.yaml",
        actor_doc("slow", ["short-visibility"], resiliency={"actorTimeout": "20m"}),
    )
    code, findings = lint_json(library, "--actors", actors)
    assert code == 0
    by_who = {f.get("actor") or f["flavor"]: f for f in findings}
    assert by_who["short-visibility"]["severity"] == "warning"
    assert (
        "is shorter than the actor timeout (300s, the sidecar's default)"
        in by_who["short-visibility"]["message"]
    )
    assert (
        "is shorter than the actor timeout 20m (from the actor's spec)" in by_who["slow"]["message"]
    )
