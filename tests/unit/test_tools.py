"""`flavors lint` and `explain`: the function's own rules, run over a library and an actor."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from function.cli.main import cli
from function.cli.tools import explain
from function.resolve.provenance import ACTOR, DEFAULT, Layer
from tests.support import FUNCTION_ASYA, ROOT

EXAMPLES = ROOT / "examples"


def flavor(name: str, data: Any, **metadata: Any) -> dict[str, Any]:
    labels = metadata.pop("labels", {"asya.sh/flavor": name})
    return {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": name, "labels": labels, **metadata},
        "data": data,
    }


def write(path: Path, *docs: dict[str, Any]) -> str:
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def lint_json(*args: str) -> tuple[int, list[dict[str, Any]]]:
    result = run("flavors", "lint", *args, "-o", "json")
    return result.exit_code, json.loads(result.stdout)


def test_the_example_library_lints_clean() -> None:
    result = run("flavors", "lint", str(EXAMPLES / "flavors"))
    assert result.exit_code == 0, result.output
    # Alternatives (cpu-small and cpu-large) are reported, never failed on.
    assert "cpu-large, cpu-small: resources.limits.cpu: conflict: " in result.stdout


@pytest.mark.slow
def test_the_installed_binary_lints_the_example_library() -> None:
    result = subprocess.run(
        [FUNCTION_ASYA, "flavors", "lint", str(EXAMPLES / "flavors")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "cpu-large, cpu-small: resources.limits.cpu: conflict: " in result.stdout


def test_an_invalid_value_and_a_conflicting_pair_name_flavor_and_path(tmp_path: Path) -> None:
    library = write(
        tmp_path / "library.yaml",
        flavor("fast", {"scaling": {"maxReplicaCount": "lots", "minReplicaCount": 2}}),
        flavor("slow", {"scaling": {"minReplicaCount": 0}}),
    )
    code, findings = lint_json(library)
    assert code == 1
    assert {
        "flavor": "fast",
        "path": "scaling.maxReplicaCount",
        "severity": "error",
        "message": "invalid flavor data: scaling.maxReplicaCount: Input should be a valid integer "
        '(from flavor "fast")',
    } in findings
    assert {
        "flavor": "fast, slow",
        "path": "scaling.minReplicaCount",
        "severity": "conflict",
        "message": 'flavor merge conflict: flavors "fast" and "slow" conflict on '
        "scaling.minReplicaCount",
    } in findings


KINDS = [
    pytest.param(
        flavor("evil", {"env": [{"name": "ASYA_HANDLER", "value": "x"}]}),
        "error",
        "",
        '"ASYA_HANDLER" is set by the platform',
        id="a platform env name",
    ),
    pytest.param(
        flavor("GPU_A100", {"replicas": 2}),
        "error",
        "",
        "'GPU_A100' is not a valid object name",
        id="a name that can never be an object's",
    ),
    pytest.param(
        flavor("listy", [1, 2]), "error", "", "data must be a map, got a list", id="data not a map"
    ),
    pytest.param(
        flavor("sneaky", {"actor": "other", "replicas": 2}),
        "warning",
        "actor",
        "a flavor cannot set this",
        id="an infrastructure field",
    ),
    pytest.param(
        flavor("gpu", {"replicas": 2}, labels={"asya.sh/flavor": "gpu-old"}),
        "warning",
        "",
        'label asya.sh/flavor is "gpu-old", not the flavor\'s name',
        id="a label that differs from the name",
    ),
    pytest.param(
        flavor(
            "old",
            {"replicas": 2},
            labels={"asya.sh/flavor": "old", "asya.sh/deprecated": "true"},
            annotations={"asya.sh/deprecation-message": "use new"},
        ),
        "warning",
        "",
        "deprecated: use new",
        id="a deprecated flavor",
    ),
    pytest.param(flavor("empty", None), "warning", "", "the flavor has no data", id="no data"),
]


@pytest.mark.parametrize(("doc", "severity", "path", "message"), KINDS)
def test_each_finding_kind(
    tmp_path: Path, doc: dict[str, Any], severity: str, path: str, message: str
) -> None:
    code, findings = lint_json(write(tmp_path / "f.yaml", doc))
    [found] = [f for f in findings if f["severity"] == severity]
    assert found["flavor"] == doc["metadata"]["name"]
    assert (found["path"], message in found["message"]) == (path, True), found
    assert code == (1 if severity == "error" else 0)
    if severity == "warning":
        assert run("flavors", "lint", "--strict", str(tmp_path / "f.yaml")).exit_code == 1


def actor(name: str, flavors: list[str], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "asya.sh/v1alpha1",
        "kind": "AsyncActor",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {"actor": name, "image": "a:1", "handler": "h.f", "flavors": flavors, **spec},
    }


def test_actors_whose_flavors_conflict_are_reported_and_settled_ones_are_not(
    tmp_path: Path,
) -> None:
    actors = write(
        tmp_path / "actors.yaml",
        actor("clash", ["flavor-a", "flavor-b"]),
        actor("settled", ["flavor-a", "flavor-b"], scaling={"minReplicaCount": 3}),
        actor("lost", ["gpu-h200"]),
        actor("broken", [], replicas=0),
    )
    code, findings = lint_json(str(EXAMPLES / "flavors"), "--actors", actors)
    assert code == 1
    by_actor = {f["actor"]: f for f in findings if "actor" in f}
    assert set(by_actor) == {"clash", "lost", "broken"}
    assert by_actor["clash"]["path"] == "scaling.minReplicaCount"
    assert by_actor["clash"]["message"].startswith("flavor merge conflict: ")
    assert by_actor["lost"]["message"].startswith("Waiting for 1 flavor: gpu-h200")
    assert by_actor["broken"]["path"] == "replicas"


def test_lint_reads_configmap_flavors_and_pairs_only_what_one_actor_could_list() -> None:
    code, findings = lint_json(str(EXAMPLES / "team-flavors"))
    assert code == 0
    # team-secrets exists in ml and in production: never listed together.
    assert [f for f in findings if f["severity"] == "conflict"] == []


def test_usage_errors_exit_2() -> None:
    assert run("flavors", "lint").exit_code == 2
    assert run("flavors", "lint", "/nonexistent").exit_code == 2


def test_explain_names_the_source_of_every_leaf() -> None:
    result = run(
        "explain", str(EXAMPLES / "flavored" / "actor-wins.yaml"), "-e", str(EXAMPLES / "flavors")
    )
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "    maxReplicaCount: 20  # actor\n" in text
    assert "    queueLength: 10  # flavor high-throughput\n" in text
    assert "    enabled: true  # default\n" in text
    assert "          envVar: OPENAI_API_KEY  # flavor openai-secrets\n" in text
    # Comments aside, it is the resolved spec.
    assert yaml.safe_load(text)["spec"]["scaling"]["maxReplicaCount"] == 20
    leaves = [line for line in text.splitlines()[1:] if not line.rstrip().endswith(":")]
    assert all("  # " in line for line in leaves)


def test_explain_json_gives_every_path_its_source() -> None:
    result = run(
        "explain",
        str(EXAMPLES / "flavored" / "actor-wins.yaml"),
        "-e",
        str(EXAMPLES / "flavors"),
        "-o",
        "json",
    )
    sources = json.loads(result.stdout)["sources"]
    assert sources["scaling.maxReplicaCount"] == "actor"
    assert sources["scaling.minReplicaCount"] == "flavor:high-throughput"
    assert sources["imagePullPolicy"] == "default"
    assert sources["env[MODEL_PATH].value"] == "actor"
    assert sources["resiliency.rules[1].errors[0]"] == "flavor:aggressive-retries"
    assert sources["secretRefs[openai-creds].keys[OPENAI_API_KEY].envVar"] == (
        "flavor:openai-secrets"
    )


def result_args() -> tuple[str, ...]:
    return (
        "explain",
        str(EXAMPLES / "flavored" / "team-flavor.yaml"),
        "-e",
        str(EXAMPLES / "flavors"),
        "-e",
        str(EXAMPLES / "team-flavors"),
    )


def test_explain_names_a_namespace_flavor_by_its_configmap() -> None:
    result = run(*result_args())
    assert result.exit_code == 0, result.output
    assert "  # flavor team-secrets in ConfigMap ml/team-secrets\n" in result.stdout
    assert "  # flavor gpu-a100\n" in result.stdout
    sources = json.loads(run(*result_args(), "-o", "json").stdout)["sources"]
    # The JSON names the ConfigMap as the text does.
    assert sources["env[MODEL_REGISTRY_URL].value"] == (
        "flavor:team-secrets in ConfigMap ml/team-secrets"
    )
    assert sources["tolerations[0].key"] == "flavor:gpu-a100"


def test_explain_prints_the_functions_error_for_a_failing_resolution() -> None:
    result = run(
        "explain", str(EXAMPLES / "flavored" / "conflict.yaml"), "-e", str(EXAMPLES / "flavors")
    )
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        'function-asya: error: flavor merge conflict: flavors "flavor-a" and "flavor-b" '
        "conflict on scaling.minReplicaCount"
    )


def test_explain_names_each_kind_of_layer_from_its_fields() -> None:
    layers = [DEFAULT, ACTOR, Layer.of_flavor("gpu"), Layer.of_flavor("keys", "ConfigMap ml/keys")]
    assert [explain.source_label(layer) for layer in layers] == [
        "default",
        "actor",
        "flavor:gpu",
        "flavor:keys in ConfigMap ml/keys",
    ]
    # The error messages' names for the same layers.
    assert [str(layer) for layer in layers] == [
        "defaults",
        "the actor's spec",
        'flavor "gpu"',
        'flavor "keys" in ConfigMap ml/keys',
    ]


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [("v1", "ConfigMap"), ("asya.sh/v1beta9", "AsyncActor")],
    ids=["another kind", "an unknown version"],
)
def test_explain_refuses_what_is_not_an_asyncactor(
    tmp_path: Path, api_version: str, kind: str
) -> None:
    body = actor("x", []) | {"apiVersion": api_version, "kind": kind}
    result = run("explain", write(tmp_path / "x.yaml", body), "-e", str(EXAMPLES / "flavors"))
    assert result.exit_code == 1
    assert f"{kind} x ({api_version}) is not an actor" in result.stderr
