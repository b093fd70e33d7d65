"""Structs to plain data and back: integral numbers come back as ints, nothing is lost.

Every write is checked on both encoders: the C one (`_structwire.c`) and protobuf's own
`Struct.update`, which stands in where no C compiler was found.
"""

import math
import sys
from enum import IntEnum
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from function.codec import structs
from tests import support
from tests.unit.conftest import NOT_BUILT

needs_c = pytest.mark.skipif(not structs.accelerated(), reason=NOT_BUILT)


def _parsed(data: bytes) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.ParseFromString(data)
    return out


BODIES = [
    {"a": {"b": [{"c": "x", "d": True}], "e": {}}, "f": []},
    {
        "n": None,
        "num": -1.25,
        "big": 10**15,
        "text": "ünïcode ☃ 𝄞",
        "nested": [[1, [2, {"x": None}]]],
        "no": False,
        "zero": 0,
        "negative": -7,
        "tiny": 5e-324,
        "": "an empty key",
    },
    {"empty": [{}, [], {"e": []}, [[]]], "map": {"e": {}}},
    {"long": "x" * 300, "many": list(range(200)), "wide": {f"k{i}": i for i in range(150)}},
    {},
]


def test_integral_numbers_become_ints_and_others_stay_floats(codec: str) -> None:
    data = structs.plain(support.struct({"replicas": 3, "ratio": 0.5, "list": [1, 2.5], "n": None}))
    assert data == {"replicas": 3, "ratio": 0.5, "list": [1, 2.5], "n": None}
    assert type(data["replicas"]) is int
    assert type(data["list"][0]) is int


def test_numbers_protobuf_cannot_call_integral_stay_floats(codec: str) -> None:
    data = structs.plain(support.struct({"inf": math.inf, "nan": math.nan, "negzero": -0.0}))
    assert data["inf"] == math.inf
    assert math.isnan(data["nan"])
    # -0.0.is_integer() holds, so it comes back as int 0, as int(-0.0) is.
    assert data["negzero"] == 0
    assert type(data["negzero"]) is int


@pytest.mark.parametrize("body", BODIES)
def test_encode_writes_what_struct_update_writes_and_plain_reads_it_back(
    codec: str, body: dict[str, Any]
) -> None:
    written = _parsed(structs.encode(body))
    assert written == support.struct(body)
    assert written.SerializeToString(deterministic=True) == support.struct(body).SerializeToString(
        deterministic=True
    )
    assert structs.plain(written) == body
    assert structs.value_of(struct_pb2.Value(struct_value=written)) == body


def test_encode_refuses_what_json_cannot_hold(codec: str) -> None:
    for bad in [{"bad": {1, 2}}, {"list": [[b"x"]]}]:
        with pytest.raises((TypeError, ValueError)):
            structs.encode(bad)
    with pytest.raises(OverflowError):
        structs.encode({"huge": 10**400})


@needs_c
def test_the_c_encoder_refuses_all_but_exact_json_types_and_names_them() -> None:
    class Level(IntEnum):
        HIGH = 1

    class Name(str):
        pass

    for bad, kind in [
        ({"bad": {1, 2}}, "set"),
        ({"list": [[b"x"]]}, "bytes"),
        ({"tuple": (1, 2)}, "tuple"),
        ({"enum": Level.HIGH}, "Level"),
        ({"subclass": Name("x")}, "Name"),
    ]:
        with pytest.raises(TypeError, match=f"cannot put a {kind} into a protobuf Struct"):
            structs.encode(bad)
    with pytest.raises(TypeError):
        structs.encode({1: "a key that is no string"})  # type: ignore[dict-item]
    with pytest.raises(OverflowError):
        structs.encode({"huge": 10**400})


def test_encode_refuses_nesting_deeper_than_python_recursion(codec: str) -> None:
    deep: list[Any] = []
    for _ in range(sys.getrecursionlimit() + 100):
        deep = [deep]
    with pytest.raises(RecursionError):
        structs.encode({"deep": deep})


def json_data(
    *, keys: int, items: int, leaves: int, nan: bool, bound: int, text: int | None = None
) -> st.SearchStrategy[Any]:
    """JSON-like data: maps of at most `keys` keys, lists of at most `items` items."""
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-bound, max_value=bound)
        | st.floats(allow_nan=nan)
        | st.text(max_size=text),
        lambda inner: (
            st.lists(inner, max_size=items) | st.dictionaries(st.text(), inner, max_size=keys)
        ),
        max_leaves=leaves,
    )


# No NaN: messages holding one are never equal.
JSON = json_data(keys=4, items=4, leaves=30, nan=False, bound=2**53)


def _by_protobuf(run: Any, *args: Any) -> Any:
    """`run` without the C codec: through protobuf's API."""
    encoder = structs._encoder
    try:
        structs._encoder = None
        return run(*args)
    finally:
        structs._encoder = encoder


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), JSON, max_size=6))
def test_both_encoders_write_the_same_messages(body: dict[str, Any]) -> None:
    written = structs.encode(body)
    reference = _by_protobuf(structs.encode, body)
    assert _parsed(written) == _parsed(reference)
    assert structs.plain(_parsed(written)) == body


