"""Arbitrary input through RunFunction: it never raises, and every answer is whole or Fatal."""

from __future__ import annotations

from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from function import respond
from function import runner as fn
from function.codec import kinds
from tests import support

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
KEYS = st.sampled_from(
    [
        "env",
        "scaling",
        "resources",
        "tolerations",
        "image",
        "handler",
        "actor",
        "replicas",
        "stateProxy",
        "secretRefs",
        "sidecar",
        "flavors",
        "name",
        "value",
        "enabled",
        "minReplicaCount",
        "limits",
        "volumes",
        "x",
    ]
) | st.text(max_size=6)
TREES = st.recursive(
    SCALARS, lambda c: st.lists(c, max_size=4) | st.dictionaries(KEYS, c, max_size=5), max_leaves=25
)
SPECS = st.dictionaries(KEYS, TREES, max_size=8)
# XR metadata of every shape: the keys the function reads, holding anything, and
# label maps holding anything (a claim-namespace label that is a list, say).
LABELS = st.dictionaries(
    st.sampled_from(["crossplane.io/claim-namespace", "team", "asya.sh/actor"]) | KEYS, TREES
)
METADATA = st.fixed_dictionaries(
    {},
    optional={
        "name": TREES,
        "namespace": TREES,
        "labels": LABELS | TREES,
        "annotations": LABELS | TREES,
    },
) | st.dictionaries(KEYS, TREES, max_size=4)
RESOURCE_NAMES = [
    "sqs-queue",
    "deployment",
    "scaledobject",
    "serviceaccount",
    "triggerauthentication",
]


def call(req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    return fn.FunctionRunner().answer(req).message()


def fuzzed_request(
    spec: dict[str, Any],
    flavor: dict[str, Any],
    observed: dict[str, Any],
    tag: str,
    metadata: dict[str, Any] | None = None,
) -> fnv1.RunFunctionRequest:
    """An XR with a fuzzed spec, every flavor it names holding `flavor`, and observed state."""
    xr = support.MINIMAL_XR | {"spec": support.MINIMAL_XR["spec"] | spec}
    xr["metadata"] = support.MINIMAL_XR["metadata"] | (metadata or {})
    req = support.request(xr, meta=fnv1.RequestMeta(tag=tag))
    names = spec.get("flavors")
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        for name in names:
            req.required_resources[f"flavor-{name}"].items.add().resource.update(
                {"metadata": {"name": name}, "data": flavor}
            )
    for name, body in observed.items():
        req.observed.resources[name].resource.update(body)
    return req


def check(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    assert rsp.meta.tag == req.meta.tag
    fatal = [r for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]
    for result in fatal:
        # A Fatal must say what is wrong; the generic internal error means a bug.
        assert result.message.strip()
        assert result.message != respond.INTERNAL_ERROR
    if fatal:
        # Nothing of ours on an error path: only what earlier steps desired.
        assert set(rsp.desired.resources) == set(req.desired.resources)
        assert rsp.desired.composite == req.desired.composite


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spec=SPECS,
    flavor=SPECS,
    observed=st.dictionaries(st.sampled_from(RESOURCE_NAMES), SPECS, max_size=5),
)
def test_arbitrary_specs_flavors_and_observed_state(
    spec: dict[str, Any], flavor: dict[str, Any], observed: dict[str, Any]
) -> None:
    req = fuzzed_request(spec, flavor, observed, tag="fuzz")
    req.desired.resources["from-earlier-step"].resource.update({"kind": "Kept"})
    check(req, call(req))


@settings(max_examples=150, deadline=None)
@given(step_input=SPECS, metadata=METADATA)
def test_arbitrary_input_and_metadata(step_input: dict[str, Any], metadata: dict[str, Any]) -> None:
    xr = support.MINIMAL_XR | {"metadata": metadata}
    req = support.request(xr, input=support.struct(step_input), meta=fnv1.RequestMeta(tag="in"))
    check(req, call(req))


@settings(max_examples=50, deadline=None)
@given(data=TREES)
def test_flavor_data_of_any_shape(data: Any) -> None:
    xr = support.MINIMAL_XR | {"spec": support.MINIMAL_XR["spec"] | {"flavors": ["any-shape"]}}
    req = support.request(xr, meta=fnv1.RequestMeta(tag="shape"))
    item = req.required_resources["flavor-any-shape"].items.add()
    item.resource.update({"metadata": {"name": "any-shape"}, "data": data})
    rsp = call(req)
    check(req, rsp)
    if not isinstance(data, dict | type(None)):
        assert [r.message for r in rsp.results] == [
            f'invalid flavor data: flavor "any-shape": data must be a map, got '
            f"{kinds.kind_of(data)}"
        ]
