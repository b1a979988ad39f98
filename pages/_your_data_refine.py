"""Your data's first view: :data:`dpcore.views.your_data.FIRST_REPS` runs per estimator, then the
runs slider's count, as Compare refines its first result: on the shared pool in the background
when there is one (the notice polls for it), else in the notice's next run, after the first view
is on the screen. ``DPMEAN_PROGRESSIVE=0`` turns it off (the test suite runs that way).
docs/speed.md ("Page first views, round 2": Your data)."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import replace

import streamlit as st

from dpcore.figures.your_data import runs_each
from dpcore.pool import workers_from_env
from dpcore.views.your_data import FIRST_REPS, ExploreSettings, runs
from pages import _pool
from pages._pool import SharedCache, call_on, poll_seconds
from pages._refine import refining_notice as notice
from pages._views import cached

#: seconds between the first view and the refinement (the notice's next run) without a pool
REFINE_AFTER = 0.5
#: the predicted seconds of a refinement on the pool, for the notice's poll
POOL_SECONDS = 2.0


def first_view(explore: ExploreSettings) -> ExploreSettings:
    """The record the page shows now: ``explore`` once this session has refined it (or when it
    asks for at most :data:`FIRST_REPS` runs, or progressive views are off), else ``explore``
    with :data:`FIRST_REPS` runs per estimator."""
    if os.environ.get("DPMEAN_PROGRESSIVE", "1") == "0" or explore.reps <= FIRST_REPS:
        return explore
    if st.session_state.get("_yd_refined") == explore:
        return explore
    return replace(explore, reps=FIRST_REPS)


@st.cache_resource(show_spinner=False)
def refined() -> SharedCache:
    """The runs of records refined on the pool, shared by all sessions (at most 8 kept)."""
    return SharedCache(8)


def _on_pool(explore: ExploreSettings) -> Callable[[], bool]:
    """Start :func:`~dpcore.views.your_data.runs` of ``explore`` on the pool in the background
    (once per record, for as long as a session waits for it); the returned check is true once
    it is there, and then hands it to the page's view cache (``cached(runs)``) and marks this
    session refined."""

    def work(lane: Executor | None) -> object:
        return call_on(lane, runs, explore)

    refined().refine(explore, work, owner=_pool.session_key())

    def done() -> bool:
        made = refined().get(explore)
        if made is None:  # stopped while this page was away: the rerun starts it again
            return explore in refined().stopped
        cached(runs).cache.put(((explore,), ()), made)  # type: ignore[attr-defined]
        st.session_state["_yd_refined"] = explore
        return True

    return done


def refining_notice(explore: ExploreSettings, refine: Callable[[], object]) -> None:
    """An info box saying the first view rests on :data:`FIRST_REPS` runs; once the full runs of
    ``explore`` are there (from the pool, or ``refine`` in the box's next run without one) the
    page reruns and shows ``explore`` itself."""
    text = (
        f"First view: {runs_each(FIRST_REPS)}. The {explore.reps} runs you asked for "
        "replace them in a moment."
    )
    if _pool.shared_pool() is not None:
        every = poll_seconds(refined().in_flight(), POOL_SECONDS, max(workers_from_env(), 1))
        notice(
            "_yd_refine_next",
            explore,
            text,
            every,
            done=_on_pool(explore),
            polled=lambda: refined().keep(explore, _pool.session_key(), every),
            failed=lambda: refined().failure(explore),
            retry=lambda: refined().retry(explore),
        )
        return

    def here() -> None:
        refine()
        st.session_state["_yd_refined"] = explore

    notice("_yd_refine_next", explore, text, REFINE_AFTER, done=lambda: False, here=here)
