"""Container resources the API server refuses are refused first, naming the field and its source.

Quantities are read as apimachinery's ParseQuantity reads them; the rules are
Kubernetes' container resource validation (names, signs, whole units, requests
against limits, huge pages, claims).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from function import runner as fn
from function.models import quantity
from function.validate import resources
from tests import support


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", "0"),
        ("500m", "0.5"),
        ("2Gi", str(2 * 2**30)),
        ("1e3", "1000"),
        ("1E3", "1000"),
        ("1E", "1e18"),  # exa, not an exponent
        ("1e-3", "0.001"),
        ("+5", "5"),
        ("-1", "-1"),
        ("1.", "1"),
        (".5", "0.5"),
        (" 1Gi ", str(2**30)),  # spaces around are trimmed
        ("0.0000000001", "1e-9"),  # kept to the nano, rounded up
        ("9Ei", str(2**63 - 1)),  # binary quantities are capped
        ("Mi", "0"),  # no digits, read as zero where the exact path takes it
        ("0Ei", "0"),
        (3, "3"),
        (1.5, "1.5"),
        (None, "0"),  # JSON null is the zero quantity
    ],
)
def test_a_quantity_is_read_as_the_api_server_reads_it(text: object, value: str) -> None:
    assert quantity.parse(text) == Decimal(value)


@pytest.mark.parametrize(
    "text",
    ["", "abc", "1Gb", "5K", "1e", "1e+", "1+", "1-5", "1Mi5", "1m-3", "1ee3", "1.5.5", "Pi", True],
)
def test_what_is_no_quantity_reads_as_none(text: object) -> None:
    assert quantity.parse(text) is None


def refusal(data: dict[str, Any], actor: dict[str, Any] | None = None) -> str:
    req = support.flavored_request(data)
    if actor:
        spec = req.observed.composite.resource.fields["spec"].struct_value
        spec.update(actor)
    rsp = fn.FunctionRunner().answer(req).message()
    [message] = support.fatal_messages(rsp)
    assert dict(rsp.desired.resources) == {}
    return message


def accepted(data: dict[str, Any]) -> dict[str, Any]:
    rsp = fn.FunctionRunner().answer(support.flavored_request(data)).message()
    assert support.fatal_messages(rsp) == []
    return dict(rsp.desired.resources)


GPU = "nvidia.com/gpu"


@pytest.mark.parametrize(
    ("resources", "said"),
    [
        ({"limits": {"cpu": "abc"}}, "resources: limits.cpu: not a quantity: a number with"),
        ({"requests": {"memory": "1Gb"}}, "resources: requests.memory: not a quantity"),
        ({"limits": {"cpu": True}}, "resources: limits.cpu: a boolean is not a quantity"),
        ({"limits": {"cpu": {"m": 1}}}, "resources: limits.cpu: a map is not a quantity"),
        ({"limits": {"cpu": "-1"}}, "resources.limits.cpu: -1 is negative"),
        ({"limits": {"gpu": 1}}, "resources.limits.gpu: 'gpu' is not a resource a container"),
        ({"limits": {"a/b/c": 1}}, "'a/b/c' is not a valid resource name"),
        ({"limits": {GPU: "0.5"}}, f"resources.limits.{GPU}: 0.5 is not a whole number"),
        (
            {"limits": {"cpu": "-" + "9" * 60}},
            "resources.limits.cpu: -99999999999999999999999999999999999999… is negative",
        ),
        (
            {"limits": {"cpu": "1"}, "requests": {"cpu": "1500m"}},
            "resources.requests.cpu: 1500m is more than the limit 1",
        ),
        (
            {"requests": {GPU: 1}},
            f"resources.requests.{GPU}: {GPU} cannot be overcommitted: set its limit too",
        ),
        (
            {"limits": {GPU: 2}, "requests": {GPU: 1}},
            f"{GPU} cannot be overcommitted: the request must equal the limit 2",
        ),
        (
            {"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}},
            "resources.limits.hugepages-2Mi: 3Mi is not a whole number of 2Mi pages",
        ),
        (
            {"limits": {"hugepages-2Mi": "4Mi"}},
            "resources: huge pages need a cpu or memory request or limit beside them",
        ),
        ({"claims": [{"name": "gpu"}]}, "resources.claims: the pod declares no resource claims"),
    ],
)
def test_resources_the_api_server_refuses_are_refused_naming_the_field(
    resources: dict[str, Any], said: str
) -> None:
    message = refusal({"resources": resources})
    assert said in message
    assert message.endswith('(from flavor "shape")')


@pytest.mark.parametrize(
    "resources",
    [
        {"limits": {"cpu": "2", "memory": "4Gi"}, "requests": {"cpu": "500m", "memory": "4Gi"}},
        {"limits": {GPU: 1}},  # the request defaults to the limit
        {"limits": {GPU: "2"}, "requests": {GPU: 2}},
        {"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}},
        {"requests": {"cpu": "0"}, "limits": {"example.kubernetes.io/widget": "1.5"}},
        {"limits": {"ephemeral-storage": " 10Gi ", "cpu": 0.5}},
        {"limits": {GPU: "0.9995"}},  # whole in thousandths rounded up, as the API server counts
        {"limits": {GPU: "1e400"}},  # whole, past what a context of Decimal's precision divides
    ],
)
def test_resources_the_api_server_accepts_are_rendered_as_written(
    resources: dict[str, Any],
) -> None:
    rendered = accepted({"resources": resources})
    assert "deployment" in rendered


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            {"sidecar": {"resources": {"limits": {"memory": "-1"}}}},
            "sidecar.resources.limits.memory",
        ),
        (
            {
                "initContainers": [
                    {"name": "init", "image": "i:1", "resources": {"limits": {"x": 1}}}
                ]
            },
            "initContainers[init].resources.limits.x",
        ),
        (
            {"sidecars": [{"name": "side", "image": "s:1", "resources": {"requests": {GPU: 1}}}]},
            f"sidecars[side].resources.requests.{GPU}",
        ),
        (
            {
                "stateProxy": [
                    {
                        "name": "store",
                        "mount": {"path": "/state"},
                        "connector": {"image": "c:1", "resources": {"limits": {"cpu": "-2"}}},
                    }
                ]
            },
            "stateProxy[store].connector.resources.limits.cpu",
        ),
        ({"volumes": [{"name": "x", "emptyDir": {"sizeLimit": "lots"}}]}, "emptyDir.sizeLimit"),
    ],
)
def test_every_containers_resources_are_held_to_the_same_rules(
    data: dict[str, Any], said: str
) -> None:
    assert said in refusal(data)


def test_a_request_over_a_limit_another_layer_set_names_both_sources() -> None:
    message = refusal(
        {"resources": {"requests": {"cpu": "4"}}}, actor={"resources": {"limits": {"cpu": "2"}}}
    )
    assert message == (
        "invalid flavor data: resources.requests.cpu: 4 is more than the limit 2 "
        '(the limit from the actor\'s spec) (from flavor "shape")'
    )


def test_the_quantity_and_name_caches_never_change_an_answer() -> None:
    # Both are bounded memos of pure functions: answers are the same bytes cold and warm.
    requests = [
        support.flavored_request({"resources": resources})
        for resources in (
            {"limits": {"cpu": "2", GPU: 1}, "requests": {"cpu": "500m"}},
            {"limits": {"cpu": "1"}, "requests": {"cpu": "1500m"}},
            {"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}},
        )
    ]

    def answers() -> list[bytes]:
        return [fn.FunctionRunner().answer(req).serialise() for req in requests]

    quantity._parse.cache_clear()
    resources.resource.cache_clear()
    cold = answers()
    assert quantity._parse.cache_info().currsize > 0
    assert answers() == cold
    assert quantity._parse.cache_info().maxsize == 4096
    assert resources.resource.cache_info().maxsize == 1024
    # Long texts and names are read without being kept: the memory stays bounded too.
    kept = quantity._parse.cache_info().currsize, resources.resource.cache_info().currsize
    assert quantity.parse("1" * 100) == Decimal("1" * 100)
    assert "is not a valid resource name" in refusal({"resources": {"limits": {"x" * 400: "1"}}})
    assert (quantity._parse.cache_info().currsize, resources.resource.cache_info().currsize) == kept
