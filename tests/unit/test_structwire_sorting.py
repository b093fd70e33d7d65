"""The C codec's canonical bytes: every map's entries sorted, with no state outside the call.

`_structwire.canonical` sorts a map's entries by their bytes. The order is the response
cache's key, so it must never move: these tests pin it on maps of many keys (keys that
share prefixes, keys of one and of two length bytes, non-ASCII keys) and hold the sort
to needing nothing but its own arguments.
"""

import hashlib
import random
import re
from pathlib import Path
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2

from function.codec import canonical, response, structs
from tests.unit.conftest import NOT_BUILT

pytestmark = pytest.mark.skipif(not structs.accelerated(), reason=NOT_BUILT)

SOURCE = Path(structs.__file__).with_name("_structwire.c")

# Keys sharing prefixes, of one and two length bytes (130 characters), below and above
# ASCII, and many: the entries' bytes differ late, or only in their length.
KEYS = [
    "",
    "a",
    "aa",
    "ab",
    "a" * 130,
    "a" * 129 + "b",
    "b",
    "ba",
    "e",
    "é",
    "ü",
    "üx",
    "日本",
    "日本語",
    "😀",
    "\x7f",
    "\x80",
    "k/1",
    "k/10",
    "k/2",
    *(f"key-{i:03}" for i in range(300)),
    *("p" * n for n in range(1, 40)),
]


def _value(i: int, key: str) -> Any:
    # Values of several kinds and lengths, some of them maps of the same keys.
    kinds = [
        i,
        f"{key}!",
        {k: n for n, k in enumerate(KEYS[: 1 + i % 9])},
        [i, {"x": key}],
        i % 2 == 0,
        None,
    ]
    return kinds[i % len(kinds)]


def _request() -> fnv1.RunFunctionRequest:
    request = fnv1.RunFunctionRequest()
    request.context.update({key: _value(i, key) for i, key in enumerate(KEYS)})
    for i, key in enumerate(KEYS[:60]):
        item = request.extra_resources[key].items.add()
        item.resource.update({k: _value(i + n, k) for n, k in enumerate(KEYS[i : i + 12])})
        for k in KEYS[i : i + 5]:
            item.connection_details[k] = k.encode()
    return request


def _body(field: bytes) -> bytes:
    """A length-delimited field's body: what follows its tag and its length."""
    at = 1
    while field[at] >= 0x80:
        at += 1
    return field[at + 1 :]


def _entries(data: bytes) -> list[bytes]:
    """A Struct's entries (field 1), each whole as it is on the wire: tag, length, body."""
    found = []
    while data:
        assert data[0] == 0x0A
        size, shift, at = 0, 0, 1
        while True:
            size |= (data[at] & 0x7F) << shift
            shift += 7
            at += 1
            if data[at - 1] < 0x80:
                break
        found.append(data[: at + size])
        data = data[at + size :]
    return found


def _shuffled(struct: struct_pb2.Struct, seed: int) -> bytes:
    """A Struct's bytes with its entries in a random order, as Go's marshaller sends them."""
    entries = _entries(struct.SerializeToString())
    random.Random(seed).shuffle(entries)
    return b"".join(entries)


def _context_bytes(body: bytes) -> bytes:
    """A request holding only a context whose Struct's bytes are `body`."""
    number = fnv1.RunFunctionRequest.DESCRIPTOR.fields_by_name["context"].number
    return response.varint(number << 3 | 2) + response.varint(len(body)) + body


def test_a_maps_entries_come_out_sorted_by_their_bytes() -> None:
    struct = _request().context
    data = canonical.canonical(_context_bytes(struct.SerializeToString()), fnv1.RunFunctionRequest)
    assert fnv1.RunFunctionRequest.FromString(data).context == struct
    entries = _entries(_body(data))
    assert len(entries) == len(KEYS)
    assert entries == sorted(entries)


@pytest.mark.parametrize("seed", range(5))
def test_any_order_of_the_entries_gives_the_same_bytes(seed: int) -> None:
    struct = _request().context
    reference = canonical.canonical(
        _context_bytes(struct.SerializeToString()), fnv1.RunFunctionRequest
    )
    shuffled = _context_bytes(_shuffled(struct, seed))
    assert canonical.canonical(shuffled, fnv1.RunFunctionRequest) == reference


def test_the_order_is_the_one_the_cache_has_always_keyed_on() -> None:
    # The digest of this request's canonical bytes as the codec wrote them before its
    # sort lost its global: a change of order would change every cache key.
    data = canonical.canonical(_request().SerializeToString(), fnv1.RunFunctionRequest)
    assert hashlib.sha256(data).hexdigest() == GOLDEN


def test_the_codec_keeps_no_mutable_state_between_calls() -> None:
    # A file-scope variable is shared by every call, every thread and every
    # interpreter; the sort once kept its base pointer in one. Only the module's
    # definition tables, which Python owns, may be static.
    source = re.sub(r"/\*.*?\*/", "", SOURCE.read_text(), flags=re.DOTALL)
    statics = re.findall(r"^static\s+([^(;{=]*?)\s*(?:\[\]\s*)?(?:=|;)", source, re.MULTILINE)
    names = {declaration.split()[-1].lstrip("*") for declaration in statics}
    assert names <= {"methods", "module"}, names


GOLDEN = "d6a2da609e2063f1e43f9db69477b581e4ba0dae24daea7541d5495cbc74815d"
