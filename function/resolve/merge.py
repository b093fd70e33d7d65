"""The merges, as two deepmerge Mergers: flavors with each other, and layers over layers.

Between flavors (`merge_flavors`) maps merge key by key, lists merge by their rule
in rules.py, and the same leaf set by two flavors is a conflict. Over flavors
(`overlay`) the higher layer wins leaf by leaf and never conflicts; lists follow
the same rules. `layered` stacks an actor's three layers with both. deepmerge
writes into the map it merges into, so both merge into copies: no input is ever
changed.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping, Sequence
from typing import Any

from deepmerge import Merger
from deepmerge.strategy.core import STRATEGY_END

from function.codec.kinds import kind_of
from function.errors import MergeConflictError
from function.resolve.merge_rules import (
    append_new,
    comparable,
    identity_of,
    list_rule,
    positions,
    same,
)
from function.resolve.paths import Item, contains, dotted, shape


def clone(value: Any) -> Any:
    """Copy JSON-like data (dicts, lists, scalars): what deepmerge may write into.

    Every map and list is copied apart, even one a YAML anchor put in two places.
    """
    kind = type(value)
    if kind is dict:
        return {key: clone(item) for key, item in value.items()}
    if kind is list:
        return [clone(item) for item in value]
    return value


def _sorted_clone(value: Any) -> Any:
    """`clone`, each map's keys sorted: the merge meets them in sorted order.

    A flavor arrives as a protobuf Struct, whose map order is random per process: of
    two keys that conflict, the merge would name either.
    """
    kind = type(value)
    if kind is dict:
        return {key: _sorted_clone(value[key]) for key in sorted(value)}
    if kind is list:
        return [_sorted_clone(item) for item in value]
    return value


# ---------------------------------------------------------------- layers


def _layer_lists(_config: Merger, path: list[str], base: list[Any], top: list[Any]) -> list[Any]:
    """A higher layer's list over a lower one's: by identity the higher item wins, else joined."""
    rule = list_rule(shape(path))
    if rule.identity is None:
        first, second = (top, base) if rule.actor_first else (base, top)
        joined: list[Any] = []
        seen: set[Any] = set()
        append_new(joined, first, seen)
        append_new(joined, second, seen)
        return joined
    found = positions(base, rule)
    for item in top:
        ident = identity_of(item, rule)
        if ident is not None and ident in found:
            base[found[ident]] = item
        else:
            if ident is not None:
                found[ident] = len(base)
            base.append(item)
    return base


LAYERS = Merger(
    type_strategies=[(list, _layer_lists), (dict, "merge")],
    fallback_strategies=["override"],
    type_conflict_strategies=["override"],
)


def overlay(base: Mapping[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """Lay `top` over `base`: the higher layer wins leaf by leaf.

    Maps merge recursively; a list with identities keeps the lower layer's items, with
    the higher one's item replacing the one of the same identity and its others
    appended; other lists are joined without duplicates (the higher layer first
    where the rule says so).

    Returns:
        A new dict. deepmerge writes into the map it merges into and puts the higher
        layer's maps into it as they are: `base` is copied first, and the result
        may share with `top` the maps nothing wrote into. Neither is ever changed.
    """
    return LAYERS.merge(clone(base), top)


# ---------------------------------------------------------------- flavors


class _FlavorMerge:
    """One fold of flavors; finds who set a value only when a conflict needs the name."""

    def __init__(self, settled: dict[str, Any], labels: Mapping[str, str]) -> None:
        # What the actor sets itself: a clash there is no conflict, the actor wins it.
        self.settled = settled
        # How messages name each flavor (its name in quotes, and where it lives).
        self.labels = labels
        self.merged_so_far: list[tuple[str, dict[str, Any]]] = []
        self.current = ""
        self.merger = Merger(
            type_strategies=[(list, self._lists), (dict, "merge")],
            fallback_strategies=[self._scalars],
            type_conflict_strategies=[self._types],
        )

    def _label(self, name: str) -> str:
        return self.labels.get(name, f'"{name}"')

    def _owner(self, path: Sequence[str | Item]) -> str:
        """The first earlier flavor that sets something at path."""
        for name, data in self.merged_so_far:
            if contains(data, path):
                return name
        return self.current

    def _conflict(self, path: Sequence[str | Item], clash: str = "") -> MergeConflictError:
        where = clash or f"conflict on {dotted(path)}"
        return MergeConflictError(
            f"flavor merge conflict: flavors {self._label(self._owner(path))} and "
            f"{self._label(self.current)} {where}",
            path=dotted(path),
        )

    def _lists(
        self, _config: Merger, path: list[str | Item], base: list[Any], nxt: list[Any]
    ) -> list[Any]:
        rule = list_rule(shape(path))
        found = positions(base, rule)
        seen: set[Any] | None = None
        for item in nxt:
            ident = identity_of(item, rule)
            if ident is None:
                seen = {comparable(i) for i in base} if seen is None else seen
                append_new(base, (item,), seen)
                continue
            item_path = [*path, Item(ident)]
            if ident not in found:
                found[ident] = len(base)
                base.append(item)
            elif same(base[found[ident]], item):
                continue
            elif rule.merge_items:
                # The identity key is equal by construction; only the rest may clash.
                rest = {k: v for k, v in item.items() if k != rule.identity}
                base[found[ident]] = self.merger.value_strategy(item_path, base[found[ident]], rest)
            elif contains(self.settled, item_path):
                base[found[ident]] = item
            else:
                raise self._conflict(item_path)
        return base

    def _scalars(self, _config: Merger, path: list[str | Item], base: Any, nxt: Any) -> Any:
        if isinstance(base, dict | list) or isinstance(nxt, dict | list):
            return STRATEGY_END
        # The same scalar set twice is a conflict even with equal values: one
        # flavor must own each leaf, so changing either flavor stays predictable.
        if contains(self.settled, path):
            return nxt
        raise self._conflict(path)

    def _types(self, _config: Merger, path: list[str | Item], base: Any, nxt: Any) -> Any:
        if contains(self.settled, path):
            return nxt
        if not isinstance(base, dict | list) and not isinstance(nxt, dict | list):
            raise self._conflict(path)
        raise self._conflict(
            path,
            f'have conflicting types for key "{dotted(path)}": existing is {kind_of(base)}, '
            f"new is {kind_of(nxt)}",
        )

    def fold(self, flavors: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for name, data in flavors:
            self.current = name
            merged = self.merger.merge(merged, _sorted_clone(data))
            self.merged_so_far.append((name, data))
        return merged


def merge_flavors(
    flavors: Sequence[tuple[str, dict[str, Any]]],
    settled: dict[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Merge flavors in order: lists by their rule, maps key by key, a leaf set twice conflicts.

    Args:
        flavors: (flavor name, data) pairs in the order the actor lists them.
        settled: the actor's own spec. A leaf (or identity item) it sets is never a
            conflict between flavors: the actor's value replaces both.
        labels: how messages name a flavor (default: its name in quotes).

    Returns:
        A new dict; the inputs are left untouched.

    Raises:
        MergeConflictError: naming both flavors and the dotted path of the clash.
    """
    return _FlavorMerge(settled or {}, labels or {}).fold(flavors)


