"""The `function-asya` command line: `serve`, `render` offline, `flavors lint` and `explain`.

Each subcommand is imported when it runs (or when help lists it): serving never
loads the render CLI or the tools.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

# Subcommand name -> "module:attribute" of its click command.
SUBCOMMANDS = {
    "serve": "function.cli.serve:serve",
    "render": "function.cli.render.command:render",
    "flavors": "function.cli.tools.command:flavors",
    "explain": "function.cli.tools.explain:explain",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when they are used or listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every subcommand's name, without importing any."""
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return one subcommand (None for an unknown name)."""
        if cmd_name not in SUBCOMMANDS:
            return None
        module, attribute = SUBCOMMANDS[cmd_name].split(":")
        command: Any = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{SUBCOMMANDS[cmd_name]} is not a click command")
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="function-asya")
def cli() -> None:
    """function-asya: AsyncActors on Crossplane."""


if __name__ == "__main__":
    cli()
