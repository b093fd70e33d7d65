"""Types of the C codec built from _structwire.c (see function.codec.structs)."""

from typing import Any, Final

# How many messages deep protobuf reads below the outermost one (codec.nesting's
# PROTOBUF_MAX_DEPTH). encode, decode and decode_value raise RecursionError past it;
# canonical raises ValueError.
MAX_DEPTH: Final[int]

# Exactly a dict (a subclass is a TypeError naming its type), its keys str (a subclass
# is written as its text), its values exactly dict, list, str, int, float, bool or None
# all the way down: a subclass of any of these (an IntEnum, a StrEnum) is a TypeError.
# An int too large for a double is an OverflowError.
def encode(data: dict[str, Any], /) -> bytes: ...

# bytes or a bytes subclass (anything else is a TypeError); malformed bytes are a ValueError.
def decode(data: bytes, /) -> dict[str, Any]: ...
def decode_value(data: bytes, /) -> Any: ...

# `layout` is codec.canonical.layout's list (a list subclass is read as a list).
def canonical(data: bytes, layout: list[Any], /) -> bytes: ...
