"""Build Plans the way the pipeline (function/runner.py) does, from plain data."""

from __future__ import annotations

from typing import Any

from function.compose.renderers import meta, sqs
from function.models import input as fn_input
from function.models import xr as xr_model
from function.models.plan import Plan
from function.resolve import layers
from function.resolve.sources import Flavor
from tests.golden.cases import EXAMPLES
from tests.schemas import load_all


def plan(
    spec: dict[str, Any] | None = None,
    *,
    settings: dict[str, Any] | None = None,
    observed: dict[str, dict[str, Any]] | None = None,
    labels: dict[str, str] | None = None,
    namespaced: bool = False,
    namespace: str = "team",
    dead_letter_queues: list[dict[str, Any]] | None = None,
    flavors: dict[str, dict[str, Any]] | None = None,
    pods: list[dict[str, Any]] | None = None,
    autoscalers: list[dict[str, Any]] | None = None,
) -> Plan:
    metadata: dict[str, Any] = {"name": "echo-x1y2z", "labels": dict(labels or {})}
    if namespaced:
        metadata["namespace"] = namespace
    else:
        metadata["labels"]["crossplane.io/claim-namespace"] = namespace
    body = {
        "metadata": metadata,
        "spec": {
            "actor": "echo",
            "image": "echo:1",
            "handler": "echo.handle",
            **({"flavors": list(flavors)} if flavors else {}),
            **(spec or {}),
        },
    }
    xr = xr_model.parse(body)
    resolution = layers.resolve(xr, [Flavor(name, data) for name, data in (flavors or {}).items()])
    return Plan(
        xr=xr,
        spec=resolution.spec,
        settings=fn_input.parse(settings or {}),
        observed=observed or {},
        transport_fetched=(
            {} if dead_letter_queues is None else {sqs.DEAD_LETTER_KEY: dead_letter_queues}
        ),
        pods=pods,
        autoscalers=autoscalers,
        origin=resolution.provenance,
    )


def stage(name: str, actor: str = "text-processor") -> dict[str, dict[str, Any]]:
    """The observed resources of an example life stage, by composition resource name."""
    docs = load_all(EXAMPLES / actor / "observed" / f"{name}.yaml")
    return {
        d["metadata"]["annotations"]["crossplane.io/composition-resource-name"]: d for d in docs
    }


def manifest(body: dict[str, Any] | None) -> dict[str, Any]:
    assert body is not None
    if body.get("kind") == "Object":
        inner: dict[str, Any] = body["spec"]["forProvider"]["manifest"]
        return inner
    return body


def env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


__all__ = ["env", "manifest", "meta", "plan", "stage"]
