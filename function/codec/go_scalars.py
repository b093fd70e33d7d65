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

Anything else is a string. The rules here are the same, leaning towards "not a
string" where Go would fail only on a number's range: quoting a string that
needed none is harmless, writing a number where a string was meant is not.
"""

from __future__ import annotations

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
# strconv.ParseFloat of a scalar that starts with "." (Go's literal syntax: `_` may
# separate digits).
_DOT_FLOAT = re.compile(r"\.[0-9][0-9_]*([eE][-+]?[0-9][0-9_]*)?")
# strconv.ParseInt / ParseUint with base 0, after the `_`s are gone.
_GO_INTEGER = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
# resolve's own binary branch: ParseInt(plain[2:], 2, 64) takes a sign after `0b`.
_GO_BINARY = re.compile(r"0b[-+]?[01]+")
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
# parseTimestamp's quick check: four digits, then "-".
_TIMESTAMP_START = re.compile(r"[0-9]{4}-")


# The fixed table's kinds, each spelling.
_TABLE_KINDS: dict[str, Kind] = {
    **dict.fromkeys(TRUE | FALSE, "bool"),
    **dict.fromkeys(NULL, "null"),
    **dict.fromkeys(SPECIAL_FLOATS, "float"),
    MERGE: "merge",
}


def kind_of(value: str) -> Kind:
    """What go-yaml v2 reads `value`, written as a plain scalar, as."""
    if value in _TABLE_KINDS:
        return _TABLE_KINDS[value]
    first = value[0]
    if first == ".":
        return "str" if _DOT_FLOAT.fullmatch(value) is None else "float"
    if not (first.isascii() and (first.isdigit() or first in "+-")):
        return "str"
    if _TIMESTAMP_START.match(value):
        return "timestamp"
    plain = value.replace("_", "")
    if _GO_INTEGER.fullmatch(plain) or _GO_BINARY.fullmatch(plain):
        return "int"
    return "float" if _YAML_FLOAT.fullmatch(plain) else "str"


def is_string(value: str) -> bool:
    """Tell whether go-yaml v2 reads `value`, written as a plain scalar, as a string."""
    return kind_of(value) == "str"
