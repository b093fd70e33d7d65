"""One resolve boundary: the function and the tools look an actor's flavors up the same way."""

from __future__ import annotations

from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import json_format

from function import respond, runner
from function.cli.tools import library, lint
from function.errors import FunctionError
from function.models import input as fn_input
from function.models import xr as xr_model
from function.resolve import actor, requirements
from tests import support

TEAM_FLAVOR = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "team", "namespace": "ml", "labels": {"asya.sh/flavor": "team"}},
    "data": {"flavor.yaml": "replicas: 2\n"},
}
NAMESPACED = {
    "apiVersion": "asya.sh/v1alpha1",
    "kind": "AsyncActor",
    "metadata": {"name": "echo", "namespace": "ml"},
    "spec": {"actor": "echo", "image": "echo:1", "handler": "echo.handle", "flavors": ["team"]},
}
CLUSTER_SCOPED = support.MINIMAL_XR | {
    "metadata": {"name": "echo-x", "labels": {"crossplane.io/claim-namespace": "ml"}},
    "spec": NAMESPACED["spec"],
}
MODES = ["Enabled", "Auto", "Disabled"]


def asked_by_the_function(xr: dict[str, Any], mode: str, *, capable: bool) -> set[tuple[str, str]]:
    req = support.request(xr, input=support.struct({"namespacedFlavors": mode}))
    if capable:
        req.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES)
    rsp = runner.FunctionRunner().answer(req).message()
    return {(key, s.namespace) for key, s in rsp.requirements.resources.items()}


def looked_up(xr: dict[str, Any], mode: str, *, capable: bool) -> set[tuple[str, str]]:
    settings = fn_input.parse({"namespacedFlavors": mode})
    found = actor.lookup(xr_model.parse(xr), settings, namespaced_selectors=capable)
    return {(r.key, r.namespace) for r in found.wanted}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("xr", [NAMESPACED, CLUSTER_SCOPED], ids=["namespaced", "cluster-scoped"])
@pytest.mark.parametrize("capable", [True, False], ids=["crossplane-2", "crossplane-1"])
def test_the_function_asks_for_what_the_boundary_looks_up(
    xr: dict[str, Any], mode: str, capable: bool
) -> None:
    asked = asked_by_the_function(xr, mode, capable=capable)
    # Besides the flavors, the function asks for the Deployments and KEDA's HPA of the
    # actor's name, and in the v1 form for the Objects that wrap its Deployment.
    own = {(requirements.WORKLOADS_KEY, "ml"), (requirements.AUTOSCALER_KEY, "ml")}
    if xr is CLUSTER_SCOPED:
        own.add((requirements.WRAPPED_WORKLOADS_KEY, ""))
    assert own <= asked
    assert asked - own == looked_up(xr, mode, capable=capable)


def answered_by_the_function(xr: dict[str, Any], mode: str) -> tuple[list[str], Any]:
    """The function's Fatal messages and resolved spec, called by Crossplane 2 with the team flavor."""
    req = support.request(xr, input=support.struct({"namespacedFlavors": mode}))
    req.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES)
    for key, _namespace in looked_up(xr, mode, capable=True):
        items = req.required_resources[key].items
        if key.startswith("namespace-"):
            items.add().resource.update(TEAM_FLAVOR)
    rsp = runner.FunctionRunner().answer(req).message()
    resolved = rsp.context.fields.get(respond.RESOLVED_SPEC_CONTEXT_KEY)
    return support.fatal_messages(rsp), resolved and json_format.MessageToDict(resolved)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("xr", [NAMESPACED, CLUSTER_SCOPED], ids=["namespaced", "cluster-scoped"])
def test_the_tools_find_a_namespace_flavor_exactly_where_the_function_does(
    xr: dict[str, Any], mode: str
) -> None:
    settings = fn_input.parse({"namespacedFlavors": mode})
    entry = library.Entry(
        "team",
        "ConfigMap",
        TEAM_FLAVOR,
        "ml",
        flavor=library.from_config_map("team", "ml", TEAM_FLAVOR),
    )
    fatal, resolved = answered_by_the_function(xr, mode)
    # Disabled means disabled for the tools too (they used to look in the namespace anyway).
    assert bool(fatal) == (mode == "Disabled")
    # flavors lint
    assert [f.message for f in lint.check_actor(xr, [entry], settings)] == fatal
    # explain
    if fatal:
        with pytest.raises(FunctionError) as raised:
            library.resolve(xr, [entry], settings)
        assert [str(raised.value)] == fatal
    else:
        assert resolved["replicas"] == 2  # the team flavor applied
        assert library.resolve(xr, [entry], settings).data == resolved


@pytest.mark.parametrize("xr", [NAMESPACED, CLUSTER_SCOPED], ids=["namespaced", "cluster-scoped"])
def test_a_flavor_that_fails_keeps_every_requirement_asked(xr: dict[str, Any]) -> None:
    # A flavor missing (or invalid) is a Fatal; its answer must ask for what the call
    # before asked for, the ConfigMaps and the transport's dead-letter queue included,
    # or Crossplane's requirements loop never settles.
    settings = {"namespacedFlavors": "Enabled", "aws": {"accountId": "123456789012"}}
    req = support.request(xr, input=support.struct(settings))
    req.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES)
    asked = set(runner.FunctionRunner().answer(req).message().requirements.resources)
    for key in asked:
        req.required_resources[key].SetInParent()  # fetched, and nothing found
    rsp = runner.FunctionRunner().answer(req).message()
    assert support.fatal_messages(rsp)
    assert set(rsp.requirements.resources) == asked
