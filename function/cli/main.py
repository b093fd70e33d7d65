"""The `function-asya` command line: `serve`, `render` offline, `flavors lint` and `explain`."""

from __future__ import annotations

import asyncio
import sys

import click
from crossplane.function import logging

from function import pipeline as fn
from function.cli.render import command as render_command
from function.cli.tools import command as tools_command
from function.serving import server


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="function-asya")
def cli() -> None:
    """function-asya: AsyncActors on Crossplane."""


@cli.command()
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
@click.option(
    "--max-recv-message-size",
    "--max-grpc-message-size",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    envvar=["MAX_RECV_MESSAGE_SIZE", "MAX_GRPC_MESSAGE_SIZE"],
    help="Maximum size of received gRPC messages in MB.",
)
@click.option(
    "--max-send-message-size",
    type=click.IntRange(min=1),
    default=None,
    envvar="MAX_SEND_MESSAGE_SIZE",
    help="Maximum size of sent gRPC messages in MB (default: the receive size).",
)
@click.option(
    "--cache-size",
    type=click.IntRange(min=0),
    default=64,
    show_default=True,
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
        asyncio.run(server.serve(fn.FunctionRunner(), options))
    except server.StartupError as exc:
        click.echo(f"function-asya: cannot start: {exc}", err=True)
        sys.exit(1)


cli.add_command(render_command.render)
cli.add_command(tools_command.flavors)
cli.add_command(tools_command.explain)


if __name__ == "__main__":
    cli()
