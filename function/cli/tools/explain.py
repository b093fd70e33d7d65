"""`function-asya explain`: the actor's spec as the function resolves it, with the source of every leaf.

The sources are found the way the function's own error messages find them
(`Provenance`): only here, on request, so a call of the function never pays for them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import click
import yaml

from function.cli.render.errors import RenderError
from function.cli.tools import library
from function.cli.tools.command import COMPOSITION, fail, input_of
from function.errors import FunctionError
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


@click.command()
@click.argument("xr", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-e",
    "--required-resources",
    "required",
    multiple=True,
    type=click.Path(exists=True),
    help="Flavors (EnvironmentConfigs, ConfigMap flavors): files or directories.",
)
@click.option("-o", "--output", "output", type=click.Choice(["yaml", "json"]), default="yaml")
@COMPOSITION
def explain(xr: str, required: tuple[str, ...], output: str, composition: str | None) -> None:
    """Resolve an actor as the function does and show where every field came from.

    Each leaf of the resolved spec is marked `# default`, `# actor` or `# flavor <name>`;
    with -o json, {"spec": ..., "sources": {path: source}}. A file of several actors (or
    a kubectl List) explains each: YAML documents headed by the actor's name, or a JSON
    list. A resolution that fails prints the function's error and exits 1.
    """
    try:
        documents = library.actors([xr])
        entries = library.load(required)
    except RenderError as exc:
        fail(str(exc))
    settings = input_of(composition)
    resolved = []
    for doc in documents:
        try:
            resolved.append((doc, library.resolve(doc.body, entries, settings)))
        except FunctionError as exc:
            fail(f"{doc.where}: {exc}" if len(documents) > 1 else str(exc))
    if output == "json":
        found = [explained(resolution) for _, resolution in resolved]
        click.echo(json.dumps(found if len(found) > 1 else found[0], indent=2))
        return
    for number, (doc, resolution) in enumerate(resolved):
        if len(resolved) > 1:
            click.echo(("---\n" if number else "") + f"# {library.actor_label(doc.body)}")
        click.echo(as_yaml(resolution), nl=False)
