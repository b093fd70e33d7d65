"""A message's bytes with every map's entries in one order: the same content, the same bytes.

Crossplane's Go marshaller writes map entries in a random order, so two calls with the
same content arrive as different bytes. protobuf's deterministic serialisation sorts
them, but only after the whole message is decoded; the C codec (`_structwire.c`)
sorts them in the bytes themselves, at a fraction of that cost, guided by a layout
read once from the message's descriptor.
"""

from __future__ import annotations

import functools
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from function.codec import structs

Layout = list[Any]


@functools.cache
def layout(message: Descriptor) -> Layout:
    """The layout of a message's fields, for `canonical`: what is a message, what a map.

    A list indexed by field number: a message field holds its message's layout, a map
    field a one-tuple of its entries' layout (None where the values are scalars),
    anything else None. Layouts of recursive messages (a Struct's Values hold
    Structs) hold themselves.
    """
    known: dict[str, Layout] = {}
    return _numbered({f.number: _field(f, known) for f in message.fields})


def _numbered(by_number: dict[int, Any], into: Layout | None = None) -> Layout:
    found = into if into is not None else []
    found[:] = [by_number.get(n) for n in range(max(by_number, default=0) + 1)]
    return found


def _message(message: Descriptor, known: dict[str, Layout]) -> Layout:
    if message.full_name not in known:
        # Known before its fields are read: a field of its own type finds it.
        found: Layout = []
        known[message.full_name] = found
        fields = [f for f in message.fields if f.type == FieldDescriptor.TYPE_MESSAGE]
        _numbered({f.number: _field(f, known) for f in fields}, into=found)
    return known[message.full_name]


def _field(field: FieldDescriptor, known: dict[str, Layout]) -> Any:
    if field.type != FieldDescriptor.TYPE_MESSAGE:
        return None
    entry = field.message_type
    if entry.GetOptions().map_entry:
        # An entry whose value holds no message is taken as it is.
        value = entry.fields_by_name["value"]
        if value.message_type is None:
            return (None,)
        return (_numbered({value.number: _message(value.message_type, known)}),)
    return _message(entry, known)


def canonical(data: bytes, message: type[Message]) -> bytes:
    """The fields `message` declares of a message's bytes, every map's entries sorted.

    `message` reads only some fields of the message the bytes hold (as
    serving.request's parts do); the rest is dropped. Equal for two encodings of
    the same content that differ only in map order. Without the C codec, decoded and
    serialised deterministically.

    Raises:
        ValueError: (DecodeError without the C codec) for bytes protobuf could not decode.
    """
    codec = structs.codec()
    if codec is None:
        part = message.FromString(data)
        part.DiscardUnknownFields()  # the rest of the message, as it came
        found: bytes = part.SerializeToString(deterministic=True)
        return found
    sorted_bytes: bytes = codec.canonical(data, layout(message.DESCRIPTOR))
    return sorted_bytes
