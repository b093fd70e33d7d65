"""protobuf Struct ⇄ plain data, both ways, as cheaply as Python allows.

These conversions are the floor of a call's cost. Where the C codec
(`_structwire.c`) is built, a Struct is converted through its wire bytes, which
protobuf writes and reads in C; otherwise through protobuf's Python API, value by
value, avoiding its generic helpers' per-value type dispatch. Both give the same
data and the same messages (tests hold them to it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from google.protobuf import struct_pb2

_codec: ModuleType | None
try:
    from function.codec import _structwire as _codec
except ImportError:  # built without a C compiler (setup.py)
    _codec = None


def accelerated() -> bool:
    """Tell whether the C codec was built and is in use."""
    return _codec is not None


def plain(struct: struct_pb2.Struct) -> dict[str, Any]:
    """Convert a Struct to a dict, turning integral numbers back into ints.

    protobuf Structs store every number as a double; Kubernetes fields such as
    `replicas` must come out as integers, so `3.0` becomes `3` here, once.
    """
    if _codec is not None:
        data: dict[str, Any] = _codec.decode(struct.SerializeToString())
        return data
    return _plain_fields(struct.fields)


def encode(data: dict[str, Any]) -> bytes:
    """A dict as a Struct's wire bytes: what writing it into an empty Struct would serialise.

    Exact JSON types only (a str subclass or a tuple is refused); ints are written
    as the doubles a Struct holds; an empty map or list is written as present.

    Raises:
        TypeError: for a value a Struct cannot hold.
    """
    if _codec is not None:
        written: bytes = _codec.encode(data)
        return written
    struct = struct_pb2.Struct()
    _fill_new(struct.fields, data)
    serialised: bytes = struct.SerializeToString()
    return serialised


def value_of(value: struct_pb2.Value) -> Any:
    """Convert one Struct Value to plain data."""
    # A map or list through the codec; a leaf is read faster than it is serialised.
    if _codec is not None and value.WhichOneof("kind") in ("struct_value", "list_value"):
        return _codec.decode_value(value.SerializeToString())
    return _value_read(value)


def _value_read(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        return _plain_fields(value.struct_value.fields)
    if kind == "list_value":
        return _plain_list(value.list_value.values)
    if kind == "number_value":
        number = value.number_value
        return int(number) if number.is_integer() else number
    if kind == "bool_value":
        return value.bool_value
    return None


# As in value_of, with each leaf read inline: a call per leaf would cost more
# than reading it.


def _plain_fields(fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    # Not fields.items(): protobuf maps take that from Mapping, a Python generator.
    for key in fields:
        item = fields[key]
        kind = item.WhichOneof("kind")
        if kind == "string_value":
            out[key] = item.string_value
        elif kind == "struct_value":
            out[key] = _plain_fields(item.struct_value.fields)
        elif kind == "list_value":
            out[key] = _plain_list(item.list_value.values)
        elif kind == "number_value":
            number = item.number_value
            out[key] = int(number) if number.is_integer() else number
        elif kind == "bool_value":
            out[key] = item.bool_value
        else:
            out[key] = None
    return out


def _plain_list(values: Any) -> list[Any]:
    out: list[Any] = []
    append = out.append
    for item in values:
        kind = item.WhichOneof("kind")
        if kind == "string_value":
            append(item.string_value)
        elif kind == "struct_value":
            append(_plain_fields(item.struct_value.fields))
        elif kind == "list_value":
            append(_plain_list(item.list_value.values))
        elif kind == "number_value":
            number = item.number_value
            append(int(number) if number.is_integer() else number)
        elif kind == "bool_value":
            append(item.bool_value)
        else:
            append(None)
    return out


# The writers below only ever write into values they have just created, so they
# never clear anything first; an empty map or list is marked present explicitly,
# since writing nothing into it would leave the value unset. Leaves are written
# inline: a call per leaf would cost more than the write itself. An int is made a
# float first: protobuf takes a float three times faster (the same double results).


def _fill_new(fields: Any, data: dict[str, Any]) -> None:  # noqa: PLR0912  # a branch per JSON type
    for key, value in data.items():
        kind = type(value)
        if kind is str:
            fields[key].string_value = value
        elif kind is dict:
            if value:
                _fill_new(fields[key].struct_value.fields, value)
            else:
                fields[key].struct_value.SetInParent()
        elif kind is list:
            if value:
                _extend_new(fields[key].list_value.values, value)
            else:
                fields[key].list_value.SetInParent()
        elif kind is int:
            fields[key].number_value = float(value)
        elif kind is float:
            fields[key].number_value = value
        elif kind is bool:
            fields[key].bool_value = value
        elif value is None:
            fields[key].null_value = struct_pb2.NULL_VALUE
        else:
            raise _unsupported(value)


def _extend_new(values: Any, items: list[Any]) -> None:  # noqa: PLR0912  # as above
    add = values.add
    for value in items:
        kind = type(value)
        if kind is str:
            add().string_value = value
        elif kind is dict:
            if value:
                _fill_new(add().struct_value.fields, value)
            else:
                add().struct_value.SetInParent()
        elif kind is list:
            if value:
                _extend_new(add().list_value.values, value)
            else:
                add().list_value.SetInParent()
        elif kind is int:
            add().number_value = float(value)
        elif kind is float:
            add().number_value = value
        elif kind is bool:
            add().bool_value = value
        elif value is None:
            add().null_value = struct_pb2.NULL_VALUE
        else:
            raise _unsupported(value)


def _unsupported(value: Any) -> TypeError:
    return TypeError(f"cannot put a {type(value).__name__} into a protobuf Struct")


class View(Mapping[str, Any]):
    """A read-only dict view of a Struct that converts only the fields it is asked for.

    Observed composed resources are large (a wrapped Deployment carries its manifest
    twice) and status needs a handful of their fields, several of them more than
    once: each field is converted once and kept (a view lives for one call). A map
    read is another View; a list read is converted whole (with the C codec, into
    plain dicts and lists), since the lists status reads are short.
    """

    __slots__ = ("_fields", "_read")

    def __init__(self, struct: struct_pb2.Struct) -> None:
        """Wrap a Struct without converting anything yet."""
        self._fields = struct.fields
        self._read: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        """Convert and return one field."""
        found = self.get(key, _MISSING)
        if found is _MISSING:
            raise KeyError(key)
        return found

    def get(self, key: str, default: Any = None) -> Any:
        """Convert and return one field, or `default` (without Mapping's KeyError round trip)."""
        read = self._read
        if key in read:
            return read[key]
        fields = self._fields
        # `in` first: indexing a protobuf map adds the key.
        if key not in fields:
            return default
        value = read[key] = _view(fields[key])
        return value

    def __contains__(self, key: object) -> bool:
        """Tell whether the field is set."""
        return key in self._fields

    def __iter__(self) -> Iterator[str]:
        """Iterate over the field names."""
        return iter(self._fields)

    def __len__(self) -> int:
        """Count the fields."""
        return len(self._fields)


_MISSING = object()


def _view(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        return View(value.struct_value)
    if kind == "list_value":
        # The lists read from observed objects are short (conditions, triggers):
        # decoded whole, they cost less than a View per item.
        if _codec is not None:
            return _codec.decode_value(value.SerializeToString())
        return [_view(v) for v in value.list_value.values]
    return _value_read(value)
