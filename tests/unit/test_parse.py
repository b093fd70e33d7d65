"""Reading the request: what is converted, and what is converted once and reused."""

from __future__ import annotations

from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import parse
from function.cache import ContentCache
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


def data_of(req: fnv1.RunFunctionRequest, caches: parse.Caches | None = None) -> Any:
    fetched = parse.required(req, ["flavor-shape"], caches or parse.Caches())
    assert fetched is not None
    return fetched["flavor-shape"][0]["data"]


def test_the_same_flavor_content_is_converted_once() -> None:
    caches = parse.Caches()
    first = parse.required(flavored({"replicas": 2}), ["flavor-shape"], caches)
    again = parse.required(flavored({"replicas": 2}), ["flavor-shape"], caches)
    assert first is not None
    assert again is not None
    assert first["flavor-shape"][0] is again["flavor-shape"][0]


def test_an_edited_flavor_that_keeps_its_uid_and_version_is_never_served_stale() -> None:
    # `kubectl get -o yaml` keeps uid and resourceVersion; an edit of that export
    # rendered against a running server must still be read anew.
    caches = parse.Caches()
    assert data_of(flavored({"replicas": 2}, version="7"), caches) == {"replicas": 2}
    assert data_of(flavored({"replicas": 5}, version="7"), caches) == {"replicas": 5}


def test_flavors_without_uid_and_version_are_cached_by_content_too() -> None:
    caches = parse.Caches()
    assert data_of(flavored({"replicas": 2}, uid=""), caches) == {"replicas": 2}
    assert data_of(flavored({"replicas": 3}, uid=""), caches) == {"replicas": 3}
    assert data_of(flavored({"replicas": 2}, uid=""), caches) == {"replicas": 2}
    assert (caches.flavors.hits, caches.flavors.misses) == (1, 2)


def test_the_cache_is_bounded() -> None:
    caches = parse.Caches()
    for n in range(parse.FLAVOR_CACHE_SIZE + 10):
        data_of(flavored({"n": n}, uid=f"bounded-{n}"), caches)
    assert len(caches.flavors) == parse.FLAVOR_CACHE_SIZE


def test_the_same_input_is_parsed_once_and_a_changed_one_again() -> None:
    caches = parse.Caches()
    one = support.request(support.MINIMAL_XR, input=support.struct({"ttl": "90s"}))
    two = support.request(support.MINIMAL_XR, input=support.struct({"ttl": "90s"}))
    other = support.request(support.MINIMAL_XR, input=support.struct({"ttl": "30s"}))
    assert parse.settings(one, caches) is parse.settings(two, caches)
    assert parse.settings(other, caches).ttl == "30s"


def test_a_cache_of_size_zero_computes_every_time() -> None:
    caches = parse.Caches(flavors=ContentCache(0))
    first = parse.required(flavored({"replicas": 2}), ["flavor-shape"], caches)
    again = parse.required(flavored({"replicas": 2}), ["flavor-shape"], caches)
    assert first is not None
    assert again is not None
    assert first == again
    assert first["flavor-shape"][0] is not again["flavor-shape"][0]


def test_only_the_xr_fields_the_function_reads_are_converted() -> None:
    xr = support.MINIMAL_XR | {
        "metadata": support.MINIMAL_XR["metadata"]
        | {"managedFields": [{"manager": "x"}], "uid": "u"},
        "status": {"phase": "Ready"},
    }
    body = parse.observed_composite(support.request(xr))
    assert set(body) == {"apiVersion", "kind", "metadata", "spec"}
    assert set(body["metadata"]) == {"name", "labels"}
