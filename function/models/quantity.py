"""Kubernetes quantities (`500m`, `2Gi`, `1e3`) read as the API server reads them, stated once.

Written from apimachinery's `ParseQuantity`: an optional sign, digits with an optional
decimal point, then a suffix: none, a decimal one (`n u m k M G T P E`), a binary one
(`Ki Mi Gi Ti Pi Ei`) or a decimal exponent (`e3`, `E-2`). Surrounding spaces are
trimmed, JSON's `null` is zero, and a number is read from its JSON text. Values are
rounded up to the nano, as the API server keeps them.
"""

from __future__ import annotations

import decimal
import functools
import re
from decimal import Decimal

# The scanner's shape: number, suffix letters, then an exponent's sign and digits.
_SHAPE = re.compile(r"([+-]?)(0*)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*)([+-]?[0-9]*)")
DECIMAL_SUFFIXES = {
    "n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18
}  # fmt: skip
BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_INT64 = 2**63
# The API server caps a binary quantity here, and keeps every value to the nano.
MAX_BINARY = Decimal(_INT64 - 1)
NANO = Decimal("1e-9")
# The longest text the parse memo keeps (a hand-written quantity is a few characters).
KEPT_LENGTH = 64
# Exact for any quantity written by hand; past that (hundreds of digits, an exponent
# past 10**18) a value rounds or becomes infinite instead of raising.
_EXACT = decimal.Context(prec=400, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[])


def parse(value: object) -> Decimal | None:
    """A quantity's value, or None where the API server refuses it (`abc`, `1Gb`, `true`)."""
    if isinstance(value, str):
        text = value.strip()
        # Only short texts are kept, so the memo's memory is bounded as well as its count.
        return _parse(text) if len(text) <= KEPT_LENGTH else _parse.__wrapped__(text)
    if value is None:
        return Decimal(0)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return _parse(repr(value))
    return None


# A pure function of the text, and a fleet's actors write few distinct quantities.
@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> Decimal | None:
    shape = _SHAPE.fullmatch(text)
    if not text or shape is None:
        return None
    sign, zeros, whole, fraction, letters, exponent_digits = shape.groups()
    suffix = letters + exponent_digits
    if exponent_digits and not (letters in ("e", "E") and exponent_digits.lstrip("+-")):
        return None  # digits after a suffix that is no exponent (`1Mi5`)
    scale = _suffix_scale(suffix)
    if scale is None:
        return None
    base, exponent = scale
    if not (zeros or whole or fraction) and not _exact_without_digits(base, exponent):
        return None
    number = Decimal(f"{sign}{whole or 0}.{fraction or 0}")
    if base == 10:
        return _to_the_nano(number.scaleb(exponent, context=_EXACT))
    amount = _EXACT.multiply(number, Decimal(2**exponent))
    if abs(amount) > MAX_BINARY:
        amount = MAX_BINARY.copy_sign(amount)
    return _to_the_nano(amount)


def _to_the_nano(amount: Decimal) -> Decimal:
    """Rounded up (away from zero) to the nano, as the API server keeps a quantity."""
    if not amount.is_finite() or amount.as_tuple().exponent >= -9:  # type: ignore[operator]
        return amount
    return amount.quantize(NANO, rounding=decimal.ROUND_UP, context=_EXACT)


def _suffix_scale(suffix: str) -> tuple[int, int] | None:
    """The suffix as (base, exponent), or None when the API server does not know it."""
    if suffix in DECIMAL_SUFFIXES:
        return 10, DECIMAL_SUFFIXES[suffix]
    if suffix in BINARY_SUFFIXES:
        return 2, BINARY_SUFFIXES[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            exponent = int(suffix[1:])
        except ValueError:
            return None
        return (10, exponent) if -_INT64 <= exponent < _INT64 else None
    return None


def _exact_without_digits(base: int, exponent: int) -> bool:
    """Whether a quantity with no digits (`-`, `.`, `Mi`) reads as zero, not as an error.

    It does where the API server's exact integer path takes it: a decimal scale of a
    nano or more, or a binary suffix small enough for it; otherwise its decimal
    parser finds no digits.
    """
    if base == 10:
        return exponent >= -9
    return 15 - 1 - exponent * 3 // 10 - 1 >= 0


def is_whole(amount: Decimal) -> bool:
    """Whether an amount is a whole number as the API server judges one.

    It counts thousandths, rounded up (`0.9995` is 1000 of them): a multiple of a thousand.
    """
    millis = _EXACT.multiply(amount, 1000).to_integral_value(decimal.ROUND_CEILING, _EXACT)
    # Shifted, not divided: a remainder past the context's 400 digits (`1e400`) is NaN.
    units = millis.scaleb(-3, _EXACT)
    return units == units.to_integral_value(context=_EXACT)


def whole_multiple(amount: Decimal, unit: Decimal) -> bool:
    """Whether an amount, rounded up to a whole number, is a whole number of `unit`s."""
    whole = amount.to_integral_value(rounding=decimal.ROUND_UP, context=_EXACT)
    return _EXACT.remainder(whole, unit) == 0
