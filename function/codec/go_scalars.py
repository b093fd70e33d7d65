r"""Which plain YAML scalars go-yaml v2 reads as something other than a string.

kubectl, sigs.k8s.io/yaml and the real `crossplane render` read YAML with go-yaml
v2, whose resolver (gopkg.in/yaml.v2 v2.4.0, resolve.go, `resolve`) turns a plain
scalar into a bool, null, number or timestamp by these rules:

- a fixed table: y Y yes Yes YES true True TRUE on On ON, n N no No NO false False
  FALSE off Off OFF, ~ null Null NULL and the empty string, .nan .inf +.inf -.inf
  (in three spellings each), and the merge key `<<`;
- a scalar starting with `.`: whatever Go's strconv.ParseFloat reads (`_` may
  separate digits, as in Go's literals);
- a scalar starting with a digit, `+` or `-`: a timestamp (`YYYY-` and a date),
  else, once every `_` is removed, what strconv.ParseInt or ParseUint read with
  base 0 (decimal, `0x`, `0o`, `0b` and a leading-`0` octal), else a float of the
  pattern `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, else a `0b` or
  `-0b` binary number (strconv.ParseInt base 2, which takes a sign: `0b-1` is -1).

Anything else is a string, a number out of its range too (`1e400`, a hex number past
64 bits). The rules here are the same: they say how `flavor.yaml` and the render
CLI's files are read, and which strings the render CLI quotes.
"""

from __future__ import annotations

import math
import re
from typing import Literal

TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
FALSE = frozenset({"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
NULL = frozenset({"", "~", "null", "Null", "NULL"})
SPECIAL_FLOATS = frozenset(
    {
        *(".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF"),
        *("+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"),
    }
)
MERGE = "<<"
TABLE = TRUE | FALSE | NULL | SPECIAL_FLOATS | {MERGE}
Kind = Literal["str", "bool", "null", "int", "float", "timestamp", "merge"]
_LEADING_ZERO = re.compile(r"0[0-9]+")
# A float as resolve's pattern has it, before strconv.ParseFloat reads it.
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
# strconv.ParseFloat's decimal literals: `_` only between digits.
_GO_FLOAT = re.compile(r"[-+]?([0-9](_?[0-9])*)?(\.([0-9](_?[0-9])*)?)?([eE][-+]?[0-9](_?[0-9])*)?")
# A hexadecimal float as Go writes it: `_` only between digits or after the prefix.
_HEX_FLOAT = re.compile(r"[-+]?0x(_?[0-9a-f])*(\.([0-9a-f](_?[0-9a-f])*)?)?p[-+]?[0-9](_?[0-9])*")
# What ParseFloat reads as infinite or not a number, in any case and with a sign.
_GO_FLOAT_WORDS = frozenset({"inf", "infinity", "nan"})
# parseTimestamp's quick check: four digits, then "-".
_TIMESTAMP_START = re.compile(r"[0-9]{4}-")


def go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64), else ParseUint(text, 0, 64): the number, or None."""
    sign, digits = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    if not digits[:1].isdigit() or not digits.isascii() or not digits.isalnum():
        return None
    try:
        # Go's base 0 reads a leading 0 as octal, where Python's wants 0o.
        magnitude = int(digits, 8) if _LEADING_ZERO.fullmatch(digits) else int(digits, 0)
    except ValueError:
        return None
    value = -magnitude if sign == "-" else magnitude
    # ParseInt takes a sign and an int64; ParseUint no sign and a uint64.
    in_range = -(2**63) <= value < 2**63 or (not sign and value < 2**64)
    return value if in_range else None


def go_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64) of a decimal literal: the number, or None (also past range)."""
    if not _GO_FLOAT.fullmatch(text) or not re.search("[0-9]", re.split("[eE]", text)[0]):
        return None
    number = float(text.replace("_", ""))
    return None if math.isinf(number) else number


def parse_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64) whole: decimal, hexadecimal (`0x1p3`), inf and nan; else None."""
    lower = text.lower()
    if lower.lstrip("+-") in _GO_FLOAT_WORDS:
        return float(lower)
    if not lower.lstrip("+-").startswith("0x"):
        return go_float(text)
    # A hexadecimal mantissa needs its binary exponent; Python's reader would also take
    # spaces and stray underscores, Go's none of them.
    if not _HEX_FLOAT.fullmatch(lower):
        return None
    try:
        return float.fromhex(lower.replace("_", ""))
    except (ValueError, OverflowError):  # no digits (`0xp3`), or past float64
        return None


def _binary(plain: str) -> int | None:
    """The binary branch of resolve: ParseInt(plain[2:], 2, 64), which takes a sign (`0b-1`)."""
    if not plain.startswith("0b"):
        return None
    rest = plain[2:]
    sign, digits = (rest[0], rest[1:]) if rest[:1] in ("+", "-") else ("", rest)
    if not digits or any(c not in "01" for c in digits):
        return None
    value = int(digits, 2) * (-1 if sign == "-" else 1)
    return value if -(2**63) <= value < 2**63 else None


def integer(value: str) -> int | None:
    """The integer go-yaml v2 reads a plain scalar as, or None when it reads no integer."""
    plain = value.replace("_", "")
    found = go_int(plain)
    if found is None and not (_YAML_FLOAT.fullmatch(plain) and go_float(plain) is not None):
        found = _binary(plain)
    return found


# The fixed table's kinds, each spelling.
_TABLE_KINDS: dict[str, Kind] = {
    **dict.fromkeys(TRUE | FALSE, "bool"),
    **dict.fromkeys(NULL, "null"),
    **dict.fromkeys(SPECIAL_FLOATS, "float"),
    MERGE: "merge",
}


def kind_of(value: str) -> Kind:  # noqa: PLR0911  # resolve.go, step by step
    """What go-yaml v2 reads `value`, written as a plain scalar, as."""
    if value in _TABLE_KINDS:
        return _TABLE_KINDS[value]
    first = value[0]
    if first == ".":
        return "float" if go_float(value) is not None else "str"
    if not (first.isascii() and (first.isdigit() or first in "+-")):
        return "str"
    if _TIMESTAMP_START.match(value):
        return "timestamp"
    plain = value.replace("_", "")
    if go_int(plain) is not None:
        return "int"
    if _YAML_FLOAT.fullmatch(plain) and go_float(plain) is not None:
        return "float"
    return "int" if _binary(plain) is not None else "str"


def is_string(value: str) -> bool:
    """Tell whether go-yaml v2 reads `value`, written as a plain scalar, as a string."""
    return kind_of(value) == "str"
