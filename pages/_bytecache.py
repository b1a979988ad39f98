"""Caches sized in bytes, shared by all sessions: a page's heavy views are kept under a byte
budget whatever the number of entries, so one visitor stepping through seeds at the largest
allowed size holds a bounded amount of the server's memory.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np
import pandas as pd

T = TypeVar("T")


def deep_nbytes(obj: Any, _seen: set[int] | None = None, _depth: int = 0) -> int:
    """An estimate of the memory ``obj`` holds: its NumPy arrays (their base buffers, once),
    pandas frames, strings and bytes, followed through containers, dataclasses and plotly figures.

    A cache uses it to stay under a byte budget; it counts the large parts, not every object
    header (about 100 bytes each), so it underestimates small values and is close for large ones.
    """
    seen = set() if _seen is None else _seen
    if id(obj) in seen or _depth > 12:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        base = obj
        while isinstance(base.base, np.ndarray):
            base = base.base
        if id(base) in seen and base is not obj:
            return 0
        seen.add(id(base))
        return int(base.nbytes) + (
            sum(deep_nbytes(o, seen, _depth + 1) for o in base.flat) if base.dtype == object else 0
        )
    if isinstance(obj, pd.DataFrame | pd.Series):
        return int(np.sum(obj.memory_usage(deep=True)))
    if isinstance(obj, str | bytes | bytearray):
        return len(obj)
    if isinstance(obj, dict):
        items = obj.items()
        return sum(
            deep_nbytes(k, seen, _depth + 1) + deep_nbytes(v, seen, _depth + 1) for k, v in items
        )
    if isinstance(obj, list | tuple | set | frozenset):
        return sum(deep_nbytes(o, seen, _depth + 1) for o in obj)
    if hasattr(obj, "to_plotly_json"):  # a plotly figure: its data, twice when the JSON sent for
        # it is kept with it (dpcore.figures.style.keep: filled when the figure is first drawn)
        data = deep_nbytes(getattr(obj, "_data", None), seen, _depth + 1)
        return data * (2 if "_dpmean_drawn" in vars(obj) else 1)
    state = getattr(obj, "__dict__", None)
    return 0 if state is None else deep_nbytes(state, seen, _depth + 1)


class ByteCache:
    """A process-wide LRU cache bounded by entries *and* bytes (:func:`deep_nbytes`), with a TTL.

    A value larger than half the byte budget is not kept (it is computed for the view and dropped),
    so one visitor stepping through seeds at the largest allowed size holds at most ``max_bytes``
    per cache, whatever the entry count. Thread-safe; the caches of the process add up in
    :meth:`total_bytes`.
    """

    def __init__(self, max_entries: int, max_bytes: int, ttl: float | None = None) -> None:
        self.max_entries, self.max_bytes, self.ttl = max_entries, max_bytes, ttl
        self._data: OrderedDict[Hashable, tuple[Any, int, float]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0

    @classmethod
    def total_bytes(cls) -> int:
        """Bytes held by every byte cache of this process."""
        return sum(c.bytes for c in _BYTE_CACHES.values())

    @classmethod
    def clear_all(cls) -> None:
        """Empty every byte cache of this process (``st.cache_data.clear()`` does not see them)."""
        for cache in list(_BYTE_CACHES.values()):
            cache.clear()

    def get(self, key: Hashable) -> tuple[bool, Any]:
        """``(True, value)`` for a live entry, else ``(False, None)``."""
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return False, None
            if self.ttl is not None and time.monotonic() - hit[2] > self.ttl:
                self._drop(key)
                return False, None
            self._data.move_to_end(key)
            return True, hit[0]

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` unless it is above half the budget; evict the oldest to fit."""
        size = deep_nbytes(value)
        if size > self.max_bytes // 2:
            return
        with self._lock:
            if key in self._data:
                self._drop(key)
            self._data[key] = (value, size, time.monotonic())
            self.bytes += size
            while self._data and (
                len(self._data) > self.max_entries or self.bytes > self.max_bytes
            ):
                self._drop(next(iter(self._data)))

    def _drop(self, key: Hashable) -> None:
        _, size, _ = self._data.pop(key)
        self.bytes -= size

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = 0


_BYTE_CACHES: dict[str, ByteCache] = {}
_REGISTRY_LOCK = threading.Lock()


def byte_cached(
    max_entries: int, max_bytes: int, ttl: float | None = None
) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorate a function of hashable arguments with a :class:`ByteCache` (shared by all
    sessions, values returned as they are: callers must not mutate them, as with
    ``st.cache_resource``). ``fn.cache`` is the cache."""

    def deco(fn: Callable[..., T]) -> Callable[..., T]:
        # one cache per function for the process: a page's script defines its functions again on
        # every run, and each definition must find the same cache (as st.cache_* do)
        name = f"{fn.__module__}.{fn.__qualname__}"
        with _REGISTRY_LOCK:
            cache = _BYTE_CACHES.get(name)
            if cache is None:
                cache = _BYTE_CACHES[name] = ByteCache(max_entries, max_bytes, ttl)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            key = (args, tuple(sorted(kwargs.items())))
            found, value = cache.get(key)
            if found:
                return value
            value = fn(*args, **kwargs)
            cache.put(key, value)
            return value

        wrapper.cache = cache  # type: ignore[attr-defined]
        return wrapper

    return deco
