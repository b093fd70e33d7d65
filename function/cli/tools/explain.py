"""`function-asya explain`: the actor's spec as the function resolves it, with the source of every leaf.

The sources are found the way the function's own error messages find them
(`Provenance`): only here, on request, so a call of the function never pays for them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import yaml

from function.models.spec import as_data
from function.resolve import paths
from function.resolve.layers import Resolution
from function.resolve.provenance import Layer


def leaves(data: Any, at: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every leaf of the data (a scalar, an empty map or an empty list), as keys and indexes."""
    if isinstance(data, dict) and data:
        for key, value in data.items():
            yield from leaves(value, (*at, key))
    elif isinstance(data, list) and data:
        for index, value in enumerate(data):
            yield from leaves(value, (*at, index))
    else:
        yield at


def source_label(origin: Layer) -> str:
    """The JSON form of a source: `default`, `actor`, `flavor:<name>` (and where it lives)."""
    if origin.kind != "flavor":
        return origin.kind
    return f"flavor:{origin.flavor}" + (f" in {origin.where}" if origin.where else "")


def origins(resolution: Resolution) -> dict[str, Layer]:
    """The layer that set every leaf of the resolved spec, by path."""
    data = as_data(resolution.spec)
    provenance = resolution.provenance
    found = {}
    for loc in leaves(data):
        path = paths.located(data, loc)
        found[paths.dotted(path)] = provenance.source(path)
    return found


def explained(resolution: Resolution) -> dict[str, Any]:
    """`{"spec": ..., "sources": {path: "default" | "actor" | "flavor:<name>"}}`."""
    sources = {path: source_label(origin) for path, origin in origins(resolution).items()}
    return {"spec": as_data(resolution.spec), "sources": sources}


def _comment(origin: Layer) -> str:
    """`# default`, `# actor`, or `# flavor <name>` (and where it lives)."""
    if origin.kind != "flavor":
        return f"# {origin.kind}"
    return f"# flavor {origin.flavor}" + (f" in {origin.where}" if origin.where else "")


def as_yaml(resolution: Resolution) -> str:
    """The resolved spec as YAML, each leaf followed by a comment naming its source."""
    data = as_data(resolution.spec)
    lines: list[str] = []
    _emit(data, (), 0, lines, data, origins(resolution))
    return "spec:\n" + "\n".join(lines) + "\n"


def _scalar(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=1 << 16).strip()
    return text.removesuffix("\n...").removesuffix("...").strip()


def _emit(
    node: Any,
    at: tuple[str | int, ...],
    depth: int,
    lines: list[str],
    data: Any,
    by_path: dict[str, Layer],
) -> None:
    indent = "  " * (depth + 1)
    items: Sequence[tuple[str | int, Any]] = (
        list(node.items()) if isinstance(node, dict) else list(enumerate(node))
    )
    for key, value in items:
        here = (*at, key)
        prefix = f"{indent}- " if isinstance(key, int) else f"{indent}{_scalar(key)}:"
        if isinstance(value, dict | list) and value:
            if isinstance(key, int):
                # A list item opens on its dash line: emit its first entry there.
                sub: list[str] = []
                _emit(value, here, depth + 1, sub, data, by_path)
                first, *rest = sub
                lines.append(prefix + first.lstrip())
                lines.extend(rest)
            else:
                lines.append(prefix)
                _emit(value, here, depth + 1, lines, data, by_path)
            continue
        origin = by_path[paths.dotted(paths.located(data, here))]
        gap = "" if isinstance(key, int) else " "
        lines.append(f"{prefix}{gap}{_scalar(value)}  {_comment(origin)}")
