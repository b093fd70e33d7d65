"""Go durations (`300ms`, `30s`, `1h30m`), read as Go's time.ParseDuration reads them.

The sidecar reads its timeouts with it, and `crossplane render` its --timeout: one
reading for the function and the render CLI.
"""

from __future__ import annotations

import re

# Nanoseconds per unit: Go counts a duration in whole nanoseconds, in an int64.
_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,
    "\u03bcs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]+)")
# The longest duration an int64 of nanoseconds holds (about 292 years); a negative
# one may be one nanosecond longer.
_MAX_NANOSECONDS = 2**63 - 1
LONGEST = "2562047h47m16.854775807s"


class TooLongError(ValueError):
    """A duration Go would refuse for its length alone: past an int64 of nanoseconds."""


def go_duration_seconds(text: str) -> float:
    """Read a Go duration as time.ParseDuration does, in seconds.

    Raises:
        ValueError: when Go would refuse it; TooLongError for one past what an
            int64 of nanoseconds holds (`9999999999h`).
    """
    sign, body = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(f'time: invalid duration "{text}"')
    nanoseconds, at = 0, 0
    while at < len(body):
        part = _PART.match(body, at)
        if (
            part is None
            or (part.group(1), part.group(2) or "") == ("", "")
            or part.group(3) not in _UNITS
        ):
            raise ValueError(f'time: invalid duration "{text}"')
        whole, fraction, unit = part.group(1), part.group(2) or "", _UNITS[part.group(3)]
        nanoseconds += int(whole or "0") * unit
        if fraction:
            # Go drops what falls below a nanosecond.
            nanoseconds += int(fraction) * unit // 10 ** len(fraction)
        at = part.end()
    if nanoseconds > _MAX_NANOSECONDS + (sign == "-"):
        raise TooLongError(f'time: invalid duration "{text}"')
    seconds = nanoseconds / 1e9
    return -seconds if sign == "-" else seconds
