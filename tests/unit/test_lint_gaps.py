"""What `flavors lint` once let through: each gap a newcomer found, now reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from function.errors import FlavorError
from function.resolve import sources
from tests.unit.test_tools import flavor, lint_json, run, write


def config_map(
    name: str, data: dict[str, Any] | None, label: str | None = None, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": "ml",
            "labels": {"asya.sh/flavor": label if label is not None else name},
        },
        **extra,
    }
    if data is not None:
        body["data"] = data
    return body


def test_a_config_map_labelled_with_another_name_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path / "cm.yaml", config_map("team-gpu", {"flavor.yaml": "replicas: 2\n"}, "gpu")
    )
    code, findings = lint_json(path)
    assert code == 1
    [found] = findings
    assert found["severity"] == "error"
    assert found["message"] == (
        'label asya.sh/flavor is "gpu", not the ConfigMap\'s name "team-gpu": the function '
        'never finds it, and an actor listing "team-gpu" waits for it'
    )


def test_a_config_map_without_flavor_yaml_is_refused_naming_the_key(tmp_path: Path) -> None:
    typo = config_map("typo", {"flavor.yml": "replicas: 2\n"})
    binary = config_map("binary", None, binaryData={"flavor.yaml": "cmVwbGljYXM6IDI="})
    code, findings = lint_json(write(tmp_path / "cm.yaml", typo, binary))
    assert code == 1
    messages = {f["flavor"]: f["message"] for f in findings}
    assert messages["typo"] == (
        'invalid flavor data: flavor "typo": ConfigMap ml/typo has no flavor.yaml key (its data '
        "has flavor.yml): put the flavor's spec fields, as YAML, under data.flavor.yaml"
    )
    assert "it has no data; binaryData is not read" in messages["binary"]


def test_the_function_refuses_a_config_map_flavor_without_flavor_yaml_too() -> None:
    with pytest.raises(FlavorError, match=r"has no flavor\.yaml key \(its data has flavor\.yml\)"):
        sources.from_config_map("typo", "ml", config_map("typo", {"flavor.yml": "x: 1"}))


def test_a_flavor_defined_twice_is_an_error_and_its_conflicts_print_once(tmp_path: Path) -> None:
    first = write(tmp_path / "a.yaml", flavor("gpu", {"replicas": 2}))
    second = write(tmp_path / "b.yaml", flavor("gpu", {"replicas": 3}))
    other = write(tmp_path / "c.yaml", flavor("big", {"replicas": 4}))
    code, findings = lint_json(first, second, other)
    assert code == 1
    [twice] = [f for f in findings if f["severity"] == "error"]
    assert (
        twice["message"]
        == f"EnvironmentConfig gpu is defined 2 times, in {first}, {second}: keep one"
    )
    conflicts = [f for f in findings if f["severity"] == "conflict"]
    assert len(conflicts) == 1


def test_every_problem_of_a_flavor_is_reported_not_only_the_first(tmp_path: Path) -> None:
    both = flavor(
        "platform-env",
        {
            "volumes": [{"name": "tmp", "emptyDir": {}}],
            "env": [{"name": "ASYA_HANDLER", "value": "x"}],
        },
    )
    code, findings = lint_json(write(tmp_path / "f.yaml", both))
    assert code == 1
    [found] = findings
    assert "volumes[tmp]" in found["message"]
    assert "ASYA_HANDLER" in found["message"]


def test_a_path_without_flavors_fails(tmp_path: Path) -> None:
    path = write(
        tmp_path / "nothing.yaml",
        # Not a flavor, and no mistake either: kubectl prints kube-root-ca.crt with flavors.
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kube-root-ca.crt"}},
    )
    result = run("flavors", "lint", path)
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"function-asya: error: no flavors in {path}: no EnvironmentConfig"
    )


def test_a_missing_label_is_said_in_words(tmp_path: Path) -> None:
    unlabelled = flavor("gpu", {"replicas": 2}, labels={})
    code, findings = lint_json(write(tmp_path / "f.yaml", unlabelled))
    assert code == 0
    [found] = findings
    assert found["message"] == "no label asya.sh/flavor, not the flavor's name"
    assert "None" not in yaml.safe_dump(findings)
