"""A bounded, thread-safe cache keyed on content: no answer can depend on whether it hit."""

from __future__ import annotations

import collections
import hashlib
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

import zstandard

Value = TypeVar("Value")


def digest(content: bytes) -> bytes:
    """The key of some content: a SHA-256 digest, so a key never holds the content itself."""
    return hashlib.sha256(content).digest()


class ContentCache(Generic[Value]):
    """What was computed from some content, by a digest of that content; least recently used first out.

    The key is the content itself (its digest), never a name or version that could
    stay the same while the content changes, so a hit returns exactly what computing
    again would. Safe to share between threads: the map is guarded by a lock, and a
    value is computed outside it (two threads may compute the same value once each;
    both results are equal). Errors are never cached. Callers must not mutate what
    they get back: it is shared by every later hit.
    """

    def __init__(self, size: int) -> None:
        """Create a cache holding at most `size` values (0 turns it off)."""
        self.size = size
        self._items: collections.OrderedDict[bytes, Value] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, content: bytes, compute: Callable[[], Value]) -> Value:
        """Return the value computed from `content`, computing it on a miss."""
        if self.size <= 0:
            return compute()
        key = digest(content)
        with self._lock:
            if (found := self._items.get(key)) is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        value = compute()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        """Count the values held."""
        return len(self._items)


class BytesCache:
    """Serialised answers by a digest of their question, least recently used first out.

    Bounded by the bytes it holds (answers plus keys), not by count, so a fleet of
    large actors cannot grow it past its budget. Thread-safe. Size 0 turns it off.
    """

    KEY_BYTES = 32  # a SHA-256 digest

    def __init__(self, max_bytes: int) -> None:
        """Create a cache holding at most `max_bytes`."""
        self.max_bytes = max_bytes
        self._items: collections.OrderedDict[bytes, bytes] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        """Whether answers are kept at all."""
        return self.max_bytes > 0

    def get(self, key: bytes) -> bytes | None:
        """The answer kept for a key (a digest), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: bytes, value: bytes) -> None:
        """Keep an answer, dropping the least recently used ones past the budget."""
        size = len(value) + self.KEY_BYTES
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= len(old) + self.KEY_BYTES
            self._items[key] = value
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self.bytes -= len(dropped) + self.KEY_BYTES

    def __len__(self) -> int:
        """Count the answers held."""
        return len(self._items)


class Compressor:
    """Compresses kept answers (zstd, level 1): about 3.6x for an actor's answer.

    Thread-safe: zstd contexts must not be shared between threads, so each thread
    gets its own.
    """

    LEVEL = 1

    def __init__(self) -> None:
        """Create no context yet: each thread makes its own on first use."""
        self._local = threading.local()

    def _contexts(self) -> tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]:
        contexts: tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor] | None = getattr(
            self._local, "contexts", None
        )
        if contexts is None:
            contexts = (zstandard.ZstdCompressor(level=self.LEVEL), zstandard.ZstdDecompressor())
            self._local.contexts = contexts
        return contexts

    def compress(self, data: bytes) -> bytes:
        """Compress some bytes, into an object of their own size."""
        # zstandard leaves its output in a buffer sized for the worst case (larger
        # than the input); a copy frees it, or each kept answer would hold ~4x its size.
        return bytes(memoryview(self._contexts()[0].compress(data)))

    def decompress(self, data: bytes) -> bytes:
        """The bytes `compress` was given."""
        return self._contexts()[1].decompress(data)
