"""The merge rules table against the spec model and docs/flavors.md: one table, no drift."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from function.generate import merge_table
from function.models import spec as spec_model
from function.resolve import merge, merge_rules, paths
from tests.support import ROOT


def _list_paths(annotation: Any, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in args:
            yield from _list_paths(arg, path)
    elif origin is list:
        yield path
        yield from _list_paths(args[0], (*path, "*"))
    elif origin is dict:
        yield from _list_paths(args[1], (*path, "*"))
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, field in annotation.model_fields.items():
            yield from _list_paths(field.annotation, (*path, field.alias or name))


def model_list_paths() -> set[tuple[str, ...]]:
    """Every list in the AsyncActor spec model a flavor can set, as a rule pattern."""
    found = set(_list_paths(spec_model.Spec, ()))
    return {p for p in found if p[0] not in spec_model.INFRASTRUCTURE_FIELDS}


def test_every_list_of_the_model_has_a_rule_and_every_rule_names_a_list() -> None:
    assert model_list_paths() == set(merge_rules.LIST_RULES)


def test_the_page_holds_the_table_make_generate_writes() -> None:
    text = (ROOT / merge_table.PAGE).read_text()
    assert merge_table.page(text) == text, "docs/flavors.md's list table differs: run make generate"
    assert text.count("| `") >= len(merge_rules.LIST_RULES)


def test_a_boolean_and_a_number_are_different_items() -> None:
    # Python holds True == 1; JSON and Kubernetes do not.
    merged = merge.merge_flavors(
        [("a", {"tolerations": [{"k": 1}]}), ("b", {"tolerations": [{"k": True}]})]
    )
    assert merged == {"tolerations": [{"k": 1}, {"k": True}]}
    assert merge.overlay({"tolerations": [{"k": 1}]}, {"tolerations": [{"k": True}]}) == {
        "tolerations": [{"k": 1}, {"k": True}]
    }


def test_the_same_identity_with_a_boolean_for_a_number_is_a_conflict() -> None:
    flavors = [
        ("a", {"volumes": [{"name": "v", "x": 1}]}),
        ("b", {"volumes": [{"name": "v", "x": True}]}),
    ]
    with pytest.raises(merge.MergeConflictError) as raised:
        merge.merge_flavors(flavors)
    assert str(raised.value) == 'flavor merge conflict: flavors "a" and "b" conflict on volumes[v]'


def test_a_path_finds_an_item_without_identity_by_its_value_in_any_layer() -> None:
    resolved = {"tolerations": [{"key": "a"}, {"key": "b"}]}
    path = paths.located(resolved, ["tolerations", 1, "key"])
    assert paths.dotted(path) == "tolerations[1].key"
    assert paths.contains({"tolerations": [{"key": "b"}]}, path)
    assert not paths.contains({"tolerations": [{"key": "a"}]}, path)
    assert not paths.contains(
        {"tolerations": [{"key": True}]},
        paths.located({"tolerations": [{"key": 1}]}, ["tolerations", 0]),
    )


def test_a_path_names_items_with_identity_by_it() -> None:
    resolved = {"stateProxy": [{"name": "meta", "connector": {"env": [{"name": "X"}]}}]}
    path = paths.located(resolved, ["stateProxy", 0, "connector", "env", 0, "value"])
    assert paths.dotted(path) == "stateProxy[meta].connector.env[X].value"


def test_an_identity_not_written_as_text_is_named_by_index_not_read_as_one() -> None:
    # `name: 5` shown as `sidecars[5]` would read as the sixth sidecar.
    resolved = {"sidecars": [{"name": "a"}, {"name": 5}]}
    path = paths.located(resolved, ["sidecars", 1, "name"])
    assert paths.dotted(path) == "sidecars[1].name"
    assert paths.contains({"sidecars": [{"name": 5}]}, path)
