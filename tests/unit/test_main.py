"""The command line: serving loads neither the render CLI nor the tools."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from function.cli.main import SUBCOMMANDS, cli


@pytest.mark.slow
def test_serve_imports_neither_the_render_cli_nor_the_tools() -> None:
    # A fresh interpreter: this one has imported everything by now.
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from function.cli.main import cli; "
            "from click.testing import CliRunner; "
            "CliRunner().invoke(cli, ['serve', '--help']); "
            "print(' '.join(m for m in sys.modules if m.startswith('function.')))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "function.cli.serve" in loaded
    assert "function.serving.server" in loaded
    assert not [m for m in loaded if m.startswith(("function.cli.render", "function.cli.tools"))]


def test_help_lists_every_subcommand_with_its_summary() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in ("serve", "render", "flavors", "explain"):
        assert f"  {name} " in result.output
    assert "Render XR through COMPOSITION's pipeline" in result.output
    assert set(SUBCOMMANDS) == {"serve", "render", "flavors", "explain"}


def test_an_unknown_subcommand_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["frobnicate"])
    assert result.exit_code == 2
    assert "No such command 'frobnicate'" in result.output
