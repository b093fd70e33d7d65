"""Every tool reads its inputs one way: files, folders, YAML streams and kubectl Lists.

What it cannot use is named (file, document, reason) and fails the command: a CI job
whose input is empty, or a List that is not one, must not pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import ROOT
from tests.unit.test_tools import run

EXAMPLES = ROOT / "examples"
FLAVORS = sorted((EXAMPLES / "flavors").glob("*.yaml"))
ACTORS = [EXAMPLES / "flavored" / "gpu-checkpoints.yaml", EXAMPLES / "flavored" / "small-cpu.yaml"]


def bodies(*paths: Path) -> list[dict[str, Any]]:
    return [doc for path in paths for doc in yaml.safe_load_all(path.read_text()) if doc]


def listed(path: Path, kind: str, items: Any, api_version: str = "v1") -> str:
    path.write_text(yaml.safe_dump({"apiVersion": api_version, "kind": kind, "items": items}))
    return str(path)


@pytest.fixture
def lists(tmp_path: Path) -> dict[str, str]:
    """The example library and two actors as `kubectl get … -o yaml` prints them."""
    return {
        "library": listed(
            tmp_path / "library.yaml",
            "EnvironmentConfigList",
            bodies(*FLAVORS),
            "apiextensions.crossplane.io/v1beta1",
        ),
        "actors": listed(tmp_path / "actors.yaml", "List", bodies(*ACTORS)),
    }


def test_plan_reads_a_library_and_actors_given_as_kubectl_lists(lists: dict[str, str]) -> None:
    result = run(
        "flavors", "plan", "--before", lists["library"], "--after", lists["library"],
        "--actors", lists["actors"], "-o", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {a["actor"]: a["verdict"] for a in report["actors"]} == {
        "ml/gpu-checkpoints": "unchanged",
        "ml/small-cpu": "unchanged",
    }


def test_usage_counts_the_flavors_and_actors_of_kubectl_lists(lists: dict[str, str]) -> None:
    result = run("flavors", "usage", "--actors", lists["actors"], "-e", lists["library"])
    assert result.exit_code == 0, result.output
    assert "gpu-a100 (EnvironmentConfig): 1 actor: ml/gpu-checkpoints" in result.stdout
    assert f"2 actors, {len(FLAVORS)} flavors in the library" in result.stderr


def test_lint_resolves_actors_of_a_kubectl_list(lists: dict[str, str]) -> None:
    result = run("flavors", "lint", lists["library"], "--actors", lists["actors"])
    assert result.exit_code == 0, result.output
    assert "actor ?" not in result.output
    assert f"{len(FLAVORS)} flavors, 2 actors: 0 errors" in result.stderr


def test_explain_explains_each_actor_of_a_list(lists: dict[str, str]) -> None:
    result = run("explain", lists["actors"], "-e", lists["library"])
    assert result.exit_code == 0, result.output
    documents = result.stdout.split("---\n")
    assert [d.splitlines()[0] for d in documents] == ["# ml/gpu-checkpoints", "# ml/small-cpu"]
    assert [yaml.safe_load(d)["spec"]["actor"] for d in documents] == [
        "gpu-checkpoints",
        "small-cpu",
    ]
    as_json = json.loads(
        run("explain", lists["actors"], "-e", lists["library"], "-o", "json").stdout
    )
    assert [e["spec"]["actor"] for e in as_json] == ["gpu-checkpoints", "small-cpu"]


def test_render_reads_required_resources_given_as_a_list(tmp_path: Path) -> None:
    pods = EXAMPLES / "troubleshooting" / "pods" / "oom-killed.yaml"
    base = [
        "render", str(EXAMPLES / "troubleshooting" / "xr.yaml"), str(EXAMPLES / "composition.yaml"),
        str(EXAMPLES / "functions.yaml"), "-e", str(EXAMPLES / "flavors"),
        "-e", str(EXAMPLES / "platform"),
        "--observed-resources", str(EXAMPLES / "troubleshooting" / "observed.yaml"),
    ]  # fmt: skip
    as_files = run(*base, "-e", str(pods))
    as_list = run(*base, "-e", listed(tmp_path / "pods.yaml", "PodList", bodies(pods)))
    assert as_files.exit_code == as_list.exit_code == 0, as_list.output
    assert "OOMKilled" in as_list.stdout
    assert as_list.stdout == as_files.stdout


JUNK = {
    "an empty file": ("", "it holds no object"),
    "only comments": ("# kubectl get asyncactors -A -o yaml\n", "it holds no object"),
    "items a map": (
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": {"a": 1}}),
        "the List's items must be a list, not a map",
    ),
    "items a string": (
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": "none"}),
        "the List's items must be a list, not a string",
    ),
    "a junk item": (
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1"}, 3]}),
        "document 1, item 1 is not a Kubernetes object",
    ),
    "an empty list": (yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": []}), None),
}


def actors_as(path: Path, case: str) -> tuple[str, str]:
    text, said = JUNK[case]
    path.write_text(text)
    return str(path), said or f"no actors in {path}"


@pytest.mark.parametrize("case", list(JUNK))
@pytest.mark.parametrize(
    "command",
    [
        ("flavors", "plan", "--before", str(EXAMPLES / "flavors"), "--after",
         str(EXAMPLES / "flavors"), "--fail-on", "refused", "--actors"),
        ("flavors", "usage", "-e", str(EXAMPLES / "flavors"), "--actors"),
        ("flavors", "lint", str(EXAMPLES / "flavors"), "--actors"),
        ("explain", "-e", str(EXAMPLES / "flavors")),
    ],
    ids=["plan", "usage", "lint", "explain"],
)  # fmt: skip
def test_actors_it_cannot_use_fail_the_command_and_are_named(
    tmp_path: Path, command: tuple[str, ...], case: str
) -> None:
    path, said = actors_as(tmp_path / "actors.yaml", case)
    result = run(*command, path)
    assert result.exit_code == 1, result.output
    assert said in result.stderr
    assert str(path) in result.stderr


def test_a_second_document_that_is_not_an_actor_is_named_by_its_number(tmp_path: Path) -> None:
    path = tmp_path / "actors.yaml"
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}}
    path.write_text(yaml.safe_dump_all([*bodies(ACTORS[0]), namespace]))
    result = run("flavors", "usage", "--actors", str(path))
    assert result.exit_code == 1
    assert f"{path} (document 2): Namespace ml (v1) is not an actor" in result.stderr


@pytest.mark.parametrize("case", [c for c in JUNK if c != "an empty list"])
def test_a_library_it_cannot_use_fails_plan_even_when_nothing_is_refused(
    tmp_path: Path, case: str
) -> None:
    library = tmp_path / "library.yaml"
    library.write_text(JUNK[case][0])
    result = run(
        "flavors", "plan", "--before", str(EXAMPLES / "flavors"), "--after", str(library),
        "--actors", str(ACTORS[0]), "--fail-on", "refused",
    )  # fmt: skip
    assert result.exit_code == 1
    assert JUNK[case][1] in result.stderr


def test_a_library_object_that_is_not_a_flavor_is_named(tmp_path: Path) -> None:
    library = tmp_path / "library.yaml"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    listed(library, "List", [*bodies(FLAVORS[0]), pod])
    result = run("flavors", "lint", str(library))
    assert result.exit_code == 1
    assert f"{library} (document 1, item 2): Pod p (v1) is not a flavor" in result.stderr
