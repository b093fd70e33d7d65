"""A small real gRPC function whose behaviour each pipeline step picks through its input."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
from crossplane.function import resource, response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1


class Scripted(grpcv1.FunctionRunnerServiceServicer):  # type: ignore[misc]
    """Behaviours: `require`, `unstable`, `emit`, `owned`, `namespaced`, `fatal`, `context`, `deep`."""

    def __init__(self) -> None:
        self.calls: list[fnv1.RunFunctionRequest] = []
        self._counter = itertools.count()

    def RunFunction(self, req: fnv1.RunFunctionRequest, _context: Any) -> fnv1.RunFunctionResponse:  # noqa: N802
        self.calls.append(req)
        rsp = response.to(req)
        behaviour = req.input["behaviour"]
        if behaviour == "require":
            response.require_resources(
                rsp,
                "cfg",
                "apiextensions.crossplane.io/v1beta1",
                "EnvironmentConfig",
                match_name="settings",
            )
            if "cfg" in req.required_resources:
                items = req.required_resources["cfg"].items
                data = resource.struct_to_dict(items[0].resource)["data"] if items else {}
                resource.update(
                    rsp.desired.resources["config"],
                    {"apiVersion": "v1", "kind": "ConfigMap", "data": data},
                )
        elif behaviour == "schema":
            rsp.requirements.schemas["widget"].CopyFrom(
                fnv1.SchemaSelector(api_version="example.org/v1", kind="Widget")
            )
        elif behaviour == "unstable":
            response.require_resources(
                rsp, f"cfg-{next(self._counter)}", "v1", "ConfigMap", match_name="x"
            )
        elif behaviour == "emit":
            resource.update(
                rsp.desired.resources["b-ready"], {"apiVersion": "v1", "kind": "ConfigMap"}
            )
            rsp.desired.resources["b-ready"].ready = fnv1.READY_TRUE
            resource.update(
                rsp.desired.resources["a-waiting"], {"apiVersion": "v1", "kind": "Secret"}
            )
            resource.update(rsp.desired.composite, {"status": {"phase": "Creating"}})
            response.warning(rsp, "something to look at")
            rsp.conditions.append(
                fnv1.Condition(
                    type="Custom",
                    status=fnv1.STATUS_CONDITION_TRUE,
                    reason="Fine",
                    message="all good",
                )
            )
            rsp.context["example.org/key"] = {"n": 1}
        elif behaviour == "owned":
            # An owner reference to the XR first, without controller, then another owner.
            rsp.desired.resources["a-waiting"].resource["metadata"] = {
                "ownerReferences": [
                    {
                        "apiVersion": "example.org/v1",
                        "kind": "XThing",
                        "name": "thing-abc",
                        "uid": "1234-uid",
                    },
                    {"apiVersion": "v1", "kind": "Other", "name": "o", "uid": "other-owner"},
                ]
            }
        elif behaviour == "namespaced":
            rsp.desired.resources["b-ready"].resource["metadata"] = {"namespace": "elsewhere"}
        elif behaviour == "deep":
            # Past protobuf's decoding limit of 100 levels (three per map level).
            nested: Any = "leaf"
            for _ in range(40):
                nested = {"x": nested}
            resource.update(rsp.desired.resources["deep"], {"apiVersion": "v1", "data": nested})
        elif behaviour == "fatal":
            response.fatal(rsp, "this cannot work")
        return rsp


@contextlib.contextmanager
def scripted_server() -> Iterator[tuple[Scripted, str]]:
    """Serve a Scripted function on a free loopback port (v1 only)."""
    function = Scripted()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    grpcv1.add_FunctionRunnerServiceServicer_to_server(function, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield function, f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None)
