"""YAML text read as Kubernetes' Go readers read it: timestamps stay strings, JSON's types only.

go-yaml v2 (which kubectl and sigs.k8s.io/yaml use) keeps a timestamp-like scalar as a
string when it decodes into an untyped value, "for backward compatibility" (its
decode.go), and what it reads then goes through JSON, which holds nothing else: no
bytes (`!!binary`), sets, non-string map keys or infinite numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import yaml

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


# libyaml's parser where PyYAML was built with it (its wheels are): the same YAML, read
# faster, which a fleet's worth of actors (flavors plan) needs.
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """A safe loader that keeps timestamps as strings."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load(text: str) -> Any:
    """Load one YAML document, keeping timestamps as strings.

    Raises:
        yaml.YAMLError: when the text is not YAML.
    """
    return yaml.load(text, Loader=_Loader)  # noqa: S506  # _Loader is a SafeLoader


def load_all(text: str) -> Iterator[Any]:
    """Load every YAML document of a text, keeping timestamps as strings."""
    return yaml.load_all(text, Loader=_Loader)  # _Loader is a SafeLoader


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
    """The keys down to the first value JSON cannot hold, or None when it holds them all."""
    if isinstance(data, dict | list):
        items = data.items() if isinstance(data, dict) else enumerate(data)
        for key, value in items:
            if isinstance(data, dict) and not isinstance(key, str):
                return [str(key)]
            if (found := _first_not_json(value)) is not None:
                return [key, *found]
        return None
    if isinstance(data, float):
        return None if math.isfinite(data) else []
    return None if data is None or isinstance(data, str | int | bool) else []
