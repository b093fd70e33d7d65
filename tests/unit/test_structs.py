"""Structs to plain data and back: integral numbers come back as ints, nothing is lost."""

from typing import Any

import pytest
from google.protobuf import struct_pb2

from function import structs
from tests import support


def test_integral_numbers_become_ints_and_others_stay_floats() -> None:
    data = structs.plain(support.struct({"replicas": 3, "ratio": 0.5, "list": [1, 2.5], "n": None}))
    assert data == {"replicas": 3, "ratio": 0.5, "list": [1, 2.5], "n": None}
    assert type(data["replicas"]) is int
    assert type(data["list"][0]) is int


@pytest.mark.parametrize(
    "body",
    [
        {"a": {"b": [{"c": "x", "d": True}], "e": {}}, "f": []},
        {
            "n": None,
            "num": -1.25,
            "big": 10**15,
            "text": "ünïcode",
            "nested": [[1, [2, {"x": None}]]],
        },
        {"empty": [{}, [], {"e": []}, [[]]], "map": {"e": {}}},
        {},
    ],
)
def test_fill_writes_what_struct_update_writes_and_plain_reads_it_back(
    body: dict[str, Any],
) -> None:
    filled = struct_pb2.Struct()
    structs.fill(filled, body)
    assert filled == support.struct(body)
    assert filled.SerializeToString(deterministic=True) == support.struct(body).SerializeToString(
        deterministic=True
    )
    assert structs.plain(filled) == body


def test_fill_replaces_keys_already_present() -> None:
    target = support.struct(
        {"spec": {"old": 1, "list": [1, 2, 3]}, "kept": True, "was": {"a": 1}, "gone": [1]}
    )
    structs.fill(target, {"spec": {"new": 2, "list": [9]}, "was": "text", "gone": {}})
    assert target == support.struct(
        {"spec": {"new": 2, "list": [9]}, "kept": True, "was": "text", "gone": {}}
    )


def test_fill_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError, match="cannot put a set"):
        structs.fill(struct_pb2.Struct(), {"bad": {1, 2}})
    with pytest.raises(TypeError, match="cannot put a bytes"):
        structs.fill(struct_pb2.Struct(), {"list": [[b"x"]]})


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
