"""The development page's map of the code names every package and module of the tree, and nothing else."""

from __future__ import annotations

import re

from tests.support import ROOT

FUNCTION = ROOT / "function"


def code_map() -> str:
    readme = (ROOT / "docs" / "development.md").read_text()
    section = readme.split("### How the code is laid out", 1)[1]
    return section.split("```text\n", 1)[1].split("```", 1)[0]


def test_every_package_and_top_module_is_on_the_map() -> None:
    text = code_map()
    listed = set(re.findall(r"^  ([a-z_]+/|[a-z_]+\.py)", text, re.M))
    tree = {
        f"{path.name}/" if path.is_dir() else path.name
        for path in FUNCTION.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and not path.name.startswith("__"))
    }
    assert listed == tree


def test_every_module_the_map_names_exists() -> None:
    text = code_map()
    current = ""
    for line in text.splitlines()[1:]:
        if match := re.match(r"^  ([a-z_]+)/", line):
            current = match.group(1)
        for name in re.findall(r"\b([a-z_]+\.(?:py|c))\b", line):
            top = FUNCTION / name
            assert top.exists() or list((FUNCTION / current).rglob(name)), (current, name)


def test_the_layers_the_map_states_are_the_import_contracts() -> None:
    readme = (ROOT / "docs" / "development.md").read_text()
    stated = re.search(r"^(cli\b.*?) → (.*)\.$", readme, re.M)
    assert stated is not None
    floors = [stated.group(1), *stated.group(2).split(" → ")]
    pyproject = (ROOT / "pyproject.toml").read_text()
    # The first contract's layers, its comment lines left out.
    layers = re.search(r'layers = \[\n((?:  (?:"function\.|#)[^\n]*\n)+)\]', pyproject)
    assert layers is not None
    contract = [
        " | ".join(part.strip().removeprefix("function.") for part in floor.split("|"))
        for floor in re.findall(r'^  "([^"]+)"', layers.group(1), re.M)
    ]
    assert floors == contract
