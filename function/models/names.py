"""Kubernetes' naming rules, stated once: every name the function checks is checked here."""

from __future__ import annotations

import re

# A DNS-1123 label: an actor, a container, a volume, a state proxy.
DNS_LABEL = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"
MAX_LABEL = 63
# A DNS-1123 subdomain: an object's name, such as a flavor's (its length checked apart).
_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
OBJECT_NAME = f"^{_SUBDOMAIN}$"
MAX_OBJECT_NAME = 253
# A qualified name's name part (a label key's, a resource name's): `gpu` of `example.com/gpu`.
_NAME_PART = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
# A label's value (a nodeSelector's, a toleration's): empty, or a name part.
LABEL_VALUE = f"^({_NAME_PART})?$"
# A label key or resource name: a qualified name (the prefix's 253 characters aside).
QUALIFIED_NAME = f"({_SUBDOMAIN}/)?{_NAME_PART}"
LABEL_KEY = f"^{QUALIFIED_NAME}$"
# An annotation's key as the API server reads it from a field path: lowercased first.
ANNOTATION_KEY = f"({_SUBDOMAIN.replace('a-z', 'a-zA-Z')}/)?{_NAME_PART}"
# A toleration's key: a label key, or empty for every key.
TOLERATION_KEY = f"^(({_SUBDOMAIN}/)?{_NAME_PART})?$"
# A key of a Secret or ConfigMap.
CONFIG_KEY = r"^(?!\.\.)(?!\.$)[-._a-zA-Z0-9]+$"
CONFIG_KEY_WORDS = "a key: letters, digits, '-', '_' and '.', not starting with '..'"
# An image reference as the API server takes it in a pod (validateContainerOnlyForPod):
# not empty, without leading or trailing whitespace. A Deployment takes any; its pods not.
IMAGE = r"^\S([\s\S]*\S)?$"
IMAGE_WORDS = "an image reference without leading or trailing whitespace"
OBJECT_NAME_WORDS = (
    f"an object name: lowercase letters, digits, '-' and '.', at most {MAX_OBJECT_NAME} characters"
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
# The length is a rule of its own (max_length), said apart.
PATTERN_WORDS[DNS_LABEL] = (
    "not a name: lowercase letters, digits and '-', starting and ending with a letter or digit"
)
PATTERN_WORDS[TOLERATION_KEY] = PATTERN_WORDS[LABEL_KEY] + " (or empty: every key)"

# Matched whole (fullmatch): Python's `$` would also match before a final newline.
_LABEL = re.compile(DNS_LABEL)
_OBJECT_NAME = re.compile(OBJECT_NAME)
_LABEL_KEY = re.compile(LABEL_KEY)
_LABEL_VALUE = re.compile(LABEL_VALUE)
_CONFIG_KEY = re.compile(CONFIG_KEY)


# An image's tag as registries take one; and a repository that carries none (nor a digest).
# A tag may be pinned by a digest (`1.4@sha256:...`), as digest-pinning tools write it.
IMAGE_TAG = (
    r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
    r"(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$"
)
IMAGE_TAG_WORDS = (
    "a tag: letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-', "
    "optionally pinned by a digest (1.4@sha256:...)"
)
REPOSITORY_WORDS = (
    "a repository without leading or trailing whitespace, a tag or a digest (the tag is set apart)"
)
_IMAGE_TAG = re.compile(IMAGE_TAG)


def is_image_tag(tag: str) -> bool:
    """Whether a string is an image tag."""
    return _IMAGE_TAG.fullmatch(tag) is not None


def is_repository(repository: str) -> bool:
    """Whether a string names a repository only: an image, without `@digest` or `:tag`."""
    return (
        is_image(repository) and "@" not in repository and ":" not in repository.rsplit("/", 1)[-1]
    )


# What Go's strings.TrimSpace trims (unicode.IsSpace): Python's whitespace but the
# ASCII separators \x1c-\x1f, which Python counts and Go does not.
_GO_SPACE = "".join(
    c for c in map(chr, range(0x3001)) if c.isspace() and c not in "\x1c\x1d\x1e\x1f"
)


def is_image(image: str) -> bool:
    """Whether a string is an image reference the API server takes in a pod."""
    return bool(image) and image == image.strip(_GO_SPACE)


def label_value_problem(value: str) -> str:
    """What makes a string no label value ('' when it is one)."""
    return "" if _LABEL_VALUE.fullmatch(value) else PATTERN_WORDS[LABEL_VALUE]


def label_problem(name: str) -> str:
    """What makes a name no DNS-1123 label ('' when it is one)."""
    if len(name) > MAX_LABEL:
        return f"{len(name)} characters, at most {MAX_LABEL}"
    if not _LABEL.fullmatch(name):
        return "lowercase letters, digits and '-' only, starting and ending with a letter or digit"
    return ""


def is_object_name(name: str) -> bool:
    """Whether a name can name a Kubernetes object (a DNS-1123 subdomain)."""
    return len(name) <= MAX_OBJECT_NAME and _OBJECT_NAME.fullmatch(name) is not None


def is_qualified_name(name: str) -> bool:
    """Whether a name is qualified (`memory`, `nvidia.com/gpu`): a DNS subdomain and `/` may lead."""
    prefix, _, _ = name.rpartition("/")
    return len(prefix) <= MAX_OBJECT_NAME and _LABEL_KEY.fullmatch(name) is not None


def is_config_key(key: str) -> bool:
    """Whether a string can be a key of a Secret or ConfigMap."""
    return len(key) <= MAX_OBJECT_NAME and _CONFIG_KEY.fullmatch(key) is not None
