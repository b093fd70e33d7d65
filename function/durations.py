"""Go durations (`300ms`, `30s`, `1h30m`), read as Go's time.ParseDuration reads them.

The sidecar reads its timeouts with it, and `crossplane render` its --timeout: one
reading for the function and the render CLI.
"""

from __future__ import annotations

import re

_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "\u00b5s": 1e-6,
    "\u03bcs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([^0-9.]+)")


def go_duration_seconds(text: str) -> float:
    """Read a Go duration as time.ParseDuration does, in seconds.

    Raises:
        ValueError: when Go would refuse it.
    """
    sign, body = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(f'time: invalid duration "{text}"')
    total, at = 0.0, 0
    while at < len(body):
        part = _PART.match(body, at)
        if part is None or part.group(1) in ("", ".") or part.group(2) not in _UNITS:
            raise ValueError(f'time: invalid duration "{text}"')
        total += float(part.group(1)) * _UNITS[part.group(2)]
        at = part.end()
    return -total if sign == "-" else total
