"""Layers: function defaults < flavors (in order) < the actor's own spec."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from function.errors import FlavorError, InputError, MergeConflictError, SpecError
from function.models import input as fn_input
from function.models import spec as spec_model
from function.models import xr as xr_model
from function.models.spec import as_data
from function.resolve import layers, sources
from function.validate import gate


def composite(**spec: Any) -> xr_model.Composite:
    body = {
        "apiVersion": "asya.sh/v1alpha1",
        "kind": "XAsyncActor",
        "metadata": {"name": "x", "labels": {"crossplane.io/claim-namespace": "ns"}},
        "spec": {"actor": "echo", "image": "echo:1", "handler": "h.f", **spec},
    }
    return xr_model.parse(body)


def flavor(name: str, data: dict[str, Any], **metadata: Any) -> sources.Flavor:
    return sources.from_environment_config(name, {"metadata": metadata, "data": data})


def resolve(spec: dict[str, Any], *fetched: sources.Flavor) -> layers.Resolution:
    """Resolve and check, at the resolve boundary the function and the tools share."""
    names = [flavor.name for flavor in fetched]
    return gate.admit(
        composite(**spec, flavors=names) if names else composite(**spec),
        fn_input.parse({}),
        layers.merge_flavors(list(fetched)),
    )


def test_defaults_fill_in_what_nobody_set() -> None:
    data = as_data(resolve({}).spec)
    assert data["imagePullPolicy"] == "IfNotPresent"
    assert data["pythonExecutable"] == "python3"
    assert data["replicas"] == 1
    assert data["scaling"] == {
        "enabled": True,
        "minReplicaCount": 0,
        "maxReplicaCount": 10,
        "queueLength": 5,
        "pollingInterval": 30,
        "cooldownPeriod": 300,
    }


def test_precedence_flavor_over_default() -> None:
    data = as_data(
        resolve({}, flavor("pull-always", {"imagePullPolicy": "Always", "replicas": 3})).spec
    )
    assert data["imagePullPolicy"] == "Always"
    assert data["replicas"] == 3


def test_precedence_actor_over_flavor_leaf_by_leaf() -> None:
    data = as_data(
        resolve(
            {"scaling": {"maxReplicaCount": 20}},
            flavor(
                "high-throughput",
                {"scaling": {"minReplicaCount": 5, "maxReplicaCount": 50, "queueLength": 10}},
            ),
        ).spec
    )
    assert data["scaling"]["maxReplicaCount"] == 20
    assert data["scaling"]["minReplicaCount"] == 5
    assert data["scaling"]["queueLength"] == 10
    assert data["scaling"]["cooldownPeriod"] == 300  # still the default


def test_precedence_actor_over_flavor_never_conflicts() -> None:
    data = as_data(
        resolve(
            {"image": "mine:2", "env": [{"name": "MODEL_PATH", "value": "/actor"}]},
            flavor(
                "one", {"image": "theirs:1", "env": [{"name": "MODEL_PATH", "value": "/flavor"}]}
            ),
        ).spec
    )
    assert data["image"] == "mine:2"
    assert data["env"] == [{"name": "MODEL_PATH", "value": "/actor"}]


def test_precedence_actor_rules_before_flavor_rules() -> None:
    data = as_data(
        resolve(
            {
                "resiliency": {
                    "rules": [{"errors": ["RateLimitError"], "policy": "slow"}],
                    "policies": {"slow": {"maxAttempts": 2}},
                }
            },
            flavor(
                "retries",
                {
                    "resiliency": {
                        "rules": [{"errors": ["TimeoutError"], "policy": "fast"}],
                        "policies": {"fast": {"maxAttempts": 5}},
                    }
                },
            ),
        ).spec
    )
    assert [r["policy"] for r in data["resiliency"]["rules"]] == ["slow", "fast"]


def test_a_flavor_that_disables_scaling_is_honoured() -> None:
    resolution = resolve({}, flavor("fixed", {"scaling": {"enabled": False}, "replicas": 3}))
    assert resolution.spec.scaling.enabled is False
    assert resolution.spec.replicas == 3


def test_state_proxy_items_get_their_defaults() -> None:
    data = as_data(
        resolve(
            {},
            flavor(
                "cache",
                {
                    "stateProxy": [
                        {
                            "name": "cache",
                            "mount": {"path": "/state/cache"},
                            "connector": {"image": "redis-proxy:1"},
                        }
                    ]
                },
            ),
        ).spec
    )
    [item] = data["stateProxy"]
    assert item["writeMode"] == "buffered"
    assert item["connector"]["imagePullPolicy"] == "IfNotPresent"


def test_the_seeds_conflict_is_reported_exactly() -> None:
    with pytest.raises(MergeConflictError) as raised:
        resolve(
            {},
            flavor("flavor-a", {"scaling": {"minReplicaCount": 1}}),
            flavor("flavor-b", {"scaling": {"minReplicaCount": 5}}),
        )
    assert str(raised.value) == (
        'flavor merge conflict: flavors "flavor-a" and "flavor-b" conflict on scaling.minReplicaCount'
    )


def test_infrastructure_and_machinery_in_a_flavor_are_ignored_with_warnings() -> None:
    resolution = resolve(
        {},
        flavor(
            "sneaky",
            {"actor": "other", "flavors": ["x"], "compositionRef": {"name": "x"}, "replicas": 2},
        ),
    )
    assert as_data(resolution.spec)["actor"] == "echo"
    assert "compositionRef" not in as_data(resolution.spec)
    assert as_data(resolution.spec)["replicas"] == 2
    assert sorted(resolution.warnings) == sorted(
        [
            'flavor "sneaky" sets actor, which a flavor cannot set; ignored',
            'flavor "sneaky" sets flavors, which a flavor cannot set; ignored',
            'flavor "sneaky" sets compositionRef, which a flavor cannot set; ignored',
        ]
    )


def test_crossplane_machinery_in_the_xr_spec_is_not_an_actor_setting() -> None:
    data = as_data(
        resolve(
            {
                "claimRef": {"name": "x"},
                "resourceRefs": [],
                "compositionRevisionRef": {"name": "r"},
                "crossplane": {"compositionRef": {"name": "c"}},
            }
        ).spec
    )
    for key in ("claimRef", "resourceRefs", "compositionRevisionRef", "crossplane"):
        assert key not in data


def test_a_deprecated_flavor_applies_with_a_warning() -> None:
    resolution = resolve(
        {},
        flavor(
            "gpu-t4",
            {"replicas": 2},
            labels={"asya.sh/deprecated": "true"},
            annotations={"asya.sh/deprecation-message": "Use gpu-a100 instead"},
        ),
    )
    assert as_data(resolution.spec)["replicas"] == 2
    assert resolution.warnings == ('flavor "gpu-t4" is deprecated: Use gpu-a100 instead',)


def test_a_flavor_without_data_contributes_nothing() -> None:
    resolution = layers.resolve(
        composite(flavors=["empty"]), [sources.from_environment_config("empty", {"metadata": {}})]
    )
    assert as_data(resolution.spec) == as_data(resolve({}).spec) | {"flavors": ["empty"]}


def test_a_flavor_whose_data_is_not_a_map_is_an_error_naming_it() -> None:
    with pytest.raises(FlavorError, match='flavor "broken": data must be a map, got a list'):
        sources.from_environment_config("broken", {"data": [1, 2]})


def test_an_invalid_value_names_its_path_and_the_flavor_that_set_it() -> None:
    with pytest.raises(FlavorError) as raised:
        resolve({}, flavor("fast", {"scaling": {"maxReplicaCount": "lots"}}))
    assert str(raised.value) == (
        "invalid flavor data: scaling.maxReplicaCount: Input should be a valid integer "
        '(from flavor "fast")'
    )


def test_an_invalid_list_item_is_named_by_its_identity() -> None:
    with pytest.raises(FlavorError) as raised:
        resolve(
            {},
            flavor("fine", {"replicas": 2}),
            flavor(
                "bad-proxy",
                {
                    "stateProxy": [
                        {
                            "name": "cache",
                            "mount": {"path": "relative"},
                            "connector": {"image": "x"},
                        }
                    ]
                },
            ),
        )
    assert str(raised.value).startswith("invalid flavor data: stateProxy[cache].mount.path: ")
    assert str(raised.value).endswith('(from flavor "bad-proxy")')


def test_an_unknown_field_in_a_flavor_is_named() -> None:
    with pytest.raises(FlavorError, match=r'scalling: unknown field \(from flavor "typo"\)'):
        resolve({}, flavor("typo", {"scalling": {"enabled": False}}))


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"volume_mounts": [{"name": "x", "mountPath": "/x"}]}, "volume_mounts"),
        ({"node_selector": {"pool": "gpu"}}, "node_selector"),
        ({"scaling": {"polling_interval": 5}}, "scaling.polling_interval"),
    ],
)
def test_a_field_spelled_otherwise_than_in_the_xrd_is_unknown(
    data: dict[str, Any], path: str
) -> None:
    # The merge rules are keyed on the XRD's camelCase names: a snake_case key
    # would escape them (two flavors' volume_mounts would not merge by mountPath).
    with pytest.raises(FlavorError, match=rf'{path}: unknown field \(from flavor "snake"\)'):
        resolve({}, flavor("snake", data))


def test_the_resolved_data_is_what_the_validated_spec_holds() -> None:
    layers = [
        flavor("compute", {"resources": {"limits": {"cpu": "1"}}, "env": [{"name": "A"}]}),
        flavor(
            "scale",
            {
                "scaling": {"maxReplicaCount": 4},
                "sidecars": [{"name": "s", "image": "s:1", "workingDir": "/w"}],
            },
        ),
    ]
    resolution = resolve({"env": [{"name": "B", "value": "b"}]}, *layers)
    assert resolution.data == as_data(resolution.spec)


def test_reserved_container_names_are_rejected() -> None:
    with pytest.raises(FlavorError, match=r"sidecars\[asya-proxy\].name: .*reserved"):
        resolve({}, flavor("x-side", {"sidecars": [{"name": "asya-proxy", "image": "p:1"}]}))


@pytest.mark.parametrize("field", ["sidecars", "initContainers"])
def test_a_port_named_like_the_sidecars_metrics_port_is_refused(field: str) -> None:
    # The PodMonitor scrapes the port by name: another container's of that name could be
    # the one it selects (the API server only warns of the duplicate).
    added = {
        field: [
            {
                "name": "exporter",
                "image": "e:1",
                "ports": [
                    {"name": "http", "containerPort": 80},
                    {"name": "metrics", "containerPort": 9100},
                ],
            }
        ]
    }
    with pytest.raises(FlavorError) as raised:
        resolve({}, flavor("exporter", added))
    assert str(raised.value) == (
        f"invalid flavor data: {field}[exporter].ports[1].name: the port name 'metrics' is the "
        "Asya sidecar's metrics port, which its PodMonitor scrapes by name; choose another name "
        '(from flavor "exporter")'
    )


def test_the_metrics_port_name_is_free_while_the_sidecar_serves_no_metrics() -> None:
    added = {
        "metrics": {"enabled": False},
        "sidecars": [
            {
                "name": "exporter",
                "image": "e:1",
                "ports": [{"name": "metrics", "containerPort": 9100}],
            }
        ],
    }
    resolution = resolve({}, flavor("exporter", added))
    assert resolution.data["sidecars"][0]["ports"][0]["name"] == "metrics"


def test_an_env_var_set_both_in_env_and_secret_refs_names_both_sources() -> None:
    with pytest.raises(FlavorError) as raised:
        resolve(
            {"env": [{"name": "OPENAI_API_KEY", "value": "inline"}]},
            flavor(
                "openai-secrets",
                {
                    "secretRefs": [
                        {
                            "secretName": "openai-creds",
                            "keys": [{"key": "api-key", "envVar": "OPENAI_API_KEY"}],
                        }
                    ]
                },
            ),
        )
    assert str(raised.value) == (
        'invalid env: "OPENAI_API_KEY" is defined twice, in env (from the actor\'s spec) and in '
        'secretRefs[openai-creds] (from flavor "openai-secrets")'
    )


def test_an_env_var_from_two_secret_refs_is_an_error() -> None:
    with pytest.raises(FlavorError, match='"TOKEN" is defined twice'):
        resolve(
            {},
            flavor(
                "one",
                {"secretRefs": [{"secretName": "s1", "keys": [{"key": "k", "envVar": "TOKEN"}]}]},
            ),
            flavor(
                "two",
                {"secretRefs": [{"secretName": "s2", "keys": [{"key": "k", "envVar": "TOKEN"}]}]},
            ),
        )


@pytest.mark.parametrize("name", ["ASYA_HANDLER", "ASYA_SOCKET_DIR"])
def test_platform_env_names_cannot_be_set(name: str) -> None:
    with pytest.raises(FlavorError) as raised:
        resolve({}, flavor("evil", {"env": [{"name": name, "value": "x"}]}))
    assert str(raised.value) == (
        f'invalid env: "{name}" is set by the platform and cannot be set in env (from flavor "evil")'
    )


def test_the_actors_own_invalid_value_is_an_actor_error() -> None:
    with pytest.raises(
        SpecError, match=r"invalid actor spec: replicas: .*\(from the actor's spec\)"
    ):
        resolve({"replicas": 0})


@pytest.mark.parametrize(
    ("flavor_names", "message"),
    [
        pytest.param(["aaa", "aaa"], "listed more than once: aaa", id="a flavor listed twice"),
        pytest.param(
            [f"flavor-{n}" for n in range(9)], "at most 8 flavors, got 9", id="more than eight"
        ),
        pytest.param(["ab"], "3 or more characters: ab", id="a name shorter than the XRD allows"),
        pytest.param("cpu", "must be a list of flavor names", id="a string, not a list"),
    ],
)
def test_bad_flavor_lists_are_rejected(flavor_names: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        composite(flavors=flavor_names)


def test_the_namespace_comes_from_the_claim_label_claim_ref_or_metadata() -> None:
    base = {"spec": {"actor": "a"}, "metadata": {"name": "x"}}
    assert xr_model.parse(base | {"metadata": {"namespace": "direct"}}).namespace == "direct"
    assert (
        xr_model.parse(base | {"spec": {"claimRef": {"namespace": "claim"}}}).namespace == "claim"
    )
    with pytest.raises(InputError, match="cannot find the actor's namespace"):
        xr_model.parse(base)


@pytest.mark.parametrize("name", ["x" * 64, "-x", "a b"])
def test_an_xr_name_no_label_can_hold_is_refused(name: str) -> None:
    # Crossplane labels every composed resource with it (crossplane.io/composite).
    body = {"spec": {"actor": "a"}, "metadata": {"name": name, "namespace": "team"}}
    with pytest.raises(InputError, match=r"metadata\.name: .*\(crossplane\.io/composite\)"):
        xr_model.parse(body)
    assert xr_model.parse(body | {"metadata": {"name": "x" * 63, "namespace": "t"}}).name


@pytest.mark.parametrize(
    ("data", "where"),
    [
        pytest.param({"replicas": "3"}, "replicas", id="a string for an integer"),
        pytest.param(
            {"scaling": {"enabled": "no"}}, "scaling.enabled", id="a string for a boolean"
        ),
        pytest.param(
            {"scaling": {"maxReplicaCount": True}},
            "scaling.maxReplicaCount",
            id="a boolean for an integer",
        ),
    ],
)
def test_values_of_the_wrong_type_are_refused_not_coerced(data: dict[str, Any], where: str) -> None:
    with pytest.raises(FlavorError) as raised:
        resolve({}, flavor("typed", data))
    assert str(raised.value).startswith(f"invalid flavor data: {where}: ")
    assert str(raised.value).endswith('(from flavor "typed")')


@pytest.mark.parametrize(
    "names",
    [
        pytest.param(["GPU_A100"], id="uppercase and underscore"),
        pytest.param(["gpu h100"], id="a space"),
        pytest.param(["x" * 254], id="longer than an object name may be"),
    ],
)
def test_a_flavor_name_that_can_never_exist_is_refused_at_once(names: list[str]) -> None:
    with pytest.raises(InputError, match="flavors: not a valid object name"):
        composite(flavors=names)


def test_a_flavor_deprecated_by_annotation_warns_like_one_deprecated_by_label() -> None:
    by_label = flavor("old-gpu", {}, labels={"asya.sh/deprecated": "true"})
    by_annotation = flavor(
        "old-gpu",
        {},
        annotations={"asya.sh/deprecated": "true", "asya.sh/deprecation-message": "use gpu-l4"},
    )
    assert by_label.deprecated
    assert by_annotation.deprecated
    assert resolve({}, by_annotation).warnings == ('flavor "old-gpu" is deprecated: use gpu-l4',)


def test_warnings_come_in_a_stable_order() -> None:
    one = flavor("mixed", {"transport": "x", "actor": "y", "flavors": []})
    other = flavor("mixed", {"flavors": [], "actor": "y", "transport": "x"})
    assert resolve({}, one).warnings == resolve({}, other).warnings
    assert [w.split(" sets ")[1].split(",")[0] for w in resolve({}, one).warnings] == [
        "actor",
        "flavors",
        "transport",
    ]


def test_flavor_metadata_of_the_wrong_shape_reads_as_empty() -> None:
    odd = sources.from_environment_config("odd", {"metadata": {"labels": ["x"]}, "data": {}})
    assert not odd.deprecated


def _write_into_every_map_and_list(data: Any) -> None:
    if isinstance(data, dict):
        for value in list(data.values()):
            _write_into_every_map_and_list(value)
        data["written"] = True
    elif isinstance(data, list):
        for value in list(data):
            _write_into_every_map_and_list(value)
        data.append("written")


def test_a_resolved_spec_shares_nothing_writable_with_the_defaults_or_the_flavors() -> None:
    # The defaults are every actor's, and the flavors sit in the resolve memo for the
    # next actor: nothing a later stage does with a resolved spec may reach them.
    gpu = flavor(
        "gpu",
        {
            "resources": {"limits": {"nvidia.com/gpu": "1"}},
            "tolerations": [{"key": "gpu", "operator": "Exists"}],
            "env": [{"name": "CUDA", "value": "1"}],
            "scaling": {"maxReplicaCount": 4},
        },
    )
    platform = flavor(
        "platform",
        {
            "secretRefs": [{"secretName": "creds", "keys": [{"key": "t", "envVar": "TOKEN"}]}],
            "stateProxy": [
                {"name": "cache", "mount": {"path": "/c"}, "connector": {"image": "p:1"}}
            ],
            "resiliency": {
                "policies": {"p": {"maxAttempts": 2}},
                "rules": [{"errors": ["E"], "policy": "p"}],
            },
        },
    )
    shared = (spec_model.DEFAULTS, spec_model.STATE_PROXY_DEFAULTS, gpu.data, platform.data)
    before = copy.deepcopy(shared)
    resolution = resolve({"env": [{"name": "CUDA", "value": "0"}]}, gpu, platform)
    assert shared == before
    _write_into_every_map_and_list(resolution.data)
    assert shared == before


def test_an_actor_writing_into_its_resolved_spec_leaves_the_next_actors_flavors_alone() -> None:
    # The flavors merged on their own sit in the resolve memo, kept frozen: every actor
    # that lists them reads a copy of its own, whatever an earlier one wrote into its copy.
    gpu = flavor(
        "gpu",
        {"env": [{"name": "CUDA", "value": "1"}], "resources": {"limits": {"cpu": "2"}}},
    )
    merged = layers.merge_flavors([gpu])
    assert isinstance(merged.merged, bytes)
    first = layers.resolve_with(composite(flavors=["gpu"]), merged)
    expected = copy.deepcopy(first.data)
    _write_into_every_map_and_list(first.data)
    second = layers.resolve_with(composite(flavors=["gpu"]), merged)
    assert second.data == expected
