"""Reading the request: what is converted, and what the resolve memo's key covers."""

from __future__ import annotations

from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import parse
from tests import support


def flavored(
    data: dict[str, Any], *, uid: str = "uid-1", version: str = "1"
) -> fnv1.RunFunctionRequest:
    req = support.request(support.MINIMAL_XR)
    metadata = {"name": "shape"} | ({"uid": uid, "resourceVersion": version} if uid else {})
    req.required_resources["flavor-shape"].items.add().resource.update(
        {"metadata": metadata, "data": data}
    )
    return req


# The keys an actor's flavors may be fetched under (requirements.possible_keys).
KEYS = {"flavor-shape", "flavor-old", "flavor-x", "flavor-other", "namespace-flavor-shape"}


def test_fetched_flavors_are_read_as_plain_data() -> None:
    read = parse.shared(flavored({"replicas": 2}), KEYS)
    fetched = read.answered(["flavor-shape"])
    assert fetched is not None
    assert fetched["flavor-shape"][0]["data"] == {"replicas": 2}
    assert read.answered(["flavor-shape", "flavor-other"]) is None


def test_crossplane_1_answers_are_read_and_crossplane_2_answers_win() -> None:
    req = flavored({"replicas": 2})
    req.extra_resources["flavor-old"].items.add().resource.update({"data": {"replicas": 1}})
    req.extra_resources["flavor-shape"].items.add().resource.update({"data": {"replicas": 9}})
    read = parse.shared(req, KEYS)
    assert read.fetched["flavor-old"][0]["data"] == {"replicas": 1}
    assert read.fetched["flavor-shape"][0]["data"] == {"replicas": 2}
    assert set(read.fetched) == {"flavor-old", "flavor-shape"}


def test_an_edited_flavor_that_keeps_its_uid_and_version_is_read_anew() -> None:
    # `kubectl get -o yaml` keeps uid and resourceVersion; an edit of that export
    # rendered against a running server must still be read anew.
    one = parse.shared_key(flavored({"replicas": 2}, version="7"), KEYS)
    other = parse.shared_key(flavored({"replicas": 5}, version="7"), KEYS)
    assert one != other


def test_map_order_does_not_change_the_memo_key() -> None:
    one, other = flavored({"a": 1, "b": 2}), flavored({"b": 2, "a": 1})
    one.input.update({"x": 1, "y": 2})
    other.input.update({"y": 2, "x": 1})
    assert parse.shared_key(one, KEYS) == parse.shared_key(other, KEYS)


def _xr(req: fnv1.RunFunctionRequest) -> Any:
    return req.observed.composite.resource


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda r: r.input.update({"ttl": "30s"}), id="input"),
        pytest.param(lambda r: r.extra_resources["flavor-x"].SetInParent(), id="extra resources"),
        pytest.param(
            lambda r: r.required_resources["flavor-shape"].items.add(), id="required resources"
        ),
        pytest.param(
            lambda r: r.required_resources["flavor-other"].SetInParent(), id="another key"
        ),
    ],
)
def test_everything_the_memo_reads_is_in_its_key(change: Any) -> None:
    one, other = flavored({"replicas": 2}), flavored({"replicas": 2})
    change(other)
    assert parse.shared_key(one, KEYS) != parse.shared_key(other, KEYS)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda r: _xr(r)["spec"].update({"replicas": 3}), id="spec"),
        pytest.param(lambda r: _xr(r).update({"status": {"phase": "Ready"}}), id="status"),
        pytest.param(
            lambda r: r.observed.resources["sqs-queue"].resource.update({"x": 1}), id="observed"
        ),
        pytest.param(
            lambda r: r.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES),
            id="capabilities",
        ),
        pytest.param(
            lambda r: r.required_resources["pods"].items.add().resource.update({"kind": "Pod"}),
            id="what no flavor is fetched under",
        ),
        pytest.param(lambda _r: None, id="only the tag"),
    ],
)
def test_what_the_memo_never_reads_leaves_its_key_as_it_was(change: Any) -> None:
    one, other = flavored({"replicas": 2}), flavored({"replicas": 2})
    change(other)
    other.meta.tag = "another tag"
    assert parse.shared_key(one, KEYS) == parse.shared_key(other, KEYS)


def test_only_the_xr_fields_the_function_reads_are_converted() -> None:
    xr = support.MINIMAL_XR | {
        "metadata": support.MINIMAL_XR["metadata"]
        | {"managedFields": [{"manager": "x"}], "uid": "u"},
        "status": {"phase": "Ready"},
    }
    body = parse.observed_composite(support.request(xr))
    assert set(body) == {"apiVersion", "kind", "metadata", "spec"}
    assert set(body["metadata"]) == {"name", "labels"}
