"""Where each Function in the functions file runs: a Development target, or in-process."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from function.rendercli.errors import RenderError
from function.rendercli.files import Document

RUNTIME = "render.crossplane.io/runtime"
DEVELOPMENT_TARGET = "render.crossplane.io/runtime-development-target"
DEFAULT_DEVELOPMENT_TARGET = "localhost:9443"
OWN_PACKAGE = "function-asya"


@dataclass(frozen=True)
class Runtime:
    """How to reach one Function: a gRPC target, or None to serve function-asya in-process."""

    name: str
    target: str | None


def is_own_package(function: Document) -> bool:
    """Tell whether a Function object refers to this project's package."""
    package = str((function.body.get("spec") or {}).get("package", ""))
    repository = package.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    return repository == OWN_PACKAGE or (not package and function.name == OWN_PACKAGE)


def runtime_for(function: Document) -> Runtime:
    """Decide where a Function runs.

    A Function with an explicit development target is called there. function-asya
    itself is otherwise served in-process on a free loopback port, so no Docker
    daemon and no separately started server are needed. Any other Development
    function is called at localhost:9443, as `crossplane render` does.

    Raises:
        RenderError: for a Function that would need the Docker runtime.
    """
    annotations = function.metadata.get("annotations") or {}
    target = annotations.get(DEVELOPMENT_TARGET)
    if target:
        return Runtime(function.name, str(target))
    if is_own_package(function):
        return Runtime(function.name, None)
    if annotations.get(RUNTIME) == "Development":
        return Runtime(function.name, DEFAULT_DEVELOPMENT_TARGET)
    raise RenderError(
        f'cannot start Function "{function.name}": the Docker runtime is not available here; '
        f"annotate it with {RUNTIME}: Development and start it yourself"
    )


@contextlib.asynccontextmanager
async def started(runtimes: list[Runtime]) -> AsyncIterator[dict[str, str]]:
    """Start function-asya in-process if any runtime needs it; yield name → target."""
    targets = {rt.name: rt.target for rt in runtimes if rt.target is not None}
    local = [rt.name for rt in runtimes if rt.target is None]
    if not local:
        yield targets
        return
    # Imported here so rendering with only remote functions never loads the function.
    from function import fn, server  # noqa: PLC0415

    grpc_server, port = server.build(
        fn.FunctionRunner(), server.Options(address="127.0.0.1:0", insecure=True)
    )
    await grpc_server.start()
    try:
        yield targets | dict.fromkeys(local, f"127.0.0.1:{port}")
    finally:
        await grpc_server.stop(grace=None)
