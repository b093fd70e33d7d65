"""`render` writes YAML that go-yaml v2 (kubectl, crossplane) reads back as the same strings.

`go_yaml_v2_reads_plain` below is a second, step-by-step transcription of go-yaml v2.4.0's
`resolve` (resolve.go), with Go's strconv emulated; the project's `go_scalars` is
written from the same source as patterns. The property test holds the dumper to the
transcription; the table holds both to what go-yaml v2.4.0 itself read (Debian's
golang-gopkg-yaml.v2-dev 2.4.0, unmarshalling `v: <scalar>` into a map).
"""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from function.cli.render import output
from function.codec import go_scalars

# What go-yaml v2.4.0 read each plain scalar as.
GO_YAML_V2_READS = {
    "y": "bool",
    "n": "bool",
    "Y": "bool",
    "N": "bool",
    "yes": "bool",
    "off": "bool",
    "On": "bool",
    "1e3": "float64",
    "1e-3": "float64",
    "0o17": "int",
    "-0o17": "int",
    "0x1F": "int",
    "0b101": "int",
    "-0b101": "int",
    "+685_230": "int",
    "1_000": "int",
    "1_": "int",
    "0777": "int",
    "08": "float64",
    "09.5": "float64",
    ".5": "float64",
    ".5_0": "float64",
    "1.": "float64",
    "+.inf": "float64",
    "99999999999999999999": "float64",
    "~": "null",
    "null": "null",
    "1:30": "string",
    "1e400": "string",
    "0x": "string",
    "+": "string",
    "12e": "string",
    "0.0.1": "string",
    "0xFFFFFFFFFFFFFFFFFFFF": "string",
    "_1": "string",
    "0b-1__": "int",
    "e5": "string",
    "v1.2": "string",
    "1Gi": "string",
    "500m": "string",
}


DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}


def _go_int(text: str) -> bool:
    """strconv.ParseInt(text, 0, 64) or strconv.ParseUint(text, 0, 64) succeeds."""
    sign, digits = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    base, body = 10, digits
    if digits[:2].lower() in ("0x", "0o", "0b"):
        base, body = {"x": 16, "o": 8, "b": 2}[digits[1].lower()], digits[2:]
    elif digits.startswith("0") and len(digits) > 1:
        base, body = 8, digits[1:]
    if not body or any(c not in DIGITS[base] for c in body):
        return False
    value = int(body, base) * (-1 if sign == "-" else 1)
    # ParseInt takes a sign and an int64; ParseUint no sign and a uint64.
    return -(2**63) <= value < 2**63 or (not sign and value < 2**64)


def _go_float(text: str) -> bool:
    """strconv.ParseFloat(text, 64) of a decimal literal succeeds: well formed and in range."""
    digits = r"[0-9](_?[0-9])*"
    if not re.fullmatch(rf"[-+]?({digits})?(\.({digits})?)?([eE][-+]?{digits})?", text):
        return False
    if not re.search("[0-9]", re.split("[eE]", text)[0]):
        return False
    return abs(float(text.replace("_", ""))) != float("inf")


def go_yaml_v2_reads_plain(value: str) -> str:  # noqa: PLR0911  # resolve.go, step by step
    """What go-yaml v2.4.0's resolve makes of a plain scalar: 'string' or another kind."""
    if value in go_scalars.TABLE:
        return "other"
    hint = value[:1]
    if hint == ".":
        return "other" if _go_float(value) else "string"
    if not (hint.isascii() and (hint.isdigit() or hint in "+-")):
        return "string"
    if re.match("[0-9]{4}-", value):
        # parseTimestamp's quick check; a timestamp decoded into interface{} stays a
        # string, but not into a time.Time: quoted either way.
        return "other"
    plain = value.replace("_", "")
    if _go_int(plain):
        return "other"
    yaml_style_float = r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
    if re.fullmatch(yaml_style_float, plain) and _go_float(plain):
        return "other"
    # resolve's own binary branch: ParseInt(plain[2:], 2, 64), which takes a sign.
    if plain.startswith("0b") and _go_int("0b" + plain[3:] if plain[2:3] in "+-" else plain):
        return "other"
    return "string"


def _written(value: str) -> str:
    """The scalar as `render` writes it under a key."""
    return output.dump([{"v": value}]).split("\n", 1)[1].removeprefix("v: ").rstrip("\n")


@pytest.mark.parametrize("value", sorted(GO_YAML_V2_READS))
def test_each_reading_of_go_yaml_v2_is_known(value: str) -> None:
    is_string = GO_YAML_V2_READS[value] == "string"
    assert (go_yaml_v2_reads_plain(value) == "string") is is_string
    assert go_scalars.is_string(value) is is_string
    if not is_string:
        assert _written(value) == f'"{value}"'
    assert yaml.safe_load(f"v: {_written(value)}")["v"] == value


def test_the_values_kubectl_misread_are_quoted() -> None:
    env = [
        {"name": name, "value": value}
        for name, value in (("LR", "1e-3"), ("FLAG", "y"), ("MODE", "0o17"))
    ]
    text = output.dump([{"env": env}])
    for value in ("1e-3", "y", "0o17"):
        assert f'value: "{value}"' in text


SCALAR_CHARACTERS = st.sampled_from(list("0123456789+-._eExXoObByYnN~:aT Z"))


@settings(max_examples=3000, deadline=None)
@given(
    st.text(SCALAR_CHARACTERS, min_size=1, max_size=8) | st.sampled_from(sorted(go_scalars.TABLE))
)
def test_no_string_is_written_plain_where_go_yaml_v2_reads_another_kind(value: str) -> None:
    # The project's table reads as go-yaml v2 does, number ranges included.
    assert go_scalars.is_string(value) is (go_yaml_v2_reads_plain(value) == "string")
    written = _written(value)
    if go_yaml_v2_reads_plain(value) != "string":
        assert written.startswith(('"', "'")), f"{value!r} written plain as {written}"
    assert yaml.safe_load(f"v: {written}")["v"] == value
