"""Logs never carry env values or secret data, at any level, on any path."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from crossplane.function import logging
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1

from function import respond
from function import runner as fn
from function.compose import renderers
from tests import support

pytestmark = pytest.mark.slow

SECRET = "s3cr3t-9f7c"  # short enough to survive any truncation of logged values


def actor_with_secrets(**spec: Any) -> dict[str, Any]:
    return support.MINIMAL_XR | {
        "spec": support.MINIMAL_XR["spec"]
        | {
            "env": [{"name": "API_TOKEN", "value": SECRET}],
            "secretRefs": [
                {"secretName": f"{SECRET}-name", "keys": [{"key": SECRET, "envVar": "K"}]}
            ],
            "sidecar": {"env": [{"name": "SIDE", "value": SECRET}]},
        }
        | spec
    }


def flavor(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": name},
        "data": data,
    }


def requests() -> list[fnv1.RunFunctionRequest]:
    """Requests down every path: success, waiting, conflict, invalid value, bad input."""
    secret_flavor = flavor("tokens", {"env": [{"name": "FLAVOR_TOKEN", "value": SECRET}]})
    clashing = flavor("clash", {"env": [{"name": "FLAVOR_TOKEN", "value": f"{SECRET}-2"}]})
    invalid = flavor("invalid", {"scaling": {"maxReplicaCount": SECRET}})
    cases: list[tuple[dict[str, Any], list[dict[str, Any]] | None, dict[str, Any]]] = [
        (actor_with_secrets(flavors=["tokens"]), [secret_flavor], {}),
        (actor_with_secrets(flavors=["tokens"]), None, {}),
        (actor_with_secrets(flavors=["tokens", "missing"]), [secret_flavor], {}),
        (actor_with_secrets(flavors=["tokens", "clash"]), [secret_flavor, clashing], {}),
        (actor_with_secrets(flavors=["invalid"]), [invalid], {}),
        (actor_with_secrets(env=[{"name": "ASYA_HANDLER", "value": SECRET}]), [], {}),
        (actor_with_secrets(), [], {"aws": {"region": SECRET, "accountId": SECRET}}),
    ]
    out = []
    for xr, flavors, step_input in cases:
        req = support.request(xr, input=support.struct(step_input))
        if flavors is not None:
            names = xr["spec"].get("flavors", [])
            by_name = {f["metadata"]["name"]: f for f in flavors}
            for name in names:
                items = req.required_resources[f"flavor-{name}"].items
                if name in by_name:
                    items.add().resource.update(by_name[name])
        out.append(req)
    return out


@pytest.mark.parametrize("level", [logging.Level.DEBUG, logging.Level.INFO], ids=["debug", "info"])
def test_an_unexpected_error_is_logged_without_values(
    level: logging.Level, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(plan: Any) -> None:
        token = plan.spec.env[0].value  # a local holding a secret, as a real bug would have
        raise KeyError(token)

    monkeypatch.setattr(renderers, "render_all", broken)
    logging.configure(level=level)
    req = support.request(actor_with_secrets())
    rsp = fn.FunctionRunner().answer(req).message()

    assert [r.message for r in rsp.results] == [respond.INTERNAL_ERROR]
    logged = capsys.readouterr().out
    assert "Unexpected error" in logged
    assert "KeyError" in logged  # what and where, so the bug can still be found
    assert "broken" in logged
    assert SECRET not in logged


def serve_and_call(*flags: str) -> str:
    """Send every request to a served function; return everything it logged."""
    with support.serving("--insecure", *flags) as served:
        with grpc.insecure_channel(served.address) as channel:
            stub = grpcv1.FunctionRunnerServiceStub(channel)
            for req in requests():
                stub.RunFunction(req, timeout=10)
        served.stop()
        out, err = served.process.communicate()
    return out + err


@pytest.mark.parametrize("flags", [("--debug",), ()], ids=["debug", "info"])
def test_a_served_function_never_logs_values(flags: tuple[str, ...]) -> None:
    logged = serve_and_call(*flags)
    assert "Flavors applied" in logged  # the run did log
    assert SECRET not in logged
