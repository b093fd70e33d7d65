"""A bounded, thread-safe cache keyed on content: no answer can depend on whether it hit."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

import cachetools

Value = TypeVar("Value")


def digest_of(parts: Iterable[bytes]) -> bytes:
    """The key of some content: a SHA-256 digest of its pieces, each framed by its length.

    A key never holds the content itself, and, framed, no two different lists of
    pieces give the same bytes to digest.
    """
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(len(part).to_bytes(8, "little"))
        hasher.update(part)
    return hasher.digest()


def short_digest(data: Any, hex_digits: int) -> str:
    """A short hex digest of plain data, read as canonical JSON (sorted keys): a mark, not a key."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:hex_digits]


class ContentCache(Generic[Value]):
    """Values by a digest of the content they were computed from; least recently used first out.

    The key is the content itself (its digest), never a name or version that could
    stay the same while the content changes, so a hit returns exactly what computing
    again would. Bounded by `budget`: a count of values, or, with `sizeof`, the sum
    of their sizes (a value larger than the whole budget is not kept). Safe to share
    between threads. Callers must not mutate what they get back: it is shared by
    every later hit. A budget of 0 keeps nothing.
    """

    def __init__(self, budget: int, sizeof: Callable[[Value], int] | None = None) -> None:
        """Keep values within `budget` (a count, or a size with `sizeof`)."""
        self.budget = budget
        self._sizeof = sizeof
        self._items: cachetools.LRUCache[bytes, Value] = cachetools.LRUCache(
            maxsize=max(budget, 1), getsizeof=sizeof
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        """Whether anything is kept at all."""
        return self.budget > 0

    def get(self, key: bytes) -> Value | None:
        """The value kept for a key (a digest), or None."""
        if not self.enabled:
            return None
        with self._lock:
            found = self._items.get(key)
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
            return found

    def put(self, key: bytes, value: Value) -> None:
        """Keep a value, dropping the least recently used ones past the budget."""
        if not self.enabled or (self._sizeof is not None and self._sizeof(value) > self.budget):
            return
        with self._lock:
            self._items[key] = value

    @property
    def size(self) -> int:
        """What the values kept take of the budget."""
        return int(self._items.currsize)

    def __len__(self) -> int:
        """Count the values kept."""
        return len(self._items)
