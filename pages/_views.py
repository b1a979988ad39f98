"""How a page calls its view (:mod:`dpcore.views`): cached on the settings record alone.

``cached(view)(settings)`` runs ``view(settings)`` once per distinct record (a frozen dataclass of
plain values) and hands every later run with an equal record the same view.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from pages._ui import CACHE_TTL

__all__ = ["cached"]

S = TypeVar("S")
V = TypeVar("V")


@functools.cache
def cached(view: Callable[[S], V]) -> Callable[[S], V]:
    """``view`` behind one ``st.cache_data`` of its own, keyed on its settings record alone."""
    return st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)(view)
