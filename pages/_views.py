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

from pages._ui import CACHE_TTL

S = TypeVar("S")
V = TypeVar("V")

_CACHED: dict[Callable, Callable] = {}


def cached(view: Callable[[S], V]) -> Callable[[S], V]:
    """``view`` behind ``st.cache_data`` keyed on its one argument (one wrapper per function)."""
    if view not in _CACHED:

        def run(settings: S) -> V:
            return view(settings)

        run.__qualname__ = run.__name__ = f"view_{view.__module__}.{view.__qualname__}"
        _CACHED[view] = st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)(run)
    return _CACHED[view]
