"""protobuf Struct ⇄ plain data, both ways, as cheaply as Python allows.

These conversions are the floor of a call's cost, so they avoid the generic
protobuf helpers' per-value type dispatch.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from google.protobuf import struct_pb2


def plain(struct: struct_pb2.Struct) -> dict[str, Any]:
    """Convert a Struct to a dict, turning integral numbers back into ints.

    protobuf Structs store every number as a double; Kubernetes fields such as
    `replicas` must come out as integers, so `3.0` becomes `3` here, once.
    """
    return {key: value_of(item) for key, item in struct.fields.items()}


def value_of(value: struct_pb2.Value) -> Any:
    """Convert one Struct Value to plain data."""
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return {key: value_of(v) for key, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [value_of(v) for v in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        return int(number) if number.is_integer() else number
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    return None


def fill(struct: struct_pb2.Struct, data: dict[str, Any]) -> None:
    """Write a dict of JSON-like data into a Struct (keys already there are replaced)."""
    fields = struct.fields
    for key, value in data.items():
        _set(fields[key], value)


def _set(target: struct_pb2.Value, value: Any) -> None:
    kind = type(value)
    if kind is str:
        target.string_value = value
    elif kind is dict:
        target.struct_value.Clear()
        fill(target.struct_value, value)
    elif kind is list:
        target.list_value.Clear()
        values = target.list_value.values
        for item in value:
            _set(values.add(), item)
    elif kind is bool:
        target.bool_value = value
    elif kind is int or kind is float:
        target.number_value = value
    elif value is None:
        target.null_value = struct_pb2.NULL_VALUE
    else:
        raise TypeError(f"cannot put a {kind.__name__} into a protobuf Struct")


class View(Mapping[str, Any]):
    """A read-only dict view of a Struct that converts only the fields it is asked for.

    Observed composed resources are large (a wrapped Deployment carries its manifest
    twice) and status needs a handful of their fields.
    """

    __slots__ = ("_fields",)

    def __init__(self, struct: struct_pb2.Struct) -> None:
        """Wrap a Struct without converting anything yet."""
        self._fields = struct.fields

    def __getitem__(self, key: str) -> Any:
        """Convert and return one field."""
        # `in` first: indexing a protobuf map inserts missing keys.
        if key not in self._fields:
            raise KeyError(key)
        return _view(self._fields[key])

    def __iter__(self) -> Iterator[str]:
        """Iterate over the field names."""
        return iter(self._fields)

    def __len__(self) -> int:
        """Count the fields."""
        return len(self._fields)


def _view(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return View(value.struct_value)
    if kind == "list_value":
        return [_view(v) for v in value.list_value.values]
    return value_of(value)
