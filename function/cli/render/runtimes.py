"""Where each Function in the functions file runs: a Development target, or in-process."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from function.cli.render.errors import RenderError
from function.cli.render.files import Document

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
    """Decide where a Function runs, from its runtime annotation as `crossplane render` does.

    `Development` is dialled at its target (default localhost:9443). The Docker
    runtime (no annotation, or `Docker`) runs the package's image; for function-asya
    that image is this code, served in-process on a free loopback port instead, so
    no Docker daemon is needed. Any other value is an error.

    Raises:
        RenderError: for an unknown runtime, or another Function that needs Docker.
    """
    annotations = function.metadata.get("annotations") or {}
    runtime = str(annotations.get(RUNTIME) or "Docker")
    if runtime == "Development":
        target = str(annotations.get(DEVELOPMENT_TARGET) or DEFAULT_DEVELOPMENT_TARGET)
        return Runtime(function.name, target)
    # InProcess is the v2.3+ CLI's; for function-asya it is what Docker stands for here.
    if runtime not in ("Docker", "InProcess"):
        raise RenderError(f'unsupported "{RUNTIME}" annotation value "{runtime}" (unknown runtime)')
    if is_own_package(function):
        return Runtime(function.name, None)
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
    from function import runner as fn  # noqa: PLC0415
    from function.serving import server  # noqa: PLC0415

    grpc_server, port, _ = server.build(
        fn.FunctionRunner(), server.Options(address="127.0.0.1:0", insecure=True)
    )
    await grpc_server.start()
    try:
        yield targets | dict.fromkeys(local, f"127.0.0.1:{port}")
    finally:
        # A graceful stop: an immediate one sends clients a GOAWAY that gRPC logs on
        # stderr ("Cancelling all calls"), which render must keep clean.
        await grpc_server.stop(grace=1)
