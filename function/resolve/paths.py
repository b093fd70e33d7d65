"""Paths into spec data, walked one way for every use: conflicts, error sources and messages.

A path is a tuple of map keys and list items. A list item is named by its
identity under the merge rules (`env[MODEL_PATH]`), or, without one, by its
position and value (`tolerations[0]`), so the same item is found in every layer
whatever its position there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from function.resolve.merge_rules import identity_of, list_rule, same


@dataclass(frozen=True)
class Item:
    """One list item on a path: by identity when it has one, else by its value."""

    ident: str | None
    index: int = 0
    value: Any = field(default=None, compare=False)
    # Whether the identity was written as text: `name: 5` would read as the index 5.
    textual: bool = field(default=True, compare=False)

    def __str__(self) -> str:
        """`[identity]`, or `[index]` for an item without one written as text."""
        return f"[{self.ident if self.ident is not None and self.textual else self.index}]"


Path = tuple["str | Item", ...]


def shape(path: Sequence[str | Item]) -> tuple[str, ...]:
    """The rule path of a path: its keys, with every list item as "*"."""
    return tuple("*" if isinstance(step, Item) else step for step in path)


def dotted(path: Sequence[str | Item]) -> str:
    """Render a path as `scaling.minReplicaCount`, `env[MODEL_PATH]` or `tolerations[0]`."""
    text = ""
    for step in path:
        if isinstance(step, Item):
            text += str(step)
        else:
            text += f".{step}" if text else step
    return text


_ABSENT = object()


def find(data: Any, path: Sequence[str | Item]) -> tuple[bool, Any]:
    """Walk a path through data: (True, the value there), or (False, None) when data has none."""
    here = data
    for depth, step in enumerate(path):
        if isinstance(step, Item):
            if not isinstance(here, list):
                return False, None
            if step.ident is not None:
                rule = list_rule(shape(path[:depth]))
                here = next((x for x in here if identity_of(x, rule) == step.ident), _ABSENT)
            else:
                here = next((x for x in here if same(x, step.value)), _ABSENT)
            if here is _ABSENT:
                return False, None
        elif isinstance(here, dict) and step in here:
            here = here[step]
        else:
            return False, None
    return True, here


def contains(data: Any, path: Sequence[str | Item]) -> bool:
    """Tell whether data sets something at a path."""
    return find(data, path)[0]


def located(data: Any, loc: Sequence[str | int]) -> Path:
    """Turn a location of keys and list indexes in data into a path of identities."""
    out: list[str | Item] = []
    here = data
    for step in loc:
        if isinstance(step, int) and isinstance(here, list) and 0 <= step < len(here):
            item = here[step]
            rule = list_rule(shape(out))
            ident = identity_of(item, rule)
            textual = ident is None or isinstance(item.get(rule.identity), str)
            out.append(Item(ident, step, item, textual))
            here = item
        else:
            out.append(str(step))
            here = here.get(step) if isinstance(here, dict) else None
    return tuple(out)
