"""A page's view, cached on its settings record alone (docs/architecture.md, Data flow).

::

    v = cached(view)(settings)

``view`` is a pure function of one frozen, hashable settings record (``dpcore.views.<page>``);
its result is kept in a cache every session shares, keyed on that record (and the function).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from pages._pool import run_bounded
from pages._ui import CACHE_TTL

S = TypeVar("S")
V = TypeVar("V")

_CACHED: dict[object, Callable] = {}


def cached(view: Callable[[S], V]) -> Callable[[S], V]:
    """``view`` behind ``st.cache_data`` keyed on its one argument (one wrapper per function)."""
    if view not in _CACHED:

        def run(settings: S) -> V:
            return view(settings)

        run.__qualname__ = run.__name__ = f"view_{view.__module__}.{view.__qualname__}"
        _CACHED[view] = st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)(run)
    return _CACHED[view]


def cached_bounded(view: Callable[[S], V], *, seconds: float, what: str) -> Callable[[S], V]:
    """:func:`cached`, run in a process of its own ended after ``seconds``
    (:func:`pages._pool.run_bounded`: a ``TimeBudgetExceeded`` is raised and not cached)."""
    key = (view, "bounded", seconds, what)
    if key not in _CACHED:

        def run(settings: S) -> V:
            return run_bounded(view, settings, seconds=seconds, what=what)

        run.__qualname__ = run.__name__ = f"bounded_{view.__module__}.{view.__qualname__}"
        _CACHED[key] = st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)(run)
    return _CACHED[key]
