"""How deeply the C codec nests: exactly as deep as protobuf reads, whatever Python allows.

The codec counts nesting as protobuf's decoder does (every Struct, map entry, Value and
ListValue a level) and refuses past the same limit with a RecursionError of its own,
however high Python's recursion limit is set: its recursion is on the C stack, which
Python's limit does not size. `function.codec.structs` then writes or reads such data
through protobuf's API, as it does where the codec was not built, so both give the
same answers at every depth.
"""

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import message, struct_pb2

from function.codec import canonical, nesting, response, structs
from tests import support
from tests.unit.conftest import NOT_BUILT

needs_c = pytest.mark.skipif(not structs.accelerated(), reason=NOT_BUILT)

TOO_DEEP = r"nested more than 100 levels deep"


@pytest.fixture
def unlimited_python() -> Iterator[None]:
    """Python's recursion limit far above the codec's: only the codec's own cap can stop it."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    yield
    sys.setrecursionlimit(limit)


def _nested(levels: int, kind: str) -> dict[str, Any]:
    """`levels` lists, maps or both in turn, one inside the other, under one key."""
    value: Any = "leaf"
    for level in range(levels):
        as_list = kind == "list" or (kind == "mixed" and level % 2 == 0)
        value = [value] if as_list else {"k": value}
    return {"top": value}


def _by_protobuf(data: dict[str, Any]) -> bytes:
    written: bytes = support.struct(data).SerializeToString()
    return written


def _protobuf_reads(data: bytes, kind: type[message.Message]) -> bool:
    try:
        kind.FromString(data)
    except message.DecodeError as exc:
        if "MaxDepth" not in str(exc):
            raise
        return False
    return True


# Each kind across protobuf's limit: a list costs 2 levels (ListValue, Value), a map 3
# (Struct, entry, Value).
DEPTHS = [(kind, levels) for kind in ("list", "dict", "mixed") for levels in range(28, 54)]


def _codec() -> Any:
    codec = structs.codec()
    assert codec is not None
    return codec


@needs_c
def test_the_codec_caps_nesting_at_protobufs_limit() -> None:
    assert _codec().MAX_DEPTH == nesting.PROTOBUF_MAX_DEPTH


@needs_c
@pytest.mark.usefixtures("unlimited_python")
@pytest.mark.parametrize(("kind", "levels"), DEPTHS)
def test_the_c_encoder_refuses_exactly_what_protobuf_cannot_read_back(
    kind: str, levels: int
) -> None:
    data = _nested(levels, kind)
    reference = _by_protobuf(data)
    if _protobuf_reads(reference, struct_pb2.Struct):
        # Maps of one key: the very bytes protobuf writes.
        assert _codec().encode(data) == reference
    else:
        with pytest.raises(RecursionError, match=TOO_DEEP):
            _codec().encode(data)


@needs_c
@pytest.mark.usefixtures("unlimited_python")
@pytest.mark.parametrize(("kind", "levels"), DEPTHS)
def test_the_c_decoder_refuses_exactly_what_protobuf_refuses(kind: str, levels: int) -> None:
    data = _nested(levels, kind)
    struct = _by_protobuf(data)
    if _protobuf_reads(struct, struct_pb2.Struct):
        assert _codec().decode(struct) == data
    else:
        with pytest.raises(RecursionError, match=TOO_DEEP):
            _codec().decode(struct)
    # A Value on its own counts from itself, as protobuf's Value.FromString does.
    value = support.struct(data).fields["top"].SerializeToString()
    if _protobuf_reads(value, struct_pb2.Value):
        assert _codec().decode_value(value) == data["top"]
    else:
        with pytest.raises(RecursionError, match=TOO_DEEP):
            _codec().decode_value(value)


@needs_c
@pytest.mark.usefixtures("unlimited_python")
@pytest.mark.parametrize(("kind", "levels"), DEPTHS[::5])
def test_canonical_bytes_refuse_exactly_what_protobuf_refuses(kind: str, levels: int) -> None:
    # The request's bytes put together: protobuf copies a Struct into a request by
    # reading it back, which it refuses past its limit.
    context = _by_protobuf(_nested(levels, kind))
    number = fnv1.RunFunctionRequest.DESCRIPTOR.fields_by_name["context"].number
    written = response.varint(number << 3 | 2) + response.varint(len(context)) + context
    if _protobuf_reads(written, fnv1.RunFunctionRequest):
        sorted_bytes = canonical.canonical(written, fnv1.RunFunctionRequest)
        assert sorted_bytes == written  # one key a map: nothing to reorder
    else:
        with pytest.raises(ValueError, match="nested too deeply"):
            canonical.canonical(written, fnv1.RunFunctionRequest)


def test_every_depth_reaches_both_sides_of_the_limit() -> None:
    readable = {_protobuf_reads(_by_protobuf(_nested(n, k)), struct_pb2.Struct) for k, n in DEPTHS}
    assert readable == {True, False}


# Far past what the C stack holds, with Python's limit further still: without a cap of
# its own the codec recursed until the process crashed. In a process of its own, so
# that such a crash fails this test, not the run.
DEEPER_THAN_THE_STACK = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("function.codec._structwire", sys.argv[1])
codec = importlib.util.module_from_spec(spec)
spec.loader.exec_module(codec)
print(codec.__file__)


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def wire_of(levels):
    # A Value holding a list holding a Value...: each length worked out from the inside,
    # then written from the outside in.
    leaf = b"\\x1a\\x04leaf"
    sizes = [len(leaf)]
    for _ in range(2 * levels):
        sizes.append(1 + len(varint(sizes[-1])) + sizes[-1])
    tags = [b"\\x32", b"\\x0a"] * levels  # Value.list_value, ListValue.values
    return b"".join(tag + varint(sizes[-2 - i]) for i, tag in enumerate(tags)) + leaf


assert codec.decode_value(wire_of(3)) == [[["leaf"]]]
sys.setrecursionlimit(10**7)
levels = 300_000
deep = "leaf"
for _ in range(levels):
    deep = [deep]
wire = wire_of(levels)
for name, run in (
    ("encode", lambda: codec.encode({"deep": deep})),
    ("decode_value", lambda: codec.decode_value(wire)),
):
    try:
        run()
    except RecursionError as exc:
        print(name, exc)
    else:
        raise SystemExit(name + " read it all")
"""


@needs_c
@pytest.mark.slow
def test_data_deeper_than_the_c_stack_is_refused_not_a_crash() -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(DEEPER_THAN_THE_STACK), _codec().__file__],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("nested more than 100 levels deep") == 2, done.stdout


@pytest.mark.usefixtures("unlimited_python")
@pytest.mark.parametrize(("kind", "levels"), [("dict", 40), ("list", 60), ("mixed", 48)])
def test_data_deeper_than_protobuf_reads_is_written_and_read_as_without_the_codec(
    codec: str, kind: str, levels: int
) -> None:
    # Past the codec's cap, structs uses protobuf's API: the same answers either way.
    data = _nested(levels, kind)
    struct = support.struct(data)
    assert not _protobuf_reads(struct.SerializeToString(), struct_pb2.Struct)
    # Maps of one key: protobuf's very bytes. (Read back, protobuf would refuse them.)
    assert structs.encode(data) == struct.SerializeToString()
    assert structs.plain(struct) == data
    value = struct_pb2.Value()
    value.struct_value.update(data)
    assert structs.value_of(value) == data
