"""Structs to plain data: integral numbers come back as ints."""

from function import parse
from tests import support


def test_integral_numbers_become_ints_and_others_stay_floats() -> None:
    data = parse.plain(support.struct({"replicas": 3, "ratio": 0.5, "list": [1, 2.5], "n": None}))
    assert data == {"replicas": 3, "ratio": 0.5, "list": [1, 2.5], "n": None}
    assert type(data["replicas"]) is int
    assert type(data["list"][0]) is int


def test_nested_maps_lists_strings_and_bools_round_trip() -> None:
    body = {"a": {"b": [{"c": "x", "d": True}], "e": {}}, "f": []}
    assert parse.plain(support.struct(body)) == body
