"""A response as it goes on the wire: a protobuf message, then desired state written as bytes.

Writing the composed resources into the response's Structs through protobuf's
Python API costs more than everything else a call does; `structs.encode` writes
their bytes directly instead, and this module puts those bytes where Crossplane
reads them. protobuf merges a message field that occurs twice and keeps the last
entry of a map key, so bytes that follow a serialised message decode as if they
had been written into it: a Struct key they carry replaces the message's own, as
writing the key into the Struct would have.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2
from google.protobuf.descriptor import Descriptor

_LENGTH_DELIMITED = 2
_VARINT = 0


def varint(value: int) -> bytes:
    """A protobuf varint: seven bits a byte, the lowest first."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tag(message: Descriptor, field: str, wire_type: int) -> bytes:
    number: int = message.fields_by_name[field].number
    return varint(number << 3 | wire_type)


# Each tag once, from the descriptors: the field numbers are protobuf's, not ours.
_RESPONSE = fnv1.RunFunctionResponse.DESCRIPTOR
_DESIRED = _tag(_RESPONSE, "desired", _LENGTH_DELIMITED)
_CONTEXT = _tag(_RESPONSE, "context", _LENGTH_DELIMITED)
_COMPOSITE = _tag(fnv1.State.DESCRIPTOR, "composite", _LENGTH_DELIMITED)
_RESOURCES = _tag(fnv1.State.DESCRIPTOR, "resources", _LENGTH_DELIMITED)
_RESOURCE = _tag(fnv1.Resource.DESCRIPTOR, "resource", _LENGTH_DELIMITED)
_READY = _tag(fnv1.Resource.DESCRIPTOR, "ready", _VARINT)
_FIELDS = _tag(struct_pb2.Struct.DESCRIPTOR, "fields", _LENGTH_DELIMITED)
_STRUCT_VALUE = _tag(struct_pb2.Value.DESCRIPTOR, "struct_value", _LENGTH_DELIMITED)
# A map entry is a message of a key (field 1) and a value (field 2), for every map.
_ENTRY_KEY = varint(1 << 3 | _LENGTH_DELIMITED)
_ENTRY_VALUE = varint(2 << 3 | _LENGTH_DELIMITED)


# Most lengths here fit one byte.
_ONE_BYTE = [bytes((size,)) for size in range(0x80)]


def _delimited(tag: bytes, payload: bytes) -> bytes:
    size = len(payload)
    return tag + (_ONE_BYTE[size] if size < 0x80 else varint(size)) + payload


def _entry(key: str, value: bytes) -> bytes:
    return _delimited(_ENTRY_KEY, key.encode()) + _delimited(_ENTRY_VALUE, value)


@dataclass
class Answer:
    """A response: its message, the bytes appended to it, and what to do once it is sent.

    The appended bytes are the desired state and the context this function writes.
    """

    response: fnv1.RunFunctionResponse
    appended: bytes = b""
    # What to do once the response is on its way (a log line); never part of it.
    after_sending: tuple[Callable[[], None], ...] = ()

    def serialise(self) -> bytes:
        """The response's bytes, as gRPC sends them."""
        data: bytes = self.response.SerializeToString()
        return data + self.appended

    def message(self) -> fnv1.RunFunctionResponse:
        """The response as one message, as Crossplane reads it."""
        parsed: fnv1.RunFunctionResponse = fnv1.RunFunctionResponse.FromString(self.serialise())
        return parsed


def struct_entry(key: str, struct_fields: bytes) -> bytes:
    """A Struct's `key` holding a Struct, as Struct bytes, from that Struct's own bytes."""
    return _delimited(_FIELDS, _entry(key, _delimited(_STRUCT_VALUE, struct_fields)))


def desired(
    head: fnv1.RunFunctionResponse,
    composite_fields: bytes,
    resources: Mapping[str, tuple[bytes, int]],
) -> bytes:
    """The desired XR's fields and each composed resource (its Struct's bytes, its `Ready`).

    The keys in `composite_fields` replace the same keys of the desired XR in `head`.
    A resource that `head` already desires under the same name (an earlier step's)
    is moved out of `head` into its entry here, before this one's fields: its other
    keys and its connection details stay, and the keys written here replace its own.
    """
    parts = [_delimited(_COMPOSITE, _delimited(_RESOURCE, composite_fields))]
    earlier = head.desired.resources
    for name, (fields, ready) in resources.items():
        before = b""
        if name in earlier:
            before = earlier[name].SerializeToString()
            del earlier[name]
        resource = before + _delimited(_RESOURCE, fields) + _READY + varint(ready)
        parts.append(_delimited(_RESOURCES, _entry(name, resource)))
    return _delimited(_DESIRED, b"".join(parts))


def context(struct_fields: bytes) -> bytes:
    """Context fields (a Struct's bytes) that replace the same keys of the context in the head."""
    return _delimited(_CONTEXT, struct_fields)
