"""protobuf Struct ⇄ plain data: the one interface every stage reads and writes Structs through.

Where the C codec (`_structwire.c`) was built, a Struct read whole is serialised
and read from its bytes in C, and writing goes through it too; otherwise reading
goes through protobuf's API, value by value, and writing through protobuf's own
`Struct.update`. Both read the same data, key order included, and write the same
messages (tests hold them to it). A View reads only the fields asked for, through
protobuf's API.

The C codec refuses data nested deeper than protobuf reads (`_structwire.MAX_DEPTH`
messages, codec.nesting) with a RecursionError; such data is read and written through
protobuf's API, as without the codec, so both give the same answers at any depth.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any

from google.protobuf import struct_pb2

_encoder: ModuleType | None
try:
    from function.codec import _structwire as _encoder
except ImportError:  # built without a C compiler (setup.py)
    _encoder = None


def accelerated() -> bool:
    """Tell whether the C encoder was built and is in use."""
    return _encoder is not None


def codec() -> ModuleType | None:
    """The C codec where it was built and is in use, else None (codec.canonical reads with it)."""
    return _encoder


def encode(data: dict[str, Any]) -> bytes:
    """A dict as a Struct's wire bytes: what writing it into an empty Struct would serialise.

    Ints are written as the doubles a Struct holds; an empty map or list is written
    as present.

    Raises:
        TypeError: (ValueError without the C encoder) for a value a Struct cannot hold.
    """
    if _encoder is not None:
        try:
            written: bytes = _encoder.encode(data)
        except RecursionError:  # deeper than protobuf reads: its API writes it, as below
            return _encoded(data)
        return written
    return _encoded(data)


def _encoded(data: dict[str, Any]) -> bytes:
    struct = struct_pb2.Struct()
    struct.update(data)
    serialised: bytes = struct.SerializeToString()
    return serialised


def plain(struct: struct_pb2.Struct) -> dict[str, Any]:
    """Convert a Struct to a dict, turning integral numbers back into ints.

    protobuf Structs store every number as a double; Kubernetes fields such as
    `replicas` must come out as integers, so `3.0` becomes `3` here, once.
    """
    if _encoder is not None:
        # Serialised and read in C: a fifth of what reading it value by value costs.
        try:
            decoded: dict[str, Any] = _encoder.decode(struct.SerializeToString())
        except RecursionError:  # deeper than protobuf reads: read through its API, as below
            return _plain(struct)
        return decoded
    return _plain(struct)


def _plain(struct: struct_pb2.Struct) -> dict[str, Any]:
    fields = struct.fields
    # Not fields.items(): protobuf maps take that from Mapping, a Python generator.
    return {key: _value_of(fields[key]) for key in fields}


def readable(struct: struct_pb2.Struct) -> Mapping[str, Any]:
    """A Struct to read from: converted whole where the C codec was built, else a View.

    Whole in C costs less than a View's reads of the fields status needs; value by
    value in Python, a View's reads cost less.
    """
    return plain(struct) if _encoder is not None else View(struct)


def value_of(value: struct_pb2.Value) -> Any:
    """One Struct Value as plain data (as `plain` converts a map's values)."""
    if _encoder is not None:
        try:
            return _encoder.decode_value(value.SerializeToString())
        except RecursionError:  # deeper than protobuf reads: read through its API, as below
            pass
    return _value_of(value)


def _converter(maps: Callable[[struct_pb2.Struct], Any]) -> Callable[[struct_pb2.Value], Any]:
    """A Value converter that hands each map to `maps`: converted whole, or as a view."""

    def convert(value: struct_pb2.Value) -> Any:
        kind = value.WhichOneof("kind")
        if kind == "string_value":
            return value.string_value
        if kind == "struct_value":
            return maps(value.struct_value)
        if kind == "list_value":
            return [convert(item) for item in value.list_value.values]
        if kind == "number_value":
            number = value.number_value
            return int(number) if number.is_integer() else number
        if kind == "bool_value":
            return value.bool_value
        return None

    return convert


# One Struct Value as plain data, read through protobuf's API.
_value_of = _converter(plain)


class View(Mapping[str, Any]):
    """A read-only dict view of a Struct that converts only the fields it is asked for.

    Observed objects are large (a wrapped Deployment carries its manifest twice, a
    Pod its managed fields and every container's status) and status needs a handful
    of their fields, several of them more than once: each field is converted once
    and kept (a view lives for one call). A map read is another view; a list read, a
    list of views (and scalars).
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
        found = self._read.get(key, _MISSING)
        if found is not _MISSING:
            return found
        fields = self._fields
        # `in` first: indexing a protobuf map adds the key.
        if key not in fields:
            return default
        found = self._read[key] = _viewed(fields[key])
        return found

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


# A Value as a view reads it: a map as another view, a list as a list of views (shallow:
# each item converted no deeper than it is read).
_viewed = _converter(View)
