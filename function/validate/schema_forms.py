"""The words the table of API-server rules is written in: JSON Schema forms for what a field must be.

api_server_checks.py and api_server_volumes.py write their rows with these, so each form
says the same thing the same way in every row.
"""

from __future__ import annotations

from typing import Any

from function.models import names

# Kubernetes type → (the schema it adds, what each of its properties must be; what the
# object as a whole must be under "", after "must be").
Rules = dict[str, tuple[dict[str, Any], dict[str, str]]]
PORT = {"minimum": 1, "maximum": 65535}
# A user or group id the API server takes.
ID = {"minimum": 0, "maximum": 2**31 - 1}
ID_SAID = "an id from 0 to 2147483647"


def present(field: str) -> dict[str, Any]:
    """This field set, as an object."""
    return {"required": [field], "properties": {field: {"type": "object"}}}


def one_of(*fields: str) -> dict[str, Any]:
    """Exactly one of these members set (an object with none or two is refused)."""
    return {"if": {"type": "object"}, "then": {"oneOf": [present(field) for field in fields]}}


def enum(*values: str) -> dict[str, Any]:
    """One of these words, or absent (null)."""
    return {"enum": [None, *values]}


def enum_or_empty(*values: str) -> dict[str, Any]:
    """One of these words, or absent (null or empty: the API server puts its default)."""
    return {"enum": [None, "", *values]}


def one_of_filled(*fields: str) -> dict[str, Any]:
    """Exactly one of these fields set and not empty."""
    return {"if": {"type": "object"}, "then": {"oneOf": [filled(field) for field in fields]}}


def filled(*fields: str) -> dict[str, Any]:
    """These fields set, none of them empty."""
    return {
        "required": list(fields),
        "properties": {f: {"type": "string", "minLength": 1} for f in fields},
    }


def words(*values: str) -> str:
    """`a, b or c`."""
    return ", ".join(values[:-1]) + f" or {values[-1]}" if len(values) > 1 else values[0]


# A name the API server reads as an object's (a ConfigMap's, a Secret's): a DNS subdomain.
OBJECT = {"minLength": 1, "maxLength": 253, "pattern": names.OBJECT_NAME}
OBJECT_SAID = "an object name: lower case letters, digits, '-' and '.' (at most 253)"
MODE = {"minimum": 0, "maximum": 0o777}
MODE_SAID = "a file mode from 0 to 0777"
