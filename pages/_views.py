"""A page's view (:mod:`dpcore.views`), cached on its settings record alone.

``cached(view)(settings)`` returns the view's record for ``settings``, computed once for all
sessions and kept under a byte budget (:mod:`pages._bytecache`); the records are frozen and the
page only draws them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pages._bytecache import byte_cached
from pages._ui import CACHE_TTL

T = TypeVar("T")

#: Bytes each view's cache may hold, for all sessions.
VIEW_CACHE_BYTES = 128 * 2**20


def cached(view: Callable[..., T]) -> Callable[..., T]:
    """``view`` with its results kept per argument record (16 records, :data:`VIEW_CACHE_BYTES`)."""
    return byte_cached(16, VIEW_CACHE_BYTES, ttl=CACHE_TTL)(view)
