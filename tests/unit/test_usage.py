"""`flavors usage`: each flavor and the actors listing it, from files or a kubectl List."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support import ROOT
from tests.unit.test_tools import flavor, run, write

EXAMPLES = ROOT / "examples"


def actor(name: str, namespace: str, flavors: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": "asya.sh/v1alpha1",
        "kind": "AsyncActor",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"actor": name, "image": "i:1", "handler": "h.f", "flavors": flavors},
    }


def usage_json(*args: str) -> dict[str, Any]:
    result = run("flavors", "usage", *args, "-o", "json")
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def test_a_kubectl_list_is_read_item_by_item(tmp_path: Path) -> None:
    listed = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [actor("a", "ml", ["gpu"]), actor("b", "team", ["gpu", "old"])],
    }
    gpu = flavor("gpu", {"replicas": 2})
    old = flavor(
        "old",
        {"replicas": 1},
        labels={"asya.sh/flavor": "old", "asya.sh/deprecated": "true"},
        annotations={"asya.sh/deprecation-message": "use gpu"},
    )
    unused = flavor("spare", {"replicas": 3})
    found = usage_json(
        "--actors",
        write(tmp_path / "actors.yaml", listed),
        "-e",
        write(tmp_path / "lib.yaml", gpu, old, unused),
    )
    by_flavor = {use["flavor"]: use for use in found["flavors"]}
    assert by_flavor["gpu"]["actors"] == ["ml/a", "team/b"]
    assert [use["flavor"] for use in found["deprecatedInUse"]] == ["old"]
    assert found["deprecatedInUse"][0]["deprecationMessage"] == "use gpu"
    assert [use["flavor"] for use in found["unused"]] == ["spare"]
    assert found["missing"] == []


def test_a_flavor_no_file_defines_is_missing(tmp_path: Path) -> None:
    actors = write(tmp_path / "a.yaml", actor("a", "ml", ["gpu-h200"]))
    found = usage_json("--actors", actors, "-e", str(EXAMPLES / "flavors"))
    assert found["missing"] == [{"flavor": "gpu-h200", "kind": None, "actors": ["ml/a"]}]


def test_a_namespace_flavor_counts_for_the_actors_of_its_namespace_only(tmp_path: Path) -> None:
    actors = write(
        tmp_path / "a.yaml",
        actor("in-ml", "ml", ["team-secrets"]),
        actor("in-prod", "production", ["team-secrets"]),
    )
    found = usage_json("--actors", actors, "-e", str(EXAMPLES / "team-flavors"))
    by_place = {(u["flavor"], u.get("namespace", "")): u["actors"] for u in found["flavors"]}
    assert by_place[("team-secrets", "ml")] == ["ml/in-ml"]
    assert by_place[("team-secrets", "production")] == ["production/in-prod"]


def test_the_text_output_lists_each_flavor_with_its_actors() -> None:
    result = run(
        "flavors", "usage", "--actors", str(EXAMPLES / "flavored"), "-e", str(EXAMPLES / "flavors")
    )
    assert result.exit_code == 0
    assert (
        "gpu-t4 (EnvironmentConfig): 1 actor: ml/deprecated-flavor [deprecated: Use gpu-a100 instead]"
        in result.stdout
    )
    assert "gpu-h200 (missing): 1 actor: ml/missing-flavor" in result.stdout
    # team-secrets is a namespace flavor, not in this library.
    assert "2 missing, 1 deprecated in use" in result.stderr


def test_without_a_library_it_lists_what_actors_use() -> None:
    found = usage_json("--actors", str(EXAMPLES / "flavored"))
    assert found["unused"] == []
    assert {use["flavor"] for use in found["missing"]} >= {"gpu-a100", "cpu-small"}


def test_actors_are_required() -> None:
    assert run("flavors", "usage").exit_code == 2


def test_a_flavor_defined_twice_counts_once_as_its_last_definition(tmp_path: Path) -> None:
    # As plan reads a base library followed by the files a change edits.
    first = write(tmp_path / "base.yaml", flavor("gpu", {"replicas": 2}))
    last = write(
        tmp_path / "change.yaml",
        flavor(
            "gpu",
            {"replicas": 3},
            annotations={"asya.sh/deprecated": "true", "asya.sh/deprecation-message": "use gpu2"},
        ),
    )
    actors = write(tmp_path / "actors.yaml", actor("a", "ml", ["gpu"]))
    found = usage_json("--actors", actors, "-e", first, "-e", last)
    assert [(u["flavor"], u.get("deprecationMessage")) for u in found["flavors"]] == [
        ("gpu", "use gpu2")
    ]
    result = run("flavors", "usage", "--actors", actors, "-e", first, "-e", last)
    assert result.stdout.splitlines() == [
        "gpu (EnvironmentConfig): 1 actor: ml/a [deprecated: use gpu2]"
    ]
    assert result.stderr.startswith("1 actor, 1 flavor in the library: ")


def test_counts_of_one_are_singular(tmp_path: Path) -> None:
    library = write(tmp_path / "lib.yaml", flavor("gpu", {"replicas": "two"}))
    actors = write(tmp_path / "actors.yaml", actor("a", "ml", ["gpu"]))
    result = run("flavors", "lint", library, "--actors", actors)
    assert result.stderr.startswith("1 flavor, 1 actor: 2 errors, 0 conflicting pairs, 0 warnings")
