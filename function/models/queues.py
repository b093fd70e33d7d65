"""The names of an actor's queues, for every transport: the one place they are spelled."""

from __future__ import annotations

from typing import Any

from function.models import names

PREFIX = "asya"
DEAD_LETTER_SUFFIX = "-dlq"


def queue_name(namespace: str, actor: str) -> str:
    """`asya-<namespace>-<actor>`: the queue, topic or subscription of every transport."""
    return f"{PREFIX}-{namespace}-{actor}"


def dead_letter_name(namespace: str) -> str:
    """`asya-<namespace>-dlq`: where a namespace's actors' failed messages go (SQS)."""
    return f"{PREFIX}-{namespace}{DEAD_LETTER_SUFFIX}"


def dead_letter_owner(name: str) -> str:
    """The namespace whose dead-letter queue a name is (`asya-a-b-dlq` → `a-b`)."""
    return name.removeprefix(f"{PREFIX}-").removesuffix(DEAD_LETTER_SUFFIX)


def namesakes(actor: Any, namespace: str) -> list[tuple[str, str]]:
    """Every other (namespace, actor) whose queue name is this actor's.

    A queue's name splits at any '-': `team-a`/`echo` and `team`/`a-echo` would both
    be asya-team-a-echo.
    """
    if not isinstance(actor, str) or names.label_problem(actor) or names.label_problem(namespace):
        return []
    joined = f"{namespace}-{actor}"
    return [
        (joined[:at], joined[at + 1 :])
        for at, character in enumerate(joined)
        if character == "-"
        and at != len(namespace)
        and not names.label_problem(joined[:at])
        and not names.label_problem(joined[at + 1 :])
    ]
