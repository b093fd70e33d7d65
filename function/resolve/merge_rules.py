"""The merge rules, declared once: for every list of the AsyncActor spec, how its items merge.

Maps always merge key by key and scalars are leaves; only lists need a rule. The
table is checked against the spec model by the tests (every list has a rule, every
rule names a list) and the README's copy of it is checked against this one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# A path pattern matches a merge path; "*" stands for one item of a list or one map key.
Pattern = tuple[str, ...]


@dataclass(frozen=True)
class ListRule:
    """How a list merges: by an identity key, or appended without duplicates."""

    identity: str | None
    # When two flavors define an item with the same identity, its fields merge
    # (instead of conflicting) if it holds lists with identities of their own.
    merge_items: bool = False
    # The actor's items go before the flavors' items (rules are matched in order).
    actor_first: bool = False


# THE TABLE. Every list the AsyncActor spec has, and how it merges.
LIST_RULES: dict[Pattern, ListRule] = {
    ("env",): ListRule(identity="name"),
    ("volumes",): ListRule(identity="name"),
    ("volumeMounts",): ListRule(identity="mountPath"),
    ("stateProxy",): ListRule(identity="name"),
    ("stateProxy", "*", "connector", "env"): ListRule(identity="name"),
    ("secretRefs",): ListRule(identity="secretName", merge_items=True),
    ("secretRefs", "*", "keys"): ListRule(identity="envVar"),
    ("initContainers",): ListRule(identity="name"),
    ("sidecars",): ListRule(identity="name"),
    ("sidecar", "env"): ListRule(identity="name"),
    ("tolerations",): ListRule(identity=None),
    ("imagePullSecrets",): ListRule(identity="name"),
    ("topologySpreadConstraints",): ListRule(identity=None),
    ("envFrom",): ListRule(identity=None),
    ("resiliency", "rules"): ListRule(identity=None, actor_first=True),
    ("resiliency", "rules", "*", "errors"): ListRule(identity=None),
    ("resiliency", "policies", "*", "onExhausted"): ListRule(identity=None),
    ("scaling", "additionalTriggers"): ListRule(identity=None),
    ("metrics", "custom"): ListRule(identity="name"),
    ("metrics", "custom", "*", "labels"): ListRule(identity=None),
    ("metrics", "custom", "*", "buckets"): ListRule(identity=None),
}
APPEND = ListRule(identity=None)


def _matches(pattern: Pattern, path: Sequence[str]) -> bool:
    return len(pattern) == len(path) and all(
        p in ("*", k) for p, k in zip(pattern, path, strict=True)
    )


def list_rule(path: Sequence[str]) -> ListRule:
    """Return the rule for the list at a path (plain keys, list items as "*")."""
    return _rule_at(tuple(path))


# Every merge asks for the same few paths; map keys in them (policy names) are the
# user's, so the memo is bounded.
@functools.lru_cache(maxsize=1024)
def _rule_at(path: tuple[str, ...]) -> ListRule:
    for pattern, rule in LIST_RULES.items():
        if _matches(pattern, path):
            return rule
    return APPEND


def identity_of(item: Any, rule: ListRule) -> str | None:
    """Return an item's identity under a rule, or None when it has none."""
    if rule.identity is None or not isinstance(item, dict):
        return None
    value = item.get(rule.identity)
    return None if value is None else str(value)


def comparable(value: Any) -> Any:
    """A hashable stand-in for a JSON value, equal exactly when the values are equal.

    Booleans are tagged: Python holds `True == 1`, JSON does not. Identity-less
    lists drop exact duplicates with a set of these, linear in the list's length.
    """
    if isinstance(value, dict):
        return frozenset((key, comparable(item)) for key, item in value.items())
    if isinstance(value, list):
        return tuple(comparable(item) for item in value)
    if isinstance(value, bool):
        return (bool, value)
    return value


def same(left: Any, right: Any) -> bool:
    """Tell whether two JSON values are equal as JSON (a boolean never equals a number)."""
    return left is right or comparable(left) == comparable(right)


def positions(items: list[Any], rule: ListRule) -> dict[str, int]:
    """Index the items of a list by their identity under a rule."""
    return {
        ident: index
        for index, item in enumerate(items)
        if (ident := identity_of(item, rule)) is not None
    }


def append_new(out: list[Any], items: Sequence[Any], seen: set[Any]) -> None:
    """Append the items not seen yet (exact duplicates dropped), remembering them."""
    for item in items:
        key = comparable(item)
        if key not in seen:
            seen.add(key)
            out.append(item)
