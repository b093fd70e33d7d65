"""Properties of the merge that must hold for any data, found by hypothesis."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from function.errors import MergeConflictError
from function.resolve import merge

KEYS = st.sampled_from(["env", "scaling", "resources", "tolerations", "image", "x", "y", "limits"])
SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4)
TREES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=12,
)
MAPS = st.dictionaries(KEYS, TREES, max_size=5)


def leaves(tree: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every (path, value) of a tree's map leaves; lists count as leaves, empty maps do not."""
    if isinstance(tree, dict):
        return [leaf for key, value in tree.items() for leaf in leaves(value, (*path, key))]
    return [(path, tree)]


def get(tree: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def reordered(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {key: reordered(tree[key]) for key in reversed(list(tree))}
    if isinstance(tree, list):
        return [reordered(item) for item in tree]
    return tree


@settings(max_examples=200, deadline=None)
@given(MAPS, MAPS)
def test_merging_never_mutates_its_inputs(first: dict[str, Any], second: dict[str, Any]) -> None:
    before = copy.deepcopy((first, second))
    with contextlib.suppress(MergeConflictError):
        merge.merge_flavors([("one", first), ("two", second)])
    merge.overlay(first, second)
    with contextlib.suppress(MergeConflictError):
        merge.layered(first, [("one", first), ("two", second)], second)
    assert (first, second) == before


@settings(max_examples=200, deadline=None)
@given(MAPS, MAPS)
def test_the_result_does_not_depend_on_key_order(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    def outcome(a: dict[str, Any], b: dict[str, Any]) -> Any:
        try:
            return merge.merge_flavors([("one", a), ("two", b)])
        except MergeConflictError as exc:
            return ("conflict", type(exc))

    assert outcome(first, second) == outcome(reordered(first), reordered(second))
    assert merge.overlay(first, second) == merge.overlay(reordered(first), reordered(second))


@settings(max_examples=200, deadline=None)
@given(MAPS, MAPS)
def test_flavors_without_shared_keys_merge_the_same_in_any_order(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    second = {k: v for k, v in second.items() if k not in first}
    assert merge.merge_flavors([("one", first), ("two", second)]) == merge.merge_flavors(
        [("two", second), ("one", first)]
    )


@settings(max_examples=200, deadline=None)
@given(MAPS, MAPS)
def test_the_actors_leaves_always_survive(flavor: dict[str, Any], actor: dict[str, Any]) -> None:
    result = merge.overlay(flavor, actor)
    for path, value in leaves(actor):
        if not path:
            continue
        got = get(result, path)
        if isinstance(value, list):
            # Lists join: every item of the actor's list is there.
            assert all(item in got for item in value)
        else:
            assert got == value


@settings(max_examples=200, deadline=None)
@given(MAPS)
def test_merging_with_an_empty_flavor_is_the_identity(flavor: dict[str, Any]) -> None:
    try:
        alone = merge.merge_flavors([("one", flavor)])
    except MergeConflictError:
        return  # a flavor can conflict with itself only through duplicate identities
    assert merge.merge_flavors([("one", flavor), ("empty", {})]) == alone
    assert merge.merge_flavors([("empty", {}), ("one", flavor)]) == alone
    assert merge.overlay(flavor, {}) == flavor
    assert merge.overlay({}, flavor) == flavor
