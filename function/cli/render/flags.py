"""The render command's arguments, checked as crossplane's CLI (kong) checks them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from function import durations

# kong's exit status for a usage error (crossplane render v2.2+, kong >= 1.9).
USAGE_ERROR = 80


class KongStyleCommand(click.Command):
    """A usage error as crossplane's CLI (kong, UsageOnError) reports it.

    The help goes to stdout followed by a blank line, the error to stderr, and the
    exit status is 80, so a script branching on either sees what it would see.
    """

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        """Parse the arguments; on a usage error print help and error, exit 80."""
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:
            ctx = exc.ctx or click.Context(self, info_name=info_name, parent=parent)
            click.echo(ctx.get_help())
            click.echo()
            message = exc.format_message()
            if isinstance(exc, click.NoSuchOption):
                message = f"unknown flag {exc.option_name}"  # kong's words
            click.echo(f"function-asya: error: {message}", err=True)
            sys.exit(USAGE_ERROR)


def existing_file(flag: str = "") -> Any:
    """Kong's `existingfile`: a missing file or a directory is a usage error."""

    def check(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
        if value is None or value == "-":
            return value
        prefix = f"{flag}: " if flag else ""
        path = Path(value).expanduser()
        if not path.exists():
            raise click.UsageError(f"{prefix}stat {value}: no such file or directory", ctx)
        if path.is_dir():
            raise click.UsageError(f'{prefix}"{value}" exists but is a directory', ctx)
        return value

    return check


def duration(ctx: click.Context, _param: click.Parameter, value: str) -> float:
    """Kong's time.Duration flag: seconds of a Go duration, or a usage error."""
    try:
        seconds = durations.go_duration_seconds(value)
    except ValueError as exc:
        raise click.UsageError(f"--timeout: {exc}", ctx) from None
    if seconds < 0:
        raise click.UsageError(f'--timeout: negative duration "{value}"', ctx)
    return seconds
