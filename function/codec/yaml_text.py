"""YAML text read as Kubernetes' Go readers read it: timestamps stay strings, JSON's types only.

go-yaml v2 (which kubectl and sigs.k8s.io/yaml use) keeps a timestamp-like scalar as a
string when it decodes into an untyped value, "for backward compatibility" (its
decode.go), and what it reads then goes through JSON, which holds nothing else: no
bytes (`!!binary`), sets, non-string map keys or infinite numbers.

A few hundred bytes of anchors and aliases can stand for billions of values (a "YAML
bomb"); a team's ConfigMap must not make the function walk them. go-yaml v2 (since
v2.2.8) refuses a document whose values come mostly from expanding aliases: past 100
values read through aliases and 1,000 in all, more than 99 % of them through aliases
up to 400,000 values, a share that falls evenly to 10 % at 4,000,000. The same rule
holds here, counted on the parsed document before anything is built from it, so the
count stops where the rule does; an alias inside the value it names (which Go refuses
too) never ends, and is refused as well.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from function.codec import go_scalars

# The tag each kind of plain scalar go-yaml v2 reads is built as; a timestamp stays
# the string it is written as when Go decodes into an untyped value.
_TAGS: dict[go_scalars.Kind, str] = {
    "str": "tag:yaml.org,2002:str",
    "timestamp": "tag:yaml.org,2002:str",
    "bool": "tag:yaml.org,2002:bool",
    "null": "tag:yaml.org,2002:null",
    "int": "tag:yaml.org,2002:int",
    "float": "tag:yaml.org,2002:float",
    "merge": "tag:yaml.org,2002:merge",
}
_MERGE = _TAGS["merge"]


# libyaml's parser where PyYAML was built with it (its wheels are): the same YAML, read
# faster, which a fleet's worth of actors (flavors plan) needs.
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """A safe loader that reads plain scalars by go-yaml v2's rules, not YAML 1.1's.

    PyYAML reads `1:30` as the number 90 (YAML 1.1's base 60), `y` and `1e3` as
    strings; go-yaml v2 reads the string "1:30", true and the number 1000.
    """

    def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool]) -> str:
        """The tag of a node: a plain scalar's by go-yaml v2's rules."""
        if kind is ScalarNode and implicit[0]:
            return _TAGS[go_scalars.kind_of(value)]
        resolved: str = super().resolve(kind, value, implicit)
        return resolved

    def construct_yaml_bool(self, node: ScalarNode) -> bool:
        """True or false by go-yaml v2's table (which has y and n; PyYAML's has not)."""
        value = str(node.value)
        if value not in go_scalars.TRUE | go_scalars.FALSE:
            raise yaml.constructor.ConstructorError(
                None, None, f"{value!r} is not a boolean", node.start_mark
            )
        return value in go_scalars.TRUE

    def construct_yaml_int(self, node: ScalarNode) -> int:
        """The integer as Go reads it (`0X1F`, `0777`, `0b-1`), never by YAML 1.1's rules."""
        number = go_scalars.integer(str(node.value))
        if number is None:
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not an integer", node.start_mark
            )
        return number

    def construct_yaml_float(self, node: ScalarNode) -> float:
        """The number as Go reads it (`1e3`, `.inf`), never by YAML 1.1's base 60 (`1:30`)."""
        value = str(node.value)
        if value in go_scalars.SPECIAL_FLOATS:
            return float(value.lower().replace(".", ""))
        number = go_scalars.go_float(value.replace("_", ""))
        if number is None:
            raise yaml.constructor.ConstructorError(
                None, None, f"{value!r} is not a number", node.start_mark
            )
        return number


# `<<` is a merge only as a key (PyYAML merges those before constructing); as a value it
# is the string Go reads.
_Loader.add_constructor(_MERGE, lambda _loader, node: str(node.value))
_Loader.add_constructor("tag:yaml.org,2002:bool", _Loader.construct_yaml_bool)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)
_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


class ExcessiveAliasingError(yaml.YAMLError):
    """A document whose aliases expand to far more values than it writes."""


class ExcessiveNestingError(yaml.YAMLError):
    """A document nested deeper than go-yaml v2 reads (and libyaml's composer survives)."""


# go-yaml v2 refuses a document nested deeper ("exceeded max depth of 10000"); libyaml's
# composer recurses in C, and a few tens of thousands of levels crash the process.
MAX_DEPTH = 10_000
_OPENS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSES = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _check_depth(text: str) -> None:
    """Refuse a text nested deeper than MAX_DEPTH, reading its events before anything is built.

    Raises:
        ExcessiveNestingError: at the first level past it.
    """
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, _OPENS):
            depth += 1
            if depth > MAX_DEPTH:
                raise ExcessiveNestingError(
                    f"the document nests deeper than {MAX_DEPTH} levels, as go-yaml v2 refuses"
                )
        elif isinstance(event, _CLOSES):
            depth -= 1


# go-yaml v2's bounds: the share of values read through aliases a document may have,
# 99 % up to LOW values in all, falling evenly to 10 % at HIGH.
LOW, HIGH = 400_000, 4_000_000
MIN_ALIASED, MIN_VALUES = 100, 1_000


