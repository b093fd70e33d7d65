"""`function-asya serve`: the function over gRPC, as Crossplane's function runtime contract has it."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

import click
from crossplane.function import logging

from function import runner
from function.serving import answers, server


def _megabytes(
    *names: str,
    default: int | None,
    envvar: str | list[str],
    help: str,  # noqa: A002  # click's own name for it
    minimum: int = 1,
) -> Callable[[Any], Any]:
    """An option of a size in megabytes."""
    return click.option(
        *names,
        type=click.IntRange(min=minimum),
        default=default,
        show_default=default is not None,
        envvar=envvar,
        help=help,
    )


@click.command()
@click.option("--debug", "-d", is_flag=True, envvar="DEBUG", help="Emit debug logs.")
@click.option(
    "--address",
    default="0.0.0.0:9443",
    show_default=True,
    envvar="ADDRESS",
    help="Address at which to listen for gRPC connections.",
)
@click.option(
    "--tls-certs-dir",
    "--tls-server-certs-dir",
    "tls_certs_dir",
    envvar="TLS_SERVER_CERTS_DIR",
    help="Directory with tls.crt, tls.key and ca.crt: serve with mutual TLS.",
)
@click.option(
    "--insecure",
    is_flag=True,
    envvar="INSECURE",
    help="Serve plaintext only; any certificates directory is ignored.",
)
@_megabytes(
    "--max-recv-message-size",
    "--max-grpc-message-size",
    default=4,
    envvar=["MAX_RECV_MESSAGE_SIZE", "MAX_GRPC_MESSAGE_SIZE"],
    help="Maximum size of received gRPC messages in MB.",
)
@_megabytes(
    "--max-send-message-size",
    default=None,
    envvar="MAX_SEND_MESSAGE_SIZE",
    help="Maximum size of sent gRPC messages in MB (default: the receive size).",
)
@_megabytes(
    "--cache-size",
    minimum=0,
    default=answers.CACHE_MB,
    envvar="CACHE_SIZE",
    help="MiB of answers kept for requests whose content was seen before (0: none).",
)
@click.option(
    "--grace-period",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    help="Seconds in-flight calls may take to finish after SIGTERM.",
)
def serve(
    debug: bool,
    address: str,
    tls_certs_dir: str | None,
    insecure: bool,
    max_recv_message_size: int,
    max_send_message_size: int | None,
    cache_size: int,
    grace_period: float,
) -> None:
    """Serve the function over gRPC (port 9443, as Crossplane expects)."""
    logging.configure(level=logging.Level.DEBUG if debug else logging.Level.INFO)
    options = server.Options(
        address=address,
        insecure=insecure,
        tls_certs_dir=tls_certs_dir,
        max_recv_message_mb=max_recv_message_size,
        max_send_message_mb=max_send_message_size or max_recv_message_size,
        grace_seconds=grace_period,
        cache_mb=cache_size,
    )
    try:
        asyncio.run(server.serve(runner.FunctionRunner(), options))
    except (server.StartupError, LookupError) as exc:  # LookupError: Kubernetes' schemas
        click.echo(f"function-asya: cannot start: {exc}", err=True)
        sys.exit(1)
