"""A page's view (:mod:`dpcore.views`), cached on its settings record alone.

``cached(view)(settings)`` returns the view's record for ``settings``, computed once for all
sessions and kept under a byte budget (:mod:`pages._bytecache`); the records are frozen and the
page only draws them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import streamlit as st

from dpcore.figures.style import keep
from pages._bytecache import byte_cached
from pages._pool import run_bounded
from pages._ui import CACHE_TTL

S = TypeVar("S")
T = TypeVar("T")

#: Bytes each view's cache may hold, for all sessions.
VIEW_CACHE_BYTES = 128 * 2**20


def cached(view: Callable[..., T]) -> Callable[..., T]:
    """``view`` with its results kept per argument record (16 records, :data:`VIEW_CACHE_BYTES`)."""
    return byte_cached(16, VIEW_CACHE_BYTES, ttl=CACHE_TTL)(view)


def cached_bounded(view: Callable[[S], T], *, seconds: float, what: str) -> Callable[[S], T]:
    """``view`` run in a process of its own ended after ``seconds``
    (:func:`pages._pool.run_bounded`: a ``TimeBudgetExceeded`` is raised, nothing is kept), its
    results in ``st.cache_data`` keyed on the record (``st.cache_data.clear()`` empties it).
    ``view`` must be a module-level function of a picklable record."""

    def bounded(settings: S) -> T:
        return run_bounded(view, settings, seconds=seconds, what=what)

    bounded.__qualname__ = bounded.__name__ = f"bounded_{view.__module__}.{view.__qualname__}"
    return st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)(bounded)


#: Bytes the drawn figures of every page may hold, for all sessions.
FIGURE_CACHE_BYTES = 64 * 2**20


class _Drawing:
    """A figure to build, named by the record it is drawn from and its name (hash and equality
    use only those two: the builder and its inputs are a function of the record)."""

    def __init__(self, record: Hashable, name: str, build: Callable[[], Any]) -> None:
        self.key, self.build = (record, name), build

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Drawing) and other.key == self.key


@byte_cached(64, FIGURE_CACHE_BYTES, ttl=CACHE_TTL)
def _drawn(drawing: _Drawing) -> Any:
    made = drawing.build()
    fig = made[0] if isinstance(made, tuple) else made
    keep(fig)  # never changed again: reruns send the JSON made the first time
    return made


def drawn(record: Hashable, name: str, build: Callable[[], T]) -> T:
    """``build()`` (a figure, or ``(figure, frame)``) made once per view record and name and kept
    (:func:`dpcore.figures.style.keep`): a rerun or another student on the same settings sends
    the same JSON without rebuilding it. ``build`` must depend on the record alone."""
    result: T = _drawn(_Drawing(record, name, build))
    return result
