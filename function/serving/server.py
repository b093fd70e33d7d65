"""Serve the function over gRPC per Crossplane's function runtime contract."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import grpc
from crossplane.function import logging, runtime
from grpc_reflection.v1alpha import reflection

from function.serving import answers, handler

CERT_FILES = ("tls.crt", "tls.key", "ca.crt")
# v1beta1 is v1 under another name, byte for byte: both are served by one handler.
SERVICES = (
    "apiextensions.fn.proto.v1.FunctionRunnerService",
    "apiextensions.fn.proto.v1beta1.FunctionRunnerService",
)
MIB = answers.MIB


class StartupError(Exception):
    """The server cannot start: the message says why."""


@dataclass(frozen=True)
class Options:
    """How to serve: address, transport security, and limits."""

    address: str = "0.0.0.0:9443"
    insecure: bool = False
    tls_certs_dir: str | None = None
    max_recv_message_mb: int = 4
    max_send_message_mb: int = 4
    grace_seconds: float = 5.0
    # Concurrency, all of it here. Calls are answered on the event loop, one at a
    # time (handler.py says why); after SIGTERM, on these worker threads, so that the
    # loop takes in every call already sent. The work is CPU-bound Python, so a
    # second worker would only contend for the GIL.
    workers: int = 1
    # The response cache's budget (MiB): an unchanged actor is answered from it.
    cache_mb: int = answers.CACHE_MB
    # After SIGTERM, calls keep being taken in this long before gRPC stops: a call
    # already sent (still in the socket or gRPC's queue) starts and is answered
    # instead of being cancelled. Cache hits make calls short and many in transit.
    drain_seconds: float = 0.25


def credentials(tls_certs_dir: str) -> grpc.ServerCredentials:
    """Load mutual-TLS server credentials from tls.crt, tls.key and ca.crt.

    Raises:
        StartupError: naming the directory or file that cannot be read.
    """
    directory = Path(tls_certs_dir)
    if not directory.is_dir():
        raise StartupError(f"TLS certificates directory {tls_certs_dir!r} does not exist")
    contents = {}
    for name in CERT_FILES:
        try:
            contents[name] = (directory / name).read_bytes()
        except OSError as exc:
            raise StartupError(f"cannot read {directory / name}: {exc.strerror}") from None
    return grpc.ssl_server_credentials(
        private_key_certificate_chain_pairs=[(contents["tls.key"], contents["tls.crt"])],
        root_certificates=contents["ca.crt"],
        require_client_auth=True,
    )


class Built(NamedTuple):
    """A server, not yet started; the port it bound; the answers it serves (and keeps)."""

    server: grpc.aio.Server
    port: int
    answers: answers.Answers


def build(
    function: answers.Function, options: Options, draining: asyncio.Event | None = None
) -> Built:
    """Create a server that serves v1 and v1beta1 RunFunction and bind its one port.

    Called on the event loop that will serve. Set `draining` when the server is
    about to stop: the calls taken in from then on are answered on a worker thread.

    Returns:
        The (not yet started) server, the port it bound and its answers.

    Raises:
        StartupError: when the address cannot be bound or the certificates read.
    """
    grpc_options: Sequence[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", options.max_recv_message_mb * MIB),
        ("grpc.max_send_message_length", options.max_send_message_mb * MIB),
        # gRPC sets SO_REUSEPORT by default: a second server would then share the
        # port and split the traffic instead of failing to start.
        ("grpc.so_reuseport", 0),
    ]
    server = grpc.aio.server(options=grpc_options)
    worker = ThreadPoolExecutor(max_workers=options.workers, thread_name_prefix="run-function")
    # What an answer does after sending runs on the loop once the call that wrote it has
    # handed its answer to gRPC, which sends it from threads of its own: they never delay it.
    kept = answers.Answers(
        function,
        options.max_send_message_mb * MIB,
        options.cache_mb * MIB,
        after=asyncio.get_running_loop().call_soon_threadsafe,
    )
    handlers = {"RunFunction": handler.run_function(kept, worker, draining or asyncio.Event())}
    for service in SERVICES:
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
        server.add_registered_method_handlers(service, handlers)
    reflection.enable_server_reflection(runtime.SERVICE_NAMES, server)
    try:
        # --insecure wins over a certificates directory: binding both on one
        # address (as the SDK runner does) makes connections fail at random.
        if options.insecure:
            port = server.add_insecure_port(options.address)
        elif options.tls_certs_dir:
            port = server.add_secure_port(options.address, credentials(options.tls_certs_dir))
        else:
            raise StartupError(
                "no credentials: pass --tls-certs-dir (or set TLS_SERVER_CERTS_DIR) or --insecure"
            )
    except RuntimeError as exc:
        raise StartupError(f"cannot listen on {options.address!r}: {exc}") from None
    return Built(server, port, kept)


async def serve(function: answers.Function, options: Options) -> None:
    """Serve until SIGTERM or SIGINT, then let in-flight calls finish and return.

    SIGUSR1 logs the response cache's counts (hits, misses, bytes, answers) at info.

    Raises:
        StartupError: when the server cannot start.
    """
    # Handlers first: the port accepts connections once bound, and a SIGTERM that
    # arrives before them would kill the process instead of stopping it.
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    server, port, kept = build(function, options, draining=stopping)
    # Before the port is served: a SIGUSR1 that arrives after would otherwise stop it.
    loop.add_signal_handler(signal.SIGUSR1, kept.report)
    log = logging.get_logger()
    await server.start()
    host = options.address.rsplit(":", 1)[0]
    log.info("Serving", address=f"{host}:{port}", tls=not options.insecure)
    await stopping.wait()
    log.info("Shutting down", grace_seconds=options.grace_seconds)
    await asyncio.sleep(options.drain_seconds)
    await server.stop(grace=options.grace_seconds)
