"""Kubernetes' naming rules, stated once: every name the function checks is checked here."""

from __future__ import annotations

import re

# A DNS-1123 label: an actor, a container, a volume, a state proxy.
DNS_LABEL = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"
MAX_LABEL = 63
# A DNS-1123 subdomain: an object's name, such as a flavor's.
OBJECT_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
MAX_OBJECT_NAME = 253

# The name part of a qualified name (a label key, a resource name): `example.com/gpu`.
QUALIFIED_NAME = r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"
# A label's value (a nodeSelector's, a toleration's): empty, or a qualified name's name part.
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$"
# A label key: a qualified name, as one pattern (the DNS prefix's length aside).
LABEL_KEY = (
    r"^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)
# What each pattern above asks for, in the words a refusal says.
PATTERN_WORDS = {
    LABEL_VALUE: (
        f"not a label value: empty, or at most {MAX_LABEL} letters, digits, '-', '_' and '.', "
        "starting and ending with a letter or digit"
    ),
    LABEL_KEY: (
        f"not a label key: a name of at most {MAX_LABEL} letters, digits, '-', '_' and '.', "
        "starting and ending with a letter or digit, after an optional DNS prefix and '/'"
    ),
}

_LABEL = re.compile(DNS_LABEL)
_OBJECT_NAME = re.compile(OBJECT_NAME)
_QUALIFIED_NAME = re.compile(QUALIFIED_NAME)
_LABEL_VALUE = re.compile(LABEL_VALUE)


def label_value_problem(value: str) -> str:
    """What makes a string no label value ('' when it is one)."""
    return "" if _LABEL_VALUE.match(value) else PATTERN_WORDS[LABEL_VALUE]


def label_problem(name: str) -> str:
    """What makes a name no DNS-1123 label ('' when it is one)."""
    if len(name) > MAX_LABEL:
        return f"{len(name)} characters, at most {MAX_LABEL}"
    if not _LABEL.match(name):
        return "lowercase letters, digits and '-' only, starting and ending with a letter or digit"
    return ""


def is_object_name(name: str) -> bool:
    """Whether a name can name a Kubernetes object (a DNS-1123 subdomain)."""
    return len(name) <= MAX_OBJECT_NAME and _OBJECT_NAME.match(name) is not None


def is_qualified_name(name: str) -> bool:
    """Whether a name is qualified (`memory`, `nvidia.com/gpu`): a DNS subdomain and `/` may lead."""
    prefix, slash, short = name.rpartition("/")
    if slash and not is_object_name(prefix):
        return False
    return len(short) <= MAX_LABEL and _QUALIFIED_NAME.match(short) is not None