# Maps of one key at most: protobuf writes a map's entries in its own hash order,
# so only where that order cannot differ can bytes be compared.
SINGLE_KEYED = json_data(keys=1, items=150, leaves=200, nan=True, bound=2**60, text=300)


@needs_c
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), SINGLE_KEYED, max_size=1))
def test_the_c_encoder_writes_the_bytes_protobuf_writes(body: dict[str, Any]) -> None:
    struct = struct_pb2.Struct()
    struct.update(body)
    # Every tag, length (one byte or several) and number exactly as protobuf writes it.
    assert structs.encode(body) == struct.SerializeToString()


def test_a_view_reads_fields_as_plain_data_and_never_adds_one() -> None:
    struct = support.struct(
        {"status": {"conditions": [{"type": "Ready", "status": "True"}], "replicas": 2.0}}
    )
    view = structs.View(struct)
    status = view["status"]
    assert isinstance(status, structs.View)
    assert status.get("replicas") == 2
    assert type(status.get("replicas")) is int
    assert status["conditions"][0].get("type") == "Ready"
    assert "missing" not in view
    assert view.get("missing") is None
    assert view.get("missing", "default") == "default"
    with pytest.raises(KeyError):
        view["missing"]
    # Indexing a protobuf map adds the key: the view must never do that.
    assert set(struct.fields) == {"status"}
    assert dict(status) == {"conditions": status["conditions"], "replicas": 2}


@given(st.dictionaries(st.text(), JSON, max_size=6))
def test_views_read_back_what_plain_data_holds(body: dict[str, Any]) -> None:
    """A View, and the views inside its lists, read every value as converting it whole does."""

    def unview(value: Any) -> Any:
        if isinstance(value, structs.View):
            return {key: unview(value[key]) for key in value}
        if isinstance(value, list):
            return [unview(item) for item in value]
        return value

    struct = support.struct(body)
    assert unview(structs.View(struct)) == structs.plain(struct)


def test_a_list_read_through_a_view_is_a_list_of_views_and_scalars() -> None:
    struct = support.struct({"items": [{"a": 1}, "two", 3.5, [4]]})
    items = structs.View(struct)["items"]
    assert isinstance(items, list)
    assert isinstance(items[0], structs.View)
    assert items[0]["a"] == 1
    assert items[1:] == ["two", 3.5, [4]]
    # Read once and kept: the same views on every read.
    assert structs.View(struct)["items"] is not items
    view = structs.View(struct)
    assert view["items"] is view["items"]


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), json_data(keys=5, items=4, leaves=40, nan=False, bound=2**70)))
def test_both_readers_read_the_same_data_key_order_included(body: dict[str, Any]) -> None:
    # Key order too: what is read is rendered, and the answer's bytes follow it.
    struct = struct_pb2.Struct()
    struct.update(body)
    read, reference = structs.plain(struct), _by_protobuf(structs.plain, struct)
    assert read == reference
    assert repr(read) == repr(reference)
    for key in struct.fields:
        value = struct.fields[key]
        assert repr(structs.value_of(value)) == repr(_by_protobuf(structs.value_of, value))


@needs_c
def test_the_c_reader_takes_what_protobuf_takes_of_repeated_and_unknown_fields() -> None:
    # A key given twice keeps its last value; an unknown field is skipped; a Value
    # holding nothing reads as None.
    twice = structs.encode({"a": 1}) + structs.encode({"a": "last"})
    unknown = b"\x10\x07" + structs.encode({"b": True})
    empty_value = b"\x0a\x05\x0a\x01c\x12\x00"
    for data in (twice, unknown, empty_value):
        assert structs.plain(_parsed(data)) == structs._encoder.decode(data)  # type: ignore[union-attr]


@needs_c
@pytest.mark.parametrize(
    "data",
    [b"\x0a", b"\x0a\x05\x0a\x01a", b"\x0a\x03\x0a\x01\xff", b"\x0b", b"\x0a\x02\x12\x80"],
    ids=["no length", "past the end", "not UTF-8", "a group", "a cut varint"],
)
def test_the_c_reader_refuses_malformed_bytes(data: bytes) -> None:
    with pytest.raises(ValueError, match=r"malformed|utf-8|decode"):
        structs._encoder.decode(data)  # type: ignore[union-attr]


@needs_c
def test_a_canonical_layout_of_the_wrong_shape_keeps_the_field_as_it_came() -> None:
    # A map's layout is a one-tuple; an empty one was read past its end.
    data = fnv1.RunFunctionRequest(context={"b": 1, "a": 2}).SerializeToString()
    number = fnv1.RunFunctionRequest.DESCRIPTOR.fields_by_name["context"].number
    codec = structs.codec()
    assert codec is not None
    assert codec.canonical(data, [None] * number + [()]) == data