def layered(
    defaults: Mapping[str, Any],
    flavors: Sequence[tuple[str, dict[str, Any]]],
    actor: dict[str, Any],
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An actor's three layers: defaults < the flavors merged in order < the actor's spec.

    The flavors merge with each other as `merge_flavors` does, the actor settling
    their clashes; the actor's spec then wins leaf by leaf, as in `overlay`.

    Returns:
        A new dict that may share with `actor` the maps nothing wrote into; no input
        is ever changed. The flavors' merge is a map of this call's own (every flavor
        is copied into it), so the actor's layer goes into it without another copy.

    Raises:
        MergeConflictError: naming both flavors and the dotted path of the clash.
    """
    merged = _FlavorMerge(actor, labels or {}).fold(flavors)
    return LAYERS.merge(overlay(defaults, merged), actor)


def frozen(data: dict[str, Any]) -> bytes:
    """Data many calls share, as bytes that none of them can write into (`actor_over` reads them).

    marshal's version 2 writes no references: a map or list found in two places
    comes back as two.
    """
    return marshal.dumps(data, 2)


def actor_over(below: bytes, actor: dict[str, Any]) -> dict[str, Any]:
    """An actor's spec over the defaults and its flavors, merged without it (they did not clash).

    `below` is `frozen`: each call reads a copy of its own for deepmerge to write
    into, at a third of what copying the maps one by one costs. Returns a new dict
    that may share with `actor` the maps nothing wrote into; `actor` is never changed.
    """
    return LAYERS.merge(marshal.loads(below), actor)  # noqa: S302  # bytes `frozen` wrote
