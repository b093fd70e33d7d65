"""Namespace flavors: which object defines each flavor, and how messages name it (SPEC §5.6)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest

from function.codec import yaml_text
from function.errors import FlavorError, MergeConflictError, WaitingForFlavorsError
from function.resolve import requirements
from function.resolve import sources as flavor_sources
from tests import support
from tests.unit.test_flavors import flavor, resolve

NS = "ml"


def environment_config(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": name, "labels": {"asya.sh/flavor": name}},
        "data": data,
    }


def config_map(
    name: str, text: str, *, namespace: str = NS, label: str | None = None, **metadata: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"asya.sh/flavor": name if label is None else label},
            **metadata,
        },
        "data": {"flavor.yaml": text},
    }


BOMB = support.yaml_bomb()


@dataclass(frozen=True)
class SourceCase:
    """What Crossplane found for one flavor `keys`, and what it means."""

    reason: str
    environment_configs: list[dict[str, Any]] = field(default_factory=list)
    config_maps: list[dict[str, Any]] = field(default_factory=list)
    data: dict[str, Any] | None = None  # the flavor's data; None when it is refused
    error: str = ""


SOURCES = [
    SourceCase(
        reason="an EnvironmentConfig alone",
        environment_configs=[environment_config("keys", {"replicas": 2})],
        data={"replicas": 2},
    ),
    SourceCase(
        reason="a labelled ConfigMap alone",
        config_maps=[config_map("keys", "replicas: 3\n")],
        data={"replicas": 3},
    ),
    SourceCase(
        reason="a ConfigMap without the label is not a flavor",
        config_maps=[config_map("keys", "replicas: 3\n", label="")],
        error="Waiting for 1 flavor: keys",
    ),
    SourceCase(
        reason="a ConfigMap labelled for another flavor is not this one",
        config_maps=[config_map("keys", "replicas: 3\n", label="other")],
        error="Waiting for 1 flavor: keys",
    ),
    SourceCase(
        reason="a ConfigMap of another namespace is never used",
        config_maps=[config_map("keys", "replicas: 3\n", namespace="elsewhere")],
        error="Waiting for 1 flavor: keys",
    ),
    SourceCase(
        reason="both sources define it",
        environment_configs=[environment_config("keys", {})],
        config_maps=[config_map("keys", "{}")],
        error='flavor "keys" is defined both as EnvironmentConfig keys and as ConfigMap ml/keys',
    ),
    SourceCase(
        reason="flavor.yaml that is not a map",
        config_maps=[config_map("keys", "- replicas: 3\n")],
        error="ConfigMap ml/keys: flavor.yaml must be a map of AsyncActor spec fields",
    ),
    SourceCase(
        reason="flavor.yaml that is not YAML",
        config_maps=[config_map("keys", "replicas: [3\n")],
        error="ConfigMap ml/keys: flavor.yaml is not YAML",
    ),
    SourceCase(
        reason="an empty flavor.yaml contributes nothing",
        config_maps=[config_map("keys", "")],
        data={},
    ),
    SourceCase(
        reason="a timestamp stays the string it is, as go-yaml v2 reads it",
        config_maps=[config_map("keys", "env: [{name: SINCE, value: 2024-01-01}]\n")],
        data={"env": [{"name": "SINCE", "value": "2024-01-01"}]},
    ),
    SourceCase(
        reason="1:30 stays a string, as go-yaml v2 reads it (YAML 1.1's base 60 made it 90)",
        config_maps=[config_map("keys", "env: [{name: WINDOW, value: 1:30}]\n")],
        data={"env": [{"name": "WINDOW", "value": "1:30"}]},
    ),
    SourceCase(
        reason="the numbers and booleans go-yaml v2 reads: 1e3, 0o17, 1_000, y and n",
        config_maps=[
            config_map(
                "keys",
                "resources: {limits: {cpu: 1e3}}\nreplicas: 0o17\n"
                "scaling: {maxReplicaCount: 1_000, enabled: n, advanced: "
                "{restoreToOriginalReplicaCount: y}}\n",
            )
        ],
        data={
            "resources": {"limits": {"cpu": 1000.0}},
            "replicas": 15,
            "scaling": {
                "maxReplicaCount": 1000,
                "enabled": False,
                "advanced": {"restoreToOriginalReplicaCount": True},
            },
        },
    ),
    SourceCase(
        reason="integers as Go reads them: 0X1F, 0777, 0b-1 (0X1F crashed the reader)",
        config_maps=[config_map("keys", "nodeSelector: {a: 0X1F, b: 0777, c: 0b-1}\n")],
        data={"nodeSelector": {"a": 31, "b": 511, "c": -1}},
    ),
    SourceCase(
        reason="a number past its range is the string Go keeps",
        config_maps=[config_map("keys", "nodeSelector: {a: 1e400, b: 0xFFFFFFFFFFFFFFFFFFFF}\n")],
        data={"nodeSelector": {"a": "1e400", "b": "0xFFFFFFFFFFFFFFFFFFFF"}},
    ),
    SourceCase(
        reason="a float tag on YAML 1.1's base 60, which Go does not read (it made 90)",
        config_maps=[config_map("keys", "replicas: !!float 1:30\n")],
        error="ConfigMap ml/keys: flavor.yaml is not YAML",
    ),
    SourceCase(
        reason="nesting deeper than go-yaml v2 reads (30,000 levels crashed the process)",
        config_maps=[config_map("keys", "resources: " + "[" * 30_000 + "]" * 30_000 + "\n")],
        error="ConfigMap ml/keys: flavor.yaml is not YAML: the document nests deeper than 10000",
    ),
    SourceCase(
        reason="an empty float (an IndexError escaped before)",
        config_maps=[config_map("keys", "replicas: !!float\n")],
        error="ConfigMap ml/keys: flavor.yaml is not YAML",
    ),
    SourceCase(
        reason="<< as a value is the string Go reads",
        config_maps=[config_map("keys", "nodeSelector: {arrow: <<}\n")],
        data={"nodeSelector": {"arrow": "<<"}},
    ),
    SourceCase(
        reason="a value its explicit tag cannot hold",
        config_maps=[config_map("keys", "replicas: !!float abc\n")],
        error="ConfigMap ml/keys: flavor.yaml is not YAML",
    ),
    SourceCase(
        reason="bytes are no JSON value",
        config_maps=[config_map("keys", "env: [{name: KEY, value: !!binary aGk=}]\n")],
        error="flavor.yaml: env.0.value: not a value JSON holds",
    ),
    SourceCase(
        reason="a map key that is no string is no JSON",
        config_maps=[config_map("keys", "resources: {limits: {1: x}}\n")],
        error="flavor.yaml: resources.limits.1: not a value JSON holds",
    ),
    SourceCase(
        reason="aliases that expand a small text into billions of values (a YAML bomb)",
        config_maps=[config_map("keys", BOMB)],
        error="ConfigMap ml/keys: flavor.yaml: the document contains excessive aliasing",
    ),
    SourceCase(
        reason="an alias inside the value its anchor names",
        config_maps=[config_map("keys", "nodeSelector: &s {inner: *s}\n")],
        error="ConfigMap ml/keys: flavor.yaml: an alias stands inside the value its anchor names",
    ),
    SourceCase(
        reason="aliases that repeat a map a few times are read as go-yaml v2 reads them",
        config_maps=[
            config_map(
                "keys",
                "resources: &r {limits: {cpu: '1'}}\n"
                "sidecar: {resources: *r}\n"
                "stateProxy: [{name: s, mount: {path: /s}, connector: {image: c, resources: *r}}]\n",
            )
        ],
        data={
            "resources": {"limits": {"cpu": "1"}},
            "sidecar": {"resources": {"limits": {"cpu": "1"}}},
            "stateProxy": [
                {
                    "name": "s",
                    "mount": {"path": "/s"},
                    "connector": {"image": "c", "resources": {"limits": {"cpu": "1"}}},
                }
            ],
        },
    ),
    SourceCase(
        reason="an infinite number is no JSON",
        config_maps=[config_map("keys", "replicas: .inf\n")],
        error="flavor.yaml: replicas: not a value JSON holds",
    ),
]


@pytest.mark.parametrize("case", SOURCES, ids=[c.reason for c in SOURCES])
def test_which_object_defines_a_flavor(case: SourceCase) -> None:
    wanted = requirements.for_flavors(["keys"], NS)
    fetched = {
        requirements.key_for("keys"): case.environment_configs,
        requirements.config_map_key_for("keys"): case.config_maps,
    }
    if case.data is None:
        with pytest.raises(FlavorError) as raised:
            flavor_sources.collect(wanted, fetched, NS)
        assert case.error in str(raised.value), case.reason
        if case.error.startswith("Waiting"):
            assert isinstance(raised.value, WaitingForFlavorsError)
        return
    [flavor] = flavor_sources.collect(wanted, fetched, NS)
    assert flavor.data == case.data, case.reason


def test_without_namespace_flavors_nothing_changes() -> None:
    wanted = requirements.for_flavors(["keys"])
    assert [(r.kind, r.namespace) for r in wanted] == [("EnvironmentConfig", "")]
    with pytest.raises(WaitingForFlavorsError) as raised:
        flavor_sources.collect(wanted, {"flavor-keys": []}, None)
    assert str(raised.value) == "Waiting for 1 flavor EnvironmentConfigs: keys"


def test_a_namespace_flavor_is_named_with_its_configmap_in_every_message() -> None:
    team = flavor_sources.from_config_map(
        "team-keys",
        NS,
        config_map(
            "team-keys",
            "scaling: {minReplicaCount: 2}\nreplicas: lots\nactor: nope\n",
            annotations={"asya.sh/deprecated": "true"},
        ),
    )
    assert team.label == '"team-keys" in ConfigMap ml/team-keys'
    with pytest.raises(FlavorError) as invalid:
        resolve({}, team)
    assert str(invalid.value).endswith('(from flavor "team-keys" in ConfigMap ml/team-keys)')
    clean = flavor_sources.from_config_map(
        "team-keys", NS, config_map("team-keys", "scaling: {minReplicaCount: 2}\nactor: nope\n")
    )
    with pytest.raises(MergeConflictError) as conflict:
        resolve({}, flavor("cluster", {"scaling": {"minReplicaCount": 1}}), clean)
    assert str(conflict.value) == (
        'flavor merge conflict: flavors "cluster" and "team-keys" in ConfigMap ml/team-keys '
        "conflict on scaling.minReplicaCount"
    )
    warnings = resolve({}, dataclasses.replace(team, data=clean.data)).warnings
    assert warnings == (
        'flavor "team-keys" in ConfigMap ml/team-keys is deprecated: no reason given',
        'flavor "team-keys" in ConfigMap ml/team-keys sets actor, which a flavor cannot set; ignored',
    )


def test_a_map_a_yaml_anchor_puts_in_two_places_is_two_maps_once_resolved() -> None:
    shared = flavor_sources.from_config_map(
        "keys",
        NS,
        config_map(
            "keys",
            "resources: &r {limits: {cpu: '1'}}\nsidecar: {resources: *r}\n",
        ),
    )
    resolved = resolve({"resources": {"limits": {"memory": "1Gi"}}}, shared)
    assert resolved.data["resources"] == {"limits": {"cpu": "1", "memory": "1Gi"}}
    assert resolved.data["sidecar"]["resources"] == {"limits": {"cpu": "1"}}


@pytest.mark.parametrize(
    ("anchored", "aliases"),
    [
        ("{" + ", ".join(f"k{i}: v{i}" for i in range(10)) + "}", 200),
        ("x", 2000),
        ("[" + ", ".join(str(i) for i in range(100)) + "]", 150),
    ],
    ids=["a map of ten, 200 times", "a string, 2000 times", "a list of 100, 150 times (98 %)"],
)
def test_aliases_go_yaml_v2_takes_are_read(anchored: str, aliases: int) -> None:
    # Go counts each alias once itself: 95 %, 50 % and 98 % of these come through aliases.
    text = f"base: &a {anchored}\nmany: [{', '.join(['*a'] * aliases)}]\n"
    assert len(yaml_text.load(text)["many"]) == aliases
