"""Every command the README and docs/ show runs as shown (the Crossplane CLI's through our render)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from function.cli.main import cli
from tests import support

pytestmark = pytest.mark.slow
# The user's documentation: the README and the pages it links.
PAGES = [support.ROOT / "README.md", *sorted((support.ROOT / "docs").glob("*.md"))]
README = "\n".join(page.read_text() for page in PAGES)
SHELL = re.compile(r"```shell\n(?P<body>.*?)```", re.S)
BLOCKS = [m["body"] for m in SHELL.finditer(README)]
PATH = re.compile(r"\b(?:examples|compositions|xrd|package)/[\w./-]+")


def commands(prefix: str) -> list[list[str]]:
    """The README's shell command lines starting with `prefix`, continuations joined."""
    found = []
    for block in BLOCKS:
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words[: len(prefix.split())] == prefix.split():
                found.append(words)
    return found


def test_every_path_the_readme_names_exists() -> None:
    named = set(PATH.findall(README))
    assert named, "the README names example files"
    missing = sorted(p for p in named if not (support.ROOT / p.rstrip(".")).exists())
    assert missing == []


def test_the_readmes_crossplane_render_command_renders() -> None:
    # The real CLI dials the Development function `make serve` starts; so does this.
    [command] = commands("crossplane render")
    with support.serving("--insecure") as served:
        result = support.render_process(
            *command[2:],
            "-a",
            f"render.crossplane.io/runtime-development-target={served.address}",
            cwd=support.ROOT,
        )
    assert result.returncode == 0, result.stderr
    assert "kind: XAsyncActor" in result.stdout


def test_every_render_flag_the_readme_lists_is_a_flag() -> None:
    [synopsis] = commands(".venv/bin/function-asya render")
    flags = {f for word in synopsis for f in re.findall(r"--[a-z-]+|-[a-z]\b", word)}
    help_run = support.render_process("--help")
    assert help_run.returncode == 0, help_run.stderr
    help_text = help_run.stdout
    assert len(flags) > 15
    assert sorted(f for f in flags if f not in help_text) == []


def test_the_make_commands_the_readme_shows_are_targets() -> None:
    makefile = (support.ROOT / "Makefile").read_text()
    targets = {words[1] for words in commands("make") if len(words) > 1}
    assert {"render", "test", "serve"} <= targets
    assert sorted(t for t in targets if not re.search(rf"^{t}:", makefile, re.M)) == []


def test_make_render_on_a_fresh_checkout_writes_only_yaml_to_stdout(tmp_path: Path) -> None:
    # `make render > actor.yaml` as a new user's first command: the venv is created and
    # the project installed on the way, and none of that may land in the file.
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=support.ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    checkout = tmp_path / "function-asya"
    for name in filter(None, files):
        source = support.ROOT / name.decode()
        if source.is_file():
            (checkout / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, checkout / name.decode())
    # As from a user's shell: not a make inside `make test` (which would say
    # "Entering directory" on stdout).
    shell = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    result = subprocess.run(
        ["make", "render", f"PYTHON={sys.executable}"],
        cwd=checkout,
        env=shell,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    documents = list(yaml.safe_load_all(result.stdout))
    assert result.stdout.startswith("---\n")
    assert [d["kind"] for d in documents][:1] == ["XAsyncActor"]


def test_the_readmes_explain_example_is_what_explain_prints() -> None:
    [command] = commands("function-asya explain")
    shown = README.split(shlex.join(command), 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    with contextlib.chdir(support.ROOT):
        result = CliRunner().invoke(cli, command[1:])
        as_json = CliRunner().invoke(cli, [*command[1:], "-o", "json"])
    assert result.exit_code == 0, result.output
    lines = [line for line in shown.splitlines() if not line.lstrip().startswith("# …")]
    # The README shows the output's beginning, word for word.
    assert result.stdout.startswith("\n".join(lines) + "\n")
    sources = json.loads(as_json.stdout)
    assert sources["sources"]["image"] == "actor"
    assert sources["sources"]["tolerations[0].key"] == "flavor:gpu-a100"
    assert sources["sources"]["scaling.maxReplicaCount"] == "default"