def _allowed_share(values: int) -> float:
    if values <= LOW:
        return 0.99
    if values >= HIGH:
        return 0.10
    return 0.99 - 0.89 * (values - LOW) / (HIGH - LOW)


def _check_aliasing(document: Node) -> None:
    """Refuse a document go-yaml v2 would refuse for its aliases, counting as it decodes.

    Go counts the document, every value it decodes, and an alias once as itself and
    then again for each value of what it names, those read through the alias; a merge
    key (`<<`) is not counted, the map it merges is. The parser gives every alias the
    node its anchor names, so a node met a second time is an alias.

    Raises:
        ExcessiveAliasingError: at the first value past go-yaml v2's bounds.
    """
    counts = [1, 0]  # values decoded (the document first), and those through an alias
    seen: set[int] = set()
    # The maps and lists being read, from the document down to the current value.
    open_nodes: set[int] = set()
    # (node, read through an alias); None closes the innermost open node.
    stack: list[tuple[Node, bool] | None] = [(document, False)]
    path: list[int] = []
    while stack:
        entry = stack.pop()
        if entry is None:
            open_nodes.discard(path.pop())
            continue
        node, through_alias = entry
        if id(node) in open_nodes:
            raise ExcessiveAliasingError("an alias stands inside the value its anchor names")
        if id(node) in seen and not through_alias:
            # Within an expansion every node was met before: only the outermost is the alias.
            _count(counts, through_alias)  # the alias itself
            through_alias = True
        seen.add(id(node))
        _count(counts, through_alias)
        if isinstance(node, MappingNode | SequenceNode):
            open_nodes.add(id(node))
            path.append(id(node))
            stack.append(None)
            children = (
                [part for key, value in node.value for part in (key, value) if part.tag != _MERGE]
                if isinstance(node, MappingNode)
                else node.value
            )
            stack.extend((child, through_alias) for child in reversed(children))


def _count(counts: list[int], through_alias: bool) -> None:
    counts[0] += 1
    counts[1] += through_alias
    values, aliased = counts
    if aliased > MIN_ALIASED and values > MIN_VALUES and aliased / values > _allowed_share(values):
        raise ExcessiveAliasingError(
            "the document contains excessive aliasing: its aliases expand to far more "
            "values than it writes"
        )


def _constructed(loader: _Loader, document: Node) -> Any:
    """The document's values; a value its explicit tag cannot hold is a YAML error.

    PyYAML's constructors raise what they meet for some (ValueError for `!!float abc`,
    IndexError for an empty `!!float`, AttributeError for `!!timestamp 1`), which
    callers would otherwise take for a fault of their own.
    """
    try:
        return loader.construct_document(document)
    except yaml.YAMLError:
        raise
    except Exception as exc:  # noqa: BLE001  # PyYAML's constructors fail in many ways
        raise yaml.constructor.ConstructorError(
            None, None, f"a value its tag cannot hold ({type(exc).__name__})", document.start_mark
        ) from None


def load(text: str) -> Any:
    """Load one YAML document, keeping timestamps as strings.

    Raises:
        yaml.YAMLError: when the text is not YAML, or its aliases expand too far.
    """
    _check_depth(text)
    loader = _Loader(text)
    try:
        document = loader.get_single_node()
        if document is None:
            return None
        _check_aliasing(document)
        return _constructed(loader, document)
    finally:
        loader.dispose()


def load_all(text: str) -> Iterator[Any]:
    """Load every YAML document of a text, keeping timestamps as strings.

    Raises:
        yaml.YAMLError: when the text is not YAML, or a document's aliases expand too far.
    """
    _check_depth(text)
    loader = _Loader(text)
    try:
        while loader.check_node():
            document = loader.get_node()
            _check_aliasing(document)
            yield _constructed(loader, document)
    finally:
        loader.dispose()


def not_json(data: Any) -> str:
    """Where the first value JSON cannot hold is, and that it is; '' when it holds them all."""
    found = _first_not_json(data)
    if found is None:
        return ""
    where = ".".join(str(key) for key in found) or "<top>"
    return (
        f"{where}: not a value JSON holds (a string, a finite number, a boolean, null, a "
        "list, or a map with string keys)"
    )


def _first_not_json(data: Any) -> list[str | int] | None:
    """The keys down to the first value JSON cannot hold, or None when it holds them all.

    Walked with a stack of its own (a document may nest as deep as go-yaml v2 reads),
    each value linked to its parent's step so that only the path found is built.
    """
    steps: list[tuple[str | int, int]] = []  # (key, the parent's step; -1 at the top)
    stack: list[tuple[Any, int]] = [(data, -1)]
    while stack:
        value, at = stack.pop()
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    return [*_path(steps, at), str(key)]
            children: list[tuple[str | int, Any]] = list(value.items())
        elif isinstance(value, list):
            children = list(enumerate(value))
        else:
            finite = not isinstance(value, float) or math.isfinite(value)
            if finite and (value is None or isinstance(value, str | int | bool | float)):
                continue
            return _path(steps, at)
        for key, child in reversed(children):
            steps.append((key, at))
            stack.append((child, len(steps) - 1))
    return None


def _path(steps: list[tuple[str | int, int]], at: int) -> list[str | int]:
    path: list[str | int] = []
    while at >= 0:
        key, at = steps[at]
        path.append(key)
    return path[::-1]
