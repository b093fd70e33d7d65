"""Structs to plain data and back: integral numbers come back as ints, nothing is lost.

Every conversion is checked on both codecs: the C one (`_structwire.c`) and the one
through protobuf's Python API that stands in where no C compiler was found.
"""

import math
import sys
from enum import IntEnum
from types import ModuleType
from typing import Any

import pytest
from google.protobuf import message, struct_pb2
from hypothesis import example, given, settings
from hypothesis import strategies as st

from function.codec import structs
from tests import support

CODECS = ["c", "protobuf"]


NOT_BUILT = "the C codec was not built (no C compiler when the project was installed)"
needs_c = pytest.mark.skipif(not structs.accelerated(), reason=NOT_BUILT)


def _c() -> ModuleType:
    assert structs._codec is not None
    return structs._codec


@pytest.fixture(params=CODECS)
def codec(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with the C codec, then with protobuf's API in its place."""
    if request.param == "c" and not structs.accelerated():
        pytest.skip(NOT_BUILT)
    if request.param == "protobuf":
        monkeypatch.setattr(structs, "_codec", None)
    return str(request.param)


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


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), JSON, max_size=6))
def test_both_codecs_write_and_read_the_same_messages(body: dict[str, Any]) -> None:
    written = structs.encode(body)
    codec = structs._codec
    try:
        structs._codec = None
        reference = structs.encode(body)
        read_by_protobuf = structs.plain(_parsed(written))
    finally:
        structs._codec = codec
    assert _parsed(written) == _parsed(reference)
    assert structs.plain(_parsed(written)) == read_by_protobuf


# Maps of one key at most: protobuf writes a map's entries in its own hash order,
# so only where that order cannot differ can bytes be compared.
SINGLE_KEYED = json_data(keys=1, items=150, leaves=200, nan=True, bound=2**60, text=300)


@needs_c
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), SINGLE_KEYED, max_size=1))
def test_the_c_codec_writes_the_bytes_protobuf_writes(body: dict[str, Any]) -> None:
    struct = struct_pb2.Struct()
    structs._fill_new(struct.fields, body)
    # Every tag, length (one byte or several) and number exactly as protobuf writes it.
    assert structs.encode(body) == struct.SerializeToString()


@needs_c
@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
@example(b"kl")  # an empty group of an unknown field: protobuf keeps and writes it back
def test_the_c_decoder_reads_any_bytes_or_refuses_them(data: bytes) -> None:
    try:
        parsed = _parsed(data)
    except message.DecodeError:
        parsed = None
    try:
        decoded = _c().decode(data)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        pass  # refused with a reason: never a crash, never anything but a dict
    else:
        assert isinstance(decoded, dict)
    if parsed is not None:
        # What protobuf accepts and writes back is what the function ever decodes.
        assert _c().decode(parsed.SerializeToString()) == structs.plain(parsed)


@needs_c
@pytest.mark.parametrize(
    "unknown",
    [
        b"\x98\x06\x07",  # field 99, varint
        b"\x99\x06" + bytes(8),  # fixed64
        b"\x9a\x06\x02hi",  # length-delimited
        b"\x9d\x06" + bytes(4),  # fixed32
        b"kl",  # an empty group
        b"k\x08\x01\x73\x74l",  # a group holding a field and a group
    ],
)
def test_the_c_decoder_skips_unknown_fields_protobuf_keeps(unknown: bytes) -> None:
    parsed = _parsed(structs.encode({"a": 1}) + unknown)
    # protobuf writes unknown fields back when it serialises: the decoder must skip them.
    assert parsed.SerializeToString().endswith(unknown)
    assert _c().decode(parsed.SerializeToString()) == {"a": 1} == structs.plain(parsed)


@needs_c
def test_the_c_decoder_names_what_is_malformed() -> None:
    whole = structs.encode({"key": "value"})
    for cut in range(1, len(whole)):
        with pytest.raises(ValueError, match=r"cannot read a protobuf Struct: .* past the end"):
            _c().decode(whole[:cut])
    with pytest.raises(ValueError, match="unknown wire type"):
        _c().decode(b"\x0f")
    with pytest.raises(ValueError, match="a group ends with another field's end"):
        _c().decode(b"kt")
    with pytest.raises(ValueError, match="longer than ten bytes"):
        _c().decode(b"\x0a" + b"\xff" * 11)


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
