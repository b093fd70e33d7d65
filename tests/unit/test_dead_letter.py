"""Dead letters that exist: the redrive points only at a dead-letter queue known to exist."""

from __future__ import annotations

import copy
import json
from typing import Any

from function import runner as fn
from function.codec import structs
from function.compose.renderers import sqs
from tests import support

ACCOUNT = {"aws": {"accountId": "123456789012"}}
DLQ_ARN = "arn:aws:sqs:us-east-1:123456789012:asya-team-dlq"


def dead_letter_queue(name: str = "asya-team-dlq", arn: str = DLQ_ARN) -> dict[str, Any]:
    return {
        "apiVersion": "sqs.aws.upbound.io/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name, "labels": {"asya.sh/role": "dlq"}},
        "spec": {"forProvider": {"name": name}},
        "status": {"atProvider": {"arn": arn}},
    }


def answer(
    settings: dict[str, Any], *fetched: dict[str, Any], observed_queue: dict[str, Any] | None = None
) -> Any:
    """The function's answer for support.MINIMAL_XR (actor echo in namespace team)."""
    req = support.request(copy.deepcopy(support.MINIMAL_XR), input=support.struct(settings))
    if fetched:
        items = req.required_resources[sqs.DEAD_LETTER_KEY]
        for body in fetched:
            items.items.add().resource.update(body)
    if observed_queue is not None:
        req.observed.resources["sqs-queue"].resource.update(observed_queue)
    return fn.FunctionRunner().answer(req).message()


def queue_of(rsp: Any) -> dict[str, Any]:
    body: dict[str, Any] = structs.plain(rsp.desired.resources["sqs-queue"].resource)
    return body


def status_of(rsp: Any) -> dict[str, Any]:
    xr: dict[str, Any] = structs.plain(rsp.desired.composite.resource)
    queue: dict[str, Any] = xr["status"]["infrastructure"]["queue"]
    return queue


def test_with_an_account_the_function_asks_for_the_namespaces_dead_letter_queue() -> None:
    rsp = answer(ACCOUNT)
    selector = rsp.requirements.resources[sqs.DEAD_LETTER_KEY]
    assert (selector.api_version, selector.kind, selector.namespace) == (
        "sqs.aws.upbound.io/v1beta1",
        "Queue",
        "",
    )
    assert dict(selector.match_labels.labels) == {"asya.sh/role": "dlq"}
    assert sqs.DEAD_LETTER_KEY not in answer({}).requirements.resources


def test_until_the_dead_letter_queue_exists_there_is_no_redrive_and_it_is_said() -> None:
    rsp = answer(ACCOUNT)
    assert support.fatal_messages(rsp) == []
    assert "redrivePolicy" not in queue_of(rsp)["spec"]["forProvider"]
    [warning] = [r for r in rsp.results if r.reason == "QueueWarning"]
    assert warning.message.startswith("no dead-letter queue asya-team-dlq yet")
    assert "failed messages stay in the queue" in warning.message
    assert status_of(rsp)["deadLetter"] == warning.message


def test_a_found_dead_letter_queue_is_redriven_to_by_its_arn() -> None:
    other = dead_letter_queue("asya-other-dlq", "arn:aws:sqs:us-east-1:123456789012:asya-other-dlq")
    rsp = answer(ACCOUNT, other, dead_letter_queue())
    policy = json.loads(queue_of(rsp)["spec"]["forProvider"]["redrivePolicy"])
    assert policy == {"deadLetterTargetArn": DLQ_ARN, "maxReceiveCount": 3}
    assert status_of(rsp)["deadLetter"] == DLQ_ARN
    assert [r for r in rsp.results if r.reason == "QueueWarning"] == []


def test_a_redrive_the_queue_already_has_is_kept_while_the_fetch_comes_back_empty() -> None:
    policy = json.dumps({"deadLetterTargetArn": DLQ_ARN, "maxReceiveCount": 3})
    observed = {
        "apiVersion": "sqs.aws.upbound.io/v1beta1",
        "kind": "Queue",
        "spec": {"forProvider": {"redrivePolicy": policy}},
    }
    rsp = answer(ACCOUNT, observed_queue=observed)
    kept = json.loads(queue_of(rsp)["spec"]["forProvider"]["redrivePolicy"])
    assert kept["deadLetterTargetArn"] == DLQ_ARN


def test_without_an_account_nothing_is_said_about_dead_letters() -> None:
    rsp = answer({})
    assert "redrivePolicy" not in queue_of(rsp)["spec"]["forProvider"]
    assert "deadLetter" not in status_of(rsp)
    assert [r for r in rsp.results if r.reason == "QueueWarning"] == []


def test_the_v2_form_asks_for_the_namespaced_queue_in_the_actors_namespace() -> None:
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["metadata"] = {"name": "echo", "namespace": "team"}
    req = support.request(xr, input=support.struct(ACCOUNT))
    rsp = fn.FunctionRunner().answer(req).message()
    selector = rsp.requirements.resources[sqs.DEAD_LETTER_KEY]
    assert (selector.api_version, selector.namespace) == ("sqs.aws.m.upbound.io/v1beta1", "team")
    assert sqs.DEAD_LETTER_KEY not in rsp.requirements.extra_resources


def v2_answer(*fetched: dict[str, Any]) -> Any:
    """The function's answer for the v2 actor echo in namespace team, these DLQs fetched."""
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["metadata"] = {"name": "echo", "namespace": "team"}
    req = support.request(xr, input=support.struct(ACCOUNT))
    for body in fetched:
        req.required_resources[sqs.DEAD_LETTER_KEY].items.add().resource.update(body)
    return fn.FunctionRunner().answer(req).message()


def test_the_v2_form_asks_for_the_namespaces_dead_letter_queue_by_name() -> None:
    # The namespaced kind is every v2 actor's queue's too: by labels, Crossplane tested
    # each of the namespace's queues on every call (11 % of its CPU at 300 actors).
    selector = v2_answer().requirements.resources[sqs.DEAD_LETTER_KEY]
    assert (selector.kind, selector.namespace, selector.match_name) == (
        "Queue",
        "team",
        "asya-team-dlq",
    )


def test_the_v2_dead_letter_queue_fetched_by_name_counts_only_when_labelled_as_one() -> None:
    labelled = dead_letter_queue() | {"apiVersion": "sqs.aws.m.upbound.io/v1beta1"}
    assert status_of(v2_answer(labelled))["deadLetter"] == DLQ_ARN
    unlabelled = copy.deepcopy(labelled)
    unlabelled["metadata"]["labels"] = {}
    assert status_of(v2_answer(unlabelled))["deadLetter"].startswith("no dead-letter queue")
