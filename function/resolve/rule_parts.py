"""Schema fragments the rule tables share: paths, names, the API version fields are read by."""

from __future__ import annotations

from typing import Any

from function.models import names

# A path never through `..`; inside a volume, relative as well.
NO_BACKSTEPS = r"^(?!(.*/)?\.\.(/|$))"
DESCENDING = r"^(?!/)(?!(.*/)?\.\.(/|$))"
MODE = {"minimum": 0, "maximum": 0o777}
MODE_SAID = "a file mode from 0 to 0777 (511 in decimal)"
FILE_PATH = {"pattern": DESCENDING + r"(?!\.\.)[\s\S]+$"}
FILE_PATH_SAID = "a relative path inside the volume: not starting with '/' or '..', no '..'"
OBJECT_NAME = {"pattern": names.OBJECT_NAME, "maxLength": names.MAX_OBJECT_NAME}
OBJECT_NAME_SAID = names.OBJECT_NAME_WORDS
KEY = {"pattern": names.CONFIG_KEY, "maxLength": names.MAX_OBJECT_NAME}
KEY_SAID = names.CONFIG_KEY_WORDS
# One label or annotation, by a key the API server takes (a qualified name).
ONE_LABEL = (
    rf"metadata\.labels\['{names.QUALIFIED_NAME}'\]"
    rf"|metadata\.annotations\['{names.ANNOTATION_KEY}'\]"
)
# The one API version a field of the pod is read by.
V1 = {"enum": [None, "", "v1"]}
V1_SAID = "v1 (or empty)"
# A name that must be set: present and not empty.
SET: dict[str, Any] = {"type": "string", "minLength": 1}
DESCENDING_SAID = "a relative path inside the volume, no '..'"
# An image's pull policy; empty, the API server defaults it by the image's tag.
PULL_POLICY = {"enum": [None, "", "Always", "IfNotPresent", "Never"]}
PULL_POLICY_SAID = "Always, IfNotPresent or Never (or empty: by the image tag)"
# Kubernetes type → (the schema it adds, what each of its properties must be; what the
# object as a whole must be under "", after "must be").
Rules = dict[str, tuple[dict[str, Any], dict[str, str]]]


def _set(field: str) -> dict[str, Any]:
    """A schema holding an object to `field`, present and not null."""
    return {"required": [field], "properties": {field: {"type": "object"}}}


def exactly_one(*fields: str) -> dict[str, Any]:
    """A schema that holds an object (not a null one) to exactly one of `fields`, set."""
    return {"if": {"type": "object"}, "then": {"oneOf": [_set(field) for field in fields]}}


def at_most_one(*fields: str) -> dict[str, Any]:
    """A schema refusing an object that sets two of `fields` (none set is fine)."""
    pairs = [
        {"allOf": [_set(first), _set(second)]}
        for at, first in enumerate(fields)
        for second in fields[at + 1 :]
    ]
    return {"if": {"type": "object"}, "then": {"not": {"anyOf": pairs}}}


def not_both(first: str, second: str) -> dict[str, Any]:
    """A schema refusing an object that sets both fields (neither null nor empty)."""
    present = {"not": {"enum": [None, ""]}}
    return {"not": {"required": [first, second], "properties": {first: present, second: present}}}
