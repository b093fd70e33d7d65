"""Types of the C encoder built from _structwire.c (see function.codec.structs)."""

from typing import Any

def encode(data: dict[str, Any], /) -> bytes: ...
